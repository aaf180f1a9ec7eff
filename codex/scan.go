package codex

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

// maxScanDepth is how deep under a skills root Codex finds a SKILL.md.
const maxScanDepth = 6

// found is a skill Codex would list from some root: its name as listed
// (the front matter's, else the folder's) and its folder.
type found struct {
	name string
	dir  string
}

// scanSkills finds the skills under root as Codex does: folders holding a
// SKILL.md, up to six levels down, skipping hidden folders and following
// linked ones (each real folder once, so a loop ends). A missing root
// holds none.
func scanSkills(ctx context.Context, root string) ([]found, error) {
	var out []found
	seen := make(map[string]bool)
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || seen[real] {
			return nil
		}
		seen[real] = true
		if fi, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil && fi.Mode().IsRegular() {
			out = append(out, found{name: listedName(dir), dir: dir})
		}
		if depth == maxScanDepth {
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil // unreadable: Codex cannot list it either
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	err := walk(root, 0)
	return out, err
}

// listedName is the name Codex lists the skill in dir by: the front
// matter's name, else the folder's.
func listedName(dir string) string {
	if s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient)); err == nil && s.Name != "" {
		return s.Name
	}
	return filepath.Base(dir)
}
