package skill_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// scanTree creates files under root. A path ending in "/" is a folder; any
// other path is a file whose content is its own name.
func scanTree(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func scanKeys(skills []skill.Skill) []string {
	keys := make([]string, 0, len(skills))
	for _, s := range skills {
		keys = append(keys, s.Key)
	}
	return keys
}

func TestLocalSkillsFromDir(t *testing.T) {
	root := t.TempDir()
	scanTree(t, root,
		"zeta/SKILL.md",
		"alpha/SKILL.md",
		"alpha/references/guide.md",
		"Beta/SKILL.md",
		"mid-skill/SKILL.md",
		"plain/README.md",       // no marker: skipped
		"empty/",                // no marker: skipped
		"nested/inner/SKILL.md", // two deep: not found
		"dirmarker/SKILL.md/",   // SKILL.md is a folder: not a marker
		".hidden/SKILL.md",      // hidden: skipped
		".git/SKILL.md",         // hidden: skipped
		"notes.txt",             // a file at the top: skipped
		"SKILL.md",              // a marker in root itself is not a skill
		"lower/skill.md",        // marker name is case-sensitive on this FS
		"deep/a/b/SKILL.md",     // two deep again
	)
	got, err := skill.LocalSkillsFromDir(root)
	if err != nil {
		t.Fatalf("LocalSkillsFromDir(%q) error = %v", root, err)
	}
	wantKeys := []string{"Beta", "alpha", "mid-skill", "zeta"}
	if keys := scanKeys(got); !slices.Equal(keys, wantKeys) {
		t.Fatalf("LocalSkillsFromDir(%q) keys = %q, want %q", root, keys, wantKeys)
	}
	for _, s := range got {
		src, ok := s.Source.(skill.PathSource)
		if !ok {
			t.Errorf("skill %q Source = %T, want skill.PathSource", s.Key, s.Source)
			continue
		}
		want := filepath.Join(root, s.Key)
		if src.Path != want {
			t.Errorf("skill %q Source.Path = %q, want %q", s.Key, src.Path, want)
		}
		if !filepath.IsAbs(src.Path) {
			t.Errorf("skill %q Source.Path = %q, want an absolute path", s.Key, src.Path)
		}
		if s.Required || s.Reason != "" || s.Metadata != nil {
			t.Errorf("skill %q = %+v, want zero Required, Reason and Metadata", s.Key, s)
		}
		// Same source Dir builds.
		if d := skill.Dir(src.Path); d.Key != s.Key || d.Source != s.Source {
			t.Errorf("Dir(%q) = %+v, want the scanned skill %+v", src.Path, d, s)
		}
	}

	// Deterministic: a second scan gives the same result.
	again, err := skill.LocalSkillsFromDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, again, func(a, b skill.Skill) bool { return a.Key == b.Key && a.Source == b.Source }) {
		t.Errorf("second LocalSkillsFromDir(%q) = %v, want %v", root, again, got)
	}
}

func TestLocalSkillsFromDirRelativeRoot(t *testing.T) {
	parent := t.TempDir()
	scanTree(t, parent, "skills/review/SKILL.md")
	t.Chdir(parent)
	got, err := skill.LocalSkillsFromDir("skills")
	if err != nil {
		t.Fatalf("LocalSkillsFromDir(%q) error = %v", "skills", err)
	}
	if len(got) != 1 {
		t.Fatalf("LocalSkillsFromDir(%q) = %v, want one skill", "skills", got)
	}
	want := skill.PathSource{Path: filepath.Join(parent, "skills", "review")}
	if got[0].Key != "review" || got[0].Source != want {
		t.Errorf("LocalSkillsFromDir(%q)[0] = {%q, %#v}, want {%q, %#v}", "skills", got[0].Key, got[0].Source, "review", want)
	}
}

func TestLocalSkillsFromDirEmpty(t *testing.T) {
	root := t.TempDir()
	got, err := skill.LocalSkillsFromDir(root)
	if err != nil || len(got) != 0 {
		t.Errorf("LocalSkillsFromDir(empty) = %v, %v, want none, nil", got, err)
	}
}

