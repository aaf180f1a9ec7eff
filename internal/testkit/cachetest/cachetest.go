// Package cachetest gives tests a skill cache root of their own, writes
// skill folders, and reads what a cache or any other folder holds.
package cachetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// Root returns a new folder under t.TempDir() for a skill cache. Published
// cache trees have read-only folders, which the temporary folder's removal
// cannot empty without root's rights, so the test's cleanup first makes
// every folder under it writable again.
func Root(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	t.Cleanup(func() { Writable(root) })
	return root
}

// Writable makes every folder under root writable by its owner, so that
// os.RemoveAll can empty them.
func Writable(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

// Tree returns every file under dir as its slash-separated path mapped to
// "x " (executable) or "- " followed by its content.
func Tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		exec := "-"
		if fi.Mode()&0o100 != 0 {
			exec = "x"
		}
		out[filepath.ToSlash(rel)] = exec + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Listing lists a folder: every path with its mode, size and modification
// time, a line each, so that two listings differ when anything under it
// changed.
func Listing(t testing.TB, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	return b.String()
}

// Staged lists the names in the staging folder of the cache at root,
// sorted: the staging areas of running or interrupted writers, their lock
// files and spooled files. A cache with no staging folder holds none.
func Staged(t testing.TB, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, ".tmp"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out
}

// SkillMD returns a SKILL.md of the name and description with body after
// the front matter.
func SkillMD(name, description, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s\n", name, description, body)
}

// WriteSkill writes a skill folder parent/name whose SKILL.md describes it
// as "the NAME skill" and holds body, and returns the folder. It fails the
// test on error.
func WriteSkill(t testing.TB, parent, name, body string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(SkillMD(name, "the "+name+" skill", body)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Empty fails t when the cache at root holds a published tree or any
// file: after a refused skill only the cache's own empty bookkeeping
// folders may remain.
func Empty(t testing.TB, root string) {
	t.Helper()
	entries, err := cache.Entries(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("cache has %d trees after a failure, want none", len(entries))
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("cache holds %s after a failure, want nothing", rel)
		}
		return nil
	})
}
