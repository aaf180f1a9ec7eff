// Package skilldirs finds the skills of checkouts of published skill
// repositories, for the programs that audit them.
package skilldirs

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Under returns, sorted and each once, every folder under root that holds a SKILL.md
// (a regular file, named in any case), not looking into .git or
// node_modules.
func Under(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.EqualFold(d.Name(), "SKILL.md") && d.Type().IsRegular() {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out), err
}