func TestLocalSkillsFromDirOptions(t *testing.T) {
	root := t.TempDir()
	scanTree(t, root,
		"code-review/SKILL.md",
		"node_modules/SKILL.md",
		"Node_Modules/SKILL.md",
		"vendor/SKILL.md",
		"build/SKILL.md",
		"agent-only/AGENT.md",
		"both/SKILL.md",
		"both/AGENT.md",
	)
	tests := []struct {
		name string
		opts []skill.DirScanOption
		want []string
	}{
		{
			name: "defaults",
			want: []string{"Node_Modules", "both", "build", "code-review", "node_modules", "vendor"},
		},
		{
			name: "ignore exact name",
			opts: []skill.DirScanOption{skill.WithDirIgnore("node_modules")},
			want: []string{"Node_Modules", "both", "build", "code-review", "vendor"},
		},
		{
			name: "ignore is case-sensitive",
			opts: []skill.DirScanOption{skill.WithDirIgnore("NODE_MODULES")},
			want: []string{"Node_Modules", "both", "build", "code-review", "node_modules", "vendor"},
		},
		{
			name: "ignore is not a glob",
			opts: []skill.DirScanOption{skill.WithDirIgnore("node_*", "*", "b*")},
			want: []string{"Node_Modules", "both", "build", "code-review", "node_modules", "vendor"},
		},
		{
			name: "ignore several names in one option",
			opts: []skill.DirScanOption{skill.WithDirIgnore("vendor", "build")},
			want: []string{"Node_Modules", "both", "code-review", "node_modules"},
		},
		{
			name: "ignore accumulates over options",
			opts: []skill.DirScanOption{skill.WithDirIgnore("vendor"), skill.WithDirIgnore("build"), skill.WithDirIgnore("node_modules", "Node_Modules")},
			want: []string{"both", "code-review"},
		},
		{
			name: "ignore of unknown name",
			opts: []skill.DirScanOption{skill.WithDirIgnore("missing")},
			want: []string{"Node_Modules", "both", "build", "code-review", "node_modules", "vendor"},
		},
		{
			name: "prefix without slash",
			opts: []skill.DirScanOption{skill.WithDirIgnore("node_modules", "Node_Modules", "vendor", "build"), skill.WithDirSkillKeyPrefix("team")},
			want: []string{"team/both", "team/code-review"},
		},
		{
			name: "prefix with slash",
			opts: []skill.DirScanOption{skill.WithDirIgnore("node_modules", "Node_Modules", "vendor", "build"), skill.WithDirSkillKeyPrefix("team/")},
			want: []string{"team/both", "team/code-review"},
		},
		{
			name: "nested prefix",
			opts: []skill.DirScanOption{skill.WithDirIgnore("node_modules", "Node_Modules", "vendor", "build"), skill.WithDirSkillKeyPrefix("org/team")},
			want: []string{"org/team/both", "org/team/code-review"},
		},
		{
			name: "empty prefix",
			opts: []skill.DirScanOption{skill.WithDirIgnore("node_modules", "Node_Modules", "vendor", "build"), skill.WithDirSkillKeyPrefix("")},
			want: []string{"both", "code-review"},
		},
		{
			name: "custom marker",
			opts: []skill.DirScanOption{skill.WithDirSkillFile("AGENT.md")},
			want: []string{"agent-only", "both"},
		},
		{
			name: "custom marker with prefix",
			opts: []skill.DirScanOption{skill.WithDirSkillFile("AGENT.md"), skill.WithDirSkillKeyPrefix("ext")},
			want: []string{"ext/agent-only", "ext/both"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := skill.LocalSkillsFromDir(root, tt.opts...)
			if err != nil {
				t.Fatalf("LocalSkillsFromDir(%q) error = %v", root, err)
			}
			if keys := scanKeys(got); !slices.Equal(keys, tt.want) {
				t.Errorf("LocalSkillsFromDir(%q) keys = %q, want %q", root, keys, tt.want)
			}
			// A prefix changes the key only, never the path.
			for _, s := range got {
				base := filepath.Base(s.Source.(skill.PathSource).Path)
				if !strings.HasSuffix(s.Key, base) {
					t.Errorf("skill %q has path base %q, want the key to end in it", s.Key, base)
				}
				if want := filepath.Join(root, base); s.Source.(skill.PathSource).Path != want {
					t.Errorf("skill %q Source.Path = %q, want %q", s.Key, s.Source.(skill.PathSource).Path, want)
				}
			}
		})
	}
}

