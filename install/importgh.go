package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// ghKeys are the metadata keys gh skill install adds to a SKILL.md, and
// those it removes (rule 3 of importing's facts).
var ghKeys = []string{"github-repo", "github-ref", "github-tree-sha", "github-path", "github-pinned", "github-owner", "github-sha", "local-path"}

// importGH carries over a skill gh installed (rule 5 of importing): when
// gh's copy differs from the source at its pin only by what gh changed,
// it is moved to a backup, the skill is added, and the copy is put back
// when the add fails.
func (in *Installer) importGH(ctx context.Context, item Imported, report *ImportReport) {
	left := func(why string) {
		item.Reason = why
		report.Left = append(report.Left, item)
	}
	pin, why := in.sameAsGH(ctx, item)
	item.Pin = pin
	if why != "" {
		left(why)
		return
	}
	rel := relTo(in.Root(), item.ghDir)
	if filepath.IsAbs(rel) {
		rel = filepath.Base(rel)
	}
	dst, moved, err := in.toBackup(ctx, item.ghDir, filepath.FromSlash(rel))
	if err != nil || !moved {
		if err == nil {
			os.RemoveAll(dst) // a copy: gh's folder is still in place
			err = errors.New("it cannot be moved within its file system")
		}
		left(fmt.Sprintf("gh's copy %s could not be moved to a backup: %v; nothing was changed", item.ghDir, err))
		return
	}
	item.Backup = dst
	if err := in.importAdd(ctx, []Imported{item}, report); err != nil {
		item.Backup = ""
		if rerr := os.Rename(dst, item.ghDir); rerr != nil {
			left(fmt.Sprintf("%v; gh's copy could not be put back and is in %s (%v)", err, dst, rerr))
			return
		}
		left(err.Error())
	}
}

// sameAsGH reads item's source at its reference and compares the skill
// there with gh's copy, modulo gh's changes; it returns the pin, and why
// they differ ("" when they do not).
func (in *Installer) sameAsGH(ctx context.Context, item Imported) (pin, why string) {
	r, err := in.resolve(ctx, item.Source, false, nil)
	if err != nil {
		return "", err.Error()
	}
	defer r.cleanup()
	use, _ := pick(r.skills, []string{item.Skill})
	if len(use) != 1 || use[0].problem != "" {
		return r.pin, fmt.Sprintf("%s holds no usable skill %s", item.Source, item.Skill)
	}
	diff, err := ghDiff(item.ghDir, use[0].dir, in.cache.Limits().MaxFileSize, in.cache.Limits().MaxArchiveEntries)
	if err != nil {
		return r.pin, fmt.Sprintf("gh's copy %s cannot be compared with %s: %v; nothing was changed", item.ghDir, item.Source, err)
	}
	if len(diff) > 0 {
		return r.pin, fmt.Sprintf("gh's copy %s differs from %s at %s beyond what gh changes (%s); move it away to install the source's content, or keep it; nothing was changed",
			item.ghDir, item.Source, shortPin(r.pin), strings.Join(diff, ", "))
	}
	return r.pin, ""
}

// ghDiff lists the files in which gh's copy differs from the skill folder
// src, other than by what gh does: SKILL.md's front matter written again
// with its metadata keys, and links left out.
func ghDiff(copyDir, src string, maxFile int64, maxFiles int) ([]string, error) {
	a, err := regularFiles(copyDir, maxFiles)
	if err != nil {
		return nil, err
	}
	b, err := regularFiles(src, maxFiles)
	if err != nil {
		return nil, err
	}
	var diff []string
	for _, name := range slices.Sorted(slices.Values(union(a, b))) {
		if !slices.Contains(a, name) || !slices.Contains(b, name) {
			diff = append(diff, name)
			continue
		}
		x, err := readfile.Small(filepath.Join(copyDir, filepath.FromSlash(name)), maxFile)
		if err != nil {
			return nil, err
		}
		y, err := readfile.Small(filepath.Join(src, filepath.FromSlash(name)), maxFile)
		if err != nil {
			return nil, err
		}
		if name == "SKILL.md" && !sameAfterGH(x, y) || name != "SKILL.md" && !bytes.Equal(x, y) {
			diff = append(diff, name)
		}
	}
	return diff, nil
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(a, s) {
			out = append(out, s)
		}
	}
	return out
}

// regularFiles lists the regular files under dir, slash-separated,
// without following links; more than max is an error.
func regularFiles(dir string, max int) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			if out = append(out, filepath.ToSlash(rel)); len(out) > max {
				return fmt.Errorf("more than %d files", max)
			}
		}
		return nil
	})
	return out, err
}

// sameAfterGH reports whether gh's SKILL.md is the source's with gh's
// metadata keys added: the same front matter, as YAML values, once those
// keys (and a metadata map they alone make) are taken out, and the same
// body, which gh writes after the front matter without leading line
// breaks and with a final one.
func sameAfterGH(copied, original []byte) bool {
	fa, ba, okA := splitFront(string(copied))
	fb, bb, okB := splitFront(string(original))
	if !okA || !okB {
		return false
	}
	var ma, mb map[string]any
	if yaml.Unmarshal([]byte(fa), &ma) != nil || yaml.Unmarshal([]byte(fb), &mb) != nil {
		return false
	}
	if meta, ok := ma["metadata"].(map[string]any); ok {
		for _, k := range ghKeys {
			delete(meta, k)
		}
		if _, had := mb["metadata"]; len(meta) == 0 && !had {
			delete(ma, "metadata")
		}
	}
	if meta, ok := mb["metadata"].(map[string]any); ok {
		for _, k := range ghKeys {
			delete(meta, k)
		}
	}
	if bb != "" && !strings.HasSuffix(bb, "\n") {
		bb += "\n"
	}
	return reflect.DeepEqual(ma, mb) && ba == bb
}

// splitFront splits a SKILL.md as gh does: the front matter between the
// first "---" and the next "\n---", and what follows that without leading
// line breaks.
func splitFront(s string) (front, body string, ok bool) {
	s = strings.TrimLeft(s, "\r\n")
	rest, ok := strings.CutPrefix(s, "---")
	if !ok {
		return "", "", false
	}
	front, body, ok = strings.Cut(strings.TrimLeft(rest, "\r\n"), "\n---")
	return front, strings.TrimLeft(body, "\r\n"), ok
}
