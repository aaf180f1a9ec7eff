package webindex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

// skillDir writes a skill folder named name under root with the files
// given (SKILL.md is written from name unless files holds one).
func skillDir(t *testing.T, root, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	all := map[string]string{"SKILL.md": "---\nname: " + name + "\ndescription: Does " + name + " things.\n---\n# " + name + "\n"}
	for k, v := range files {
		all[k] = v
	}
	for k, v := range all {
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteRoundTrip writes an index (rule 5) and reads it back: each
// entry's digest is its artifact's, a lone SKILL.md is a skill-md entry,
// and the same folders give the same bytes.
func TestWriteRoundTrip(t *testing.T) {
	src := t.TempDir()
	lone := skillDir(t, src, "lone", nil)
	kit := skillDir(t, src, "kit", map[string]string{"scripts/run.sh": "#!/bin/sh\necho hi\n", "references/REF.md": "ref"})
	out1, out2 := t.TempDir(), t.TempDir()
	ix, err := webindex.Write(t.Context(), out1, []string{lone, kit}, webindex.WithBaseURL("https://example.com/team/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := webindex.Write(t.Context(), out2, []string{kit, lone}, webindex.WithBaseURL("https://example.com/team")); err != nil {
		t.Fatal(err)
	}
	t1, t2 := readTree(t, out1), readTree(t, out2)
	if len(t1) != 3 || len(t2) != 3 {
		t.Fatalf("Write wrote %d and %d files, want 3: %v", len(t1), len(t2), t1)
	}
	for name, data := range t1 {
		if t2[name] != data {
			t.Errorf("Write is not deterministic: %s differs", name)
		}
	}
	if len(ix.Skills) != 2 || ix.Skills[0].Name != "kit" || ix.Skills[1].Name != "lone" {
		t.Fatalf("Write = %+v, want kit then lone", ix.Skills)
	}
	data := []byte(t1[".well-known/agent-skills/index.json"])
	got, err := webindex.Parse(data, "https://example.com/team/.well-known/agent-skills/index.json")
	if err != nil || len(got.Skipped) != 0 || len(got.Skills) != 2 {
		t.Fatalf("Parse(written) = %+v, %v", got, err)
	}
	for _, s := range got.Skills {
		rel := strings.TrimPrefix(s.Resolved, "https://example.com/team/")
		artifact, ok := t1[rel]
		if !ok {
			t.Errorf("%s: %s is not written", s.Name, s.Resolved)
			continue
		}
		if webindex.Digest([]byte(artifact)) != s.Digest {
			t.Errorf("%s: digest %s is not its artifact's", s.Name, s.Digest)
		}
	}
	if s, _ := got.Lookup("lone"); s.Type != webindex.TypeSkillMD || s.Description != "Does lone things." {
		t.Errorf("lone = %+v, want a skill-md entry with its description", s)
	}
	if s, _ := got.Lookup("kit"); s.Type != webindex.TypeArchive || !strings.HasSuffix(s.URL, "kit.tar.gz") {
		t.Errorf("kit = %+v, want an archive entry", s)
	}

	// The archive holds the skill at its root, scripts executable.
	c := skill.NewCache(skill.WithSkillCacheRoot(t.TempDir()))
	archive := filepath.Join(out1, ".well-known", "agent-skills", "kit.tar.gz")
	found, err := skillcache.ArchiveSkills(t.Context(), c, archive, 0)
	if err != nil || len(found) != 1 || found[0] != "" {
		t.Errorf("ArchiveSkills(kit.tar.gz) = %q, %v; want its root", found, err)
	}

	// Without a base URL, URLs are relative to the index.
	out3 := t.TempDir()
	if _, err := webindex.Write(t.Context(), out3, []string{kit}); err != nil {
		t.Fatal(err)
	}
	if idx := readTree(t, out3)[".well-known/agent-skills/index.json"]; !strings.Contains(idx, `"url": "kit.tar.gz"`) {
		t.Errorf("index without a base URL = %s, want a relative url", idx)
	}
}

// TestWriteRefuses covers what Write refuses, each before anything is
// written (rule 5).
func TestWriteRefuses(t *testing.T) {
	src := t.TempDir()
	good := skillDir(t, src, "good", nil)
	badName := skillDir(t, src, "Bad", nil)
	mismatch := skillDir(t, src, "other", map[string]string{"SKILL.md": "---\nname: good\ndescription: x\n---\n"})
	dupe := filepath.Join(t.TempDir(), "good")
	if err := os.CopyFS(dupe, os.DirFS(good)); err != nil {
		t.Fatal(err)
	}
	extra := skillDir(t, src, "extra", map[string]string{"unknown.txt": "x"})
	tests := []struct {
		name string
		dirs []string
		opts []webindex.Option
		want string
	}{
		{"none", nil, nil, "no skill folders"},
		{"invalid", []string{good, badName}, nil, "agentskills validate"},
		{"name differs from folder", []string{mismatch}, nil, "agentskills validate"},
		{"twice", []string{good, dupe}, nil, "both named"},
		{"missing", []string{filepath.Join(src, "nope")}, nil, "write index"},
		{"bad base", []string{good}, []webindex.Option{webindex.WithBaseURL("ftp://example.com")}, "base URL"},
		{"base with credentials", []string{good}, []webindex.Option{webindex.WithBaseURL("https://u:p@example.com")}, "base URL"},
		{"archive limit", []string{extra}, []webindex.Option{webindex.WithCache(skill.NewCache(skill.WithSkillCacheRoot(t.TempDir()), skill.WithMaxArchiveEntries(1)))}, "skill extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			_, err := webindex.Write(t.Context(), out, tt.dirs, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write = %v, want an error saying %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(out, ".well-known")); len(entries) != 0 {
				t.Errorf("Write left %v behind", entries)
			}
		})
	}
}

// TestWriteLinkOut refuses a skill holding a link that leads out of its
// folder (rule 5: links are packed only as copies of files inside).
func TestWriteLinkOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need a privilege on Windows")
	}
	src := t.TempDir()
	dir := skillDir(t, src, "linked", map[string]string{"a.md": "a"})
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := webindex.Write(t.Context(), out, []string{dir}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("Write(link out) = %v, want it refused", err)
	}
	if err := os.Remove(filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := webindex.Write(t.Context(), out, []string{dir}); err != nil {
		t.Errorf("Write(link inside) = %v, want it packed as a copy", err)
	}
}