func TestLocalSkillsFromDirSymlinks(t *testing.T) {
	outside := t.TempDir()
	scanTree(t, outside, "real/SKILL.md", "target.md", "markerdir/")
	root := t.TempDir()
	scanTree(t, root, "local/SKILL.md", "linked-marker/", "dir-marker/")
	mustSymlink(t, filepath.Join(outside, "real"), filepath.Join(root, "linked"))
	mustSymlink(t, filepath.Join(outside, "target.md"), filepath.Join(root, "linked-marker", "SKILL.md"))
	mustSymlink(t, filepath.Join(outside, "markerdir"), filepath.Join(root, "dir-marker", "SKILL.md"))
	mustSymlink(t, filepath.Join(outside, "target.md"), filepath.Join(root, "file-link"))

	got, err := skill.LocalSkillsFromDir(root)
	if err != nil {
		t.Fatalf("LocalSkillsFromDir(%q) error = %v", root, err)
	}
	want := []string{"linked", "linked-marker", "local"}
	if keys := scanKeys(got); !slices.Equal(keys, want) {
		t.Fatalf("LocalSkillsFromDir(%q) keys = %q, want %q", root, keys, want)
	}
	for _, s := range got {
		p := s.Source.(skill.PathSource).Path
		if !filepath.IsAbs(p) {
			t.Errorf("skill %q Source.Path = %q, want absolute", s.Key, p)
		}
		if _, err := os.Stat(filepath.Join(p, "SKILL.md")); err != nil {
			t.Errorf("skill %q: %v", s.Key, err)
		}
	}
	if p := got[0].Source.(skill.PathSource).Path; p != filepath.Join(root, "linked") {
		t.Errorf("linked skill Source.Path = %q, want %q", p, filepath.Join(root, "linked"))
	}
}

func mustSymlink(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestLocalSkillsFromDirErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) string
	}{
		{
			name:  "missing root",
			setup: func(t *testing.T) string { return filepath.Join(t.TempDir(), "missing") },
		},
		{
			name: "root is a file",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				scanTree(t, root, "file.txt")
				return filepath.Join(root, "file.txt")
			},
		},
		{
			name: "root is a link to a file",
			setup: func(t *testing.T) string {
				dir := t.TempDir()
				scanTree(t, dir, "file.txt")
				mustSymlink(t, filepath.Join(dir, "file.txt"), filepath.Join(dir, "link"))
				return filepath.Join(dir, "link")
			},
		},
		{
			// An entry that cannot be resolved is as unreadable as a folder
			// without permission: it could hide an expected skill.
			name: "dangling symlink entry",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				scanTree(t, root, "ok/SKILL.md")
				mustSymlink(t, filepath.Join(root, "gone"), filepath.Join(root, "broken"))
				return root
			},
		},
		{
			name: "symlink loop entry",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				scanTree(t, root, "ok/SKILL.md")
				mustSymlink(t, filepath.Join(root, "loop"), filepath.Join(root, "loop"))
				return root
			},
		},
		{
			name: "marker is a symlink loop",
			setup: func(t *testing.T) string {
				root := t.TempDir()
				scanTree(t, root, "ok/SKILL.md", "bad/")
				mustSymlink(t, filepath.Join(root, "bad", "SKILL.md"), filepath.Join(root, "bad", "SKILL.md"))
				return root
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tt.setup(t)
			got, err := skill.LocalSkillsFromDir(root)
			if err == nil {
				t.Errorf("LocalSkillsFromDir(%q) = %v, nil, want error", root, got)
			}
			if got != nil {
				t.Errorf("LocalSkillsFromDir(%q) = %v with error, want nil skills", root, got)
			}
		})
	}
}
