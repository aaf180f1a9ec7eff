package skill_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

const (
	greetSkill = "---\nname: greet\ndescription: Says hello.\n---\nSay hello.\n"
	greetSh    = "#!/bin/sh\necho hello\n"
)

// writeTree creates the folder name under a new temporary folder and the
// entries under it: "path" holds its content, "path/" is a folder,
// "path*" is an executable file and "path@" a symbolic link whose target
// is the content. It returns the folder, or skips the test where links or
// executable bits cannot be made.
func writeTree(t *testing.T, name string, entries map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, content := range entries {
		mode := os.FileMode(0o644)
		switch {
		case strings.HasSuffix(p, "*"):
			if runtime.GOOS == "windows" {
				t.Skip("no executable bits on Windows")
			}
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		case strings.HasSuffix(p, "/"):
			mode = os.ModeDir | 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "@")))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(p, "@"):
			if err := os.Symlink(filepath.FromSlash(content), full); err != nil {
				t.Skipf("cannot make links here: %v", err)
			}
		case mode.IsDir():
			if err := os.MkdirAll(full, mode.Perm()); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(full, []byte(content), mode); err != nil {
				t.Fatal(err)
			}
			// The umask must not clear the executable bit.
			if err := os.Chmod(full, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// The digests are those of internal/cache's known-answer tests, computed
// from the documented encoding by a separate implementation. A change of
// any of them changes digests recorded in lock files: it needs a new
// encoding version, never a new value here.
func TestContentDigestKnownAnswers(t *testing.T) {
	tests := []struct {
		name    string
		folder  string
		entries map[string]string
		want    string
	}{
		{
			name:    "one file",
			folder:  "a",
			entries: map[string]string{"b": "c"},
			want:    "64b59d003cef7f1f60bff8b09851a708be3ef0cf053d6b529557b8c55885a309",
		},
		{
			name:    "a file and an empty folder",
			folder:  "a",
			entries: map[string]string{"b": "c", "d/e/": ""},
			want:    "64b59d003cef7f1f60bff8b09851a708be3ef0cf053d6b529557b8c55885a309",
		},
		{
			name:    "skill with a script",
			folder:  "greet",
			entries: map[string]string{"SKILL.md": greetSkill, "scripts/hello.sh*": greetSh},
			want:    "5eeeda55a61d2e8d6cb029901a6b4d62157395db1f13105ec80d03c497ce10cb",
		},
		{
			name:    "skill with a script and a link",
			folder:  "greet",
			entries: map[string]string{"SKILL.md": greetSkill, "scripts/hello.sh*": greetSh, "docs/latest@": "../SKILL.md"},
			want:    "312d66b023394ef336332e43eeb34449160abb3388360b94fbf9be385791fbdf",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.folder, tt.entries)
			got, err := skill.ContentDigest(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ContentDigest(%q) = %s, want %s", dir, got, tt.want)
			}
		})
	}
}

// A materialized tree's digest, which the cache may answer from what it
// recorded when it published the tree, is the one reading the files of a
// copy gives.
func TestContentDigestOfCacheTreeKnownAnswer(t *testing.T) {
	const want = "82d8c039f08d12c9be921a2dd62bbbef1d8657171f427067bd0c73206d97f068"
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	dir, err := m.Materialize(t.Context(), skill.Inline("greet", greetSkill))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := skill.ContentDigest(t.Context(), dir); err != nil || got != want {
		t.Errorf("ContentDigest(%q) = %s, %v, want %s", dir, got, err, want)
	}
	copied := writeTree(t, "greet", map[string]string{"SKILL.md": greetSkill})
	if got, err := skill.ContentDigest(t.Context(), copied); err != nil || got != want {
		t.Errorf("ContentDigest(%q) = %s, %v, want %s", copied, got, err, want)
	}
}

// A link and a file never share a digest, whatever the file is named or
// holds.
func TestContentDigestLinkIsNotAFile(t *testing.T) {
	link, err := skill.ContentDigest(t.Context(), writeTree(t, "greet", map[string]string{"SKILL.md": greetSkill, "docs/latest@": "../SKILL.md"}))
	if err != nil {
		t.Fatal(err)
	}
	for name, entries := range map[string]map[string]string{
		// How links were once encoded: as such a file.
		"file named as the link with \" -> link\"": {"SKILL.md": greetSkill, "docs/latest -> link": "../SKILL.md"},
		"file holding the target":                  {"SKILL.md": greetSkill, "docs/latest": "../SKILL.md"},
	} {
		dir := writeTree(t, "greet", entries)
		got, err := skill.ContentDigest(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if got == link {
			t.Errorf("ContentDigest(%q) with a %s = %s, the digest of the folder with a link", dir, name, got)
		}
	}
}