// TestWriteReplaces replaces a previous output and refuses a folder that
// holds anything else (rule 5).
func TestWriteReplaces(t *testing.T) {
	src := t.TempDir()
	a := skillDir(t, src, "a", nil)
	b := skillDir(t, src, "b", map[string]string{"x.md": "x"})
	out := t.TempDir()
	if _, err := webindex.Write(t.Context(), out, []string{a, b}); err != nil {
		t.Fatal(err)
	}
	if _, err := webindex.Write(t.Context(), out, []string{b}); err != nil {
		t.Fatalf("Write over its own output = %v", err)
	}
	tree := readTree(t, out)
	if _, ok := tree[".well-known/agent-skills/a/SKILL.md"]; ok || len(tree) != 2 {
		t.Errorf("after the second Write: %v, want b alone", tree)
	}
	final := filepath.Join(out, ".well-known", "agent-skills")
	user := filepath.Join(final, "notes.txt")
	if err := os.WriteFile(user, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, out)
	_, err := webindex.Write(t.Context(), out, []string{a})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("Write over a user's file = %v, want it refused naming the file", err)
	}
	if after := readTree(t, out); !equal(before, after) {
		t.Errorf("a refused Write changed the output: %v", after)
	}

	foreign := t.TempDir()
	if err := os.MkdirAll(filepath.Join(foreign, ".well-known", "agent-skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, ".well-known", "agent-skills", "index.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := webindex.Write(t.Context(), foreign, []string{a}); err == nil || !strings.Contains(err.Error(), "not one this tool writes") {
		t.Errorf("Write over a foreign index = %v, want it refused", err)
	}
	file := t.TempDir()
	if err := os.MkdirAll(filepath.Join(file, ".well-known"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(file, ".well-known", "agent-skills"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := webindex.Write(t.Context(), file, []string{a}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Write over a file = %v, want it refused", err)
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal([]byte(v), []byte(w)) {
			return false
		}
	}
	return true
}
