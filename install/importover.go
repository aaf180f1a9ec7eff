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
// those it removes (the facts of importing, 3).
var ghKeys = []string{"github-repo", "github-ref", "github-tree-sha", "github-path", "github-pinned", "github-owner", "github-sha", "local-path"}

// npmLeftOut reports whether the npm skills tool leaves the file name
// (slash-separated, inside a skill) out of what it installs: files named
// metadata.json, and what is under .git, __pycache__ and __pypackages__
// (its copyDirectory, dist/cli.mjs).
func npmLeftOut(name string) bool {
	parts := strings.Split(name, "/")
	for _, p := range parts[:len(parts)-1] {
		if p == ".git" || p == "__pycache__" || p == "__pypackages__" {
			return true
		}
	}
	return parts[len(parts)-1] == "metadata.json"
}

// importOver carries over a skill whose place holds another tool's copy
// that Add will not adopt (rule 5 of importing): when every such copy
// differs from the source at its pin only by what the npm tool or gh
// changes, each is moved to a backup, the skill is added, and the copies
// are put back when the add fails. Otherwise the skill is left out with
// why, after addErr, the failure of an Add that came first, if any.
func (in *Installer) importOver(ctx context.Context, item Imported, report *ImportReport, addErr error) {
	left := func(why string) {
		if addErr != nil {
			why = addErr.Error() + "\n" + why
		}
		item.Reason = why
		report.Left = append(report.Left, item)
	}
	copies := in.toolCopies(item)
	if len(copies) == 0 {
		left("nothing of it is in place")
		return
	}
	pin, why := in.differsOnlyByTool(ctx, item, copies)
	item.Pin = pin
	if why != "" {
		left(why + "; nothing was changed")
		return
	}
	restore := func() error {
		var errs []error
		base := filepath.Join(in.Root(), ".agents", "backups")
		for i, dst := range item.Backups {
			if err := os.Rename(dst, copies[i]); err != nil {
				errs = append(errs, fmt.Errorf("%s could not be put back from %s: %w", copies[i], dst, err))
				continue
			}
			// The folders the backup made, now empty, up to the backups
			// folder itself (os.Remove leaves one that is not empty).
			for d := filepath.Dir(dst); strings.HasPrefix(d, base); d = filepath.Dir(d) {
				if os.Remove(d) != nil || d == base {
					break
				}
			}
		}
		item.Backups = nil
		return errors.Join(errs...)
	}
	for _, dir := range copies {
		rel := relTo(in.Root(), dir)
		if filepath.IsAbs(rel) {
			rel = filepath.Base(rel)
		}
		dst, moved, err := in.toBackup(ctx, dir, filepath.FromSlash(rel))
		if err == nil && !moved {
			os.RemoveAll(dst) // a copy: the folder is still in place
			err = errors.New("it cannot be moved within its file system")
		}
		if err != nil {
			left(fmt.Sprintf("%s could not be moved to a backup: %v; nothing was changed%s", dir, err, restoreNote(restore())))
			return
		}
		item.Backups = append(item.Backups, dst)
	}
	if err := in.importAdd(ctx, []Imported{item}, report); err != nil {
		addErr = nil
		left(err.Error() + restoreNote(restore()))
	}
}

func restoreNote(err error) string {
	if err == nil {
		return ""
	}
	return "; " + err.Error()
}

// toolCopies returns the folders (not links) named after item's skill in
// its places: the canonical folder, the folders of the agents it is added
// for, and the one gh installed it in.
func (in *Installer) toolCopies(item Imported) []string {
	places := []string{filepath.Join(in.canonicalRoot(), item.Skill)}
	for _, id := range item.Agents {
		if a, ok := LookupAgent(id); ok {
			places = append(places, filepath.Join(a.Dir(in.env, in.scope), item.Skill))
		}
	}
	if item.ghDir != "" {
		places = append(places, item.ghDir)
	}
	var out []string
	for _, p := range places {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// differsOnlyByTool reads item's source at its reference, once the
// policy allows it (Trust rule 1), and compares the skill there with each
// of copies; it returns the pin, and why they differ beyond what the npm
// tool or gh changes ("" when they do not).
func (in *Installer) differsOnlyByTool(ctx context.Context, item Imported, copies []string) (pin, why string) {
	st, err := in.checkSource(item.Source, "", true, nil) // as Add will: before any request
	if err != nil {
		return "", err.Error()
	}
	r, err := in.resolve(ctx, item.Source, false, st, nil)
	if err != nil {
		return "", err.Error()
	}
	defer r.cleanup()
	use, _ := pick(r.skills, []string{item.Skill}, nil, true)
	if len(use) != 1 || use[0].problem != "" {
		return r.pin, fmt.Sprintf("%s holds no usable skill %s", item.Source, item.Skill)
	}
	limits := in.cache.Limits()
	for _, dir := range copies {
		diff, err := toolDiff(dir, use[0].dir, limits.MaxFileSize, limits.MaxArchiveEntries)
		if err != nil {
			return r.pin, fmt.Sprintf("%s cannot be compared with %s: %v", dir, item.Source, err)
		}
		if len(diff) > 0 {
			return r.pin, fmt.Sprintf("%s differs from %s at %s beyond what the npm skills tool or gh changes (%s); move it away to install the source's content, or keep it",
				dir, item.Source, shortPin(r.pin), strings.Join(diff, ", "))
		}
	}
	return r.pin, ""
}

// toolDiff lists the files in which the copy differs from the skill
// folder src beyond what the npm tool or gh changes: files the npm tool
// leaves out ([npmLeftOut]) may be missing, links in src are not
// compared (gh leaves them out), and a SKILL.md may be gh's form of the
// source's ([sameAfterGH]).
func toolDiff(copyDir, src string, maxFile int64, maxFiles int) ([]string, error) {
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
		inCopy, inSrc := slices.Contains(a, name), slices.Contains(b, name)
		if !inCopy && inSrc && npmLeftOut(name) {
			continue
		}
		if !inCopy || !inSrc {
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
		if !bytes.Equal(x, y) && (name != "SKILL.md" || !sameAfterGH(x, y)) {
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
