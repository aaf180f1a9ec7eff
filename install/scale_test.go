package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// A sync or add that finds the source and the canonical copy as the lock
// file records them copies nothing (it stages no file), and one that finds
// either changed stages the skill as before.
func TestUnchangedSkillIsNotStaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, src, canonical string)
		sync   bool
		staged bool
	}{
		{name: "sync, nothing changed", sync: true},
		{name: "add again, nothing changed"},
		{name: "sync, source changed", sync: true, staged: true, change: func(t *testing.T, src, _ string) {
			os.WriteFile(filepath.Join(src, "scripts", "run.sh"), []byte("#!/bin/sh\necho changed\n"), 0o755)
		}},
		{name: "add again, source changed", staged: true, change: func(t *testing.T, src, _ string) {
			os.WriteFile(filepath.Join(src, "notes.md"), []byte("new\n"), 0o644)
		}},
		{name: "sync, canonical copy gone", sync: true, staged: true, change: func(t *testing.T, _, canonical string) {
			os.RemoveAll(canonical)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			src := f.writeSkill(t, "a", "alpha", "")
			in := f.installer(t)
			req := AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex")}
			if _, err := in.Add(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if tc.change != nil {
				tc.change(t, src, filepath.Join(f.env.Project, ".agents", "skills", "alpha"))
			}
			var mu sync.Mutex
			var staged []string
			in.staging = func(name string) {
				mu.Lock()
				defer mu.Unlock()
				staged = append(staged, name)
			}
			var err error
			if tc.sync {
				_, err = in.Sync(t.Context(), SyncRequest{})
			} else {
				_, err = in.Add(t.Context(), req)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(staged) > 0; got != tc.staged {
				t.Errorf("staged %q, want staging: %v", staged, tc.staged)
			}
			if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
				t.Errorf("Verify = %+v, %v", bad, err)
			}
		})
	}
}

// A sync that stages nothing still holds the source to the cache's limits
// (rule 3): a source that has not changed since it was installed, but that
// the limits now refuse, fails it.
func TestUnchangedSkillStillChecked(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "a", "alpha", strings.Repeat("x", 2000))
	if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	small := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")), skill.WithMaxFileSize(1000))
	in := f.installer(t, WithCache(small))
	if _, err := in.Sync(t.Context(), SyncRequest{}); err == nil {
		t.Fatal("Sync with a file over the cache's limit succeeded")
	}
}

// A copy an agent has that was edited, while the source and the canonical
// copy are as recorded, is reported modified naming the edited file,
// though nothing was staged to compare it with.
func TestModifiedCopyNamedWhenNothingStaged(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "a", "alpha", "")
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex"), Copy: true}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.env.Project, ".claude", "skills", "alpha", "scripts", "run.sh"), []byte("edited\n"), 0o755)
	_, err := in.Sync(t.Context(), SyncRequest{})
	if !errors.Is(err, ErrModified) || !strings.Contains(err.Error(), "scripts/run.sh changed") {
		t.Fatalf("Sync = %v, want ErrModified naming scripts/run.sh", err)
	}
}

func TestSourceSkillsFind(t *testing.T) {
	r := &sourceSkills{skills: []candidate{
		{name: "a"}, {name: "b", subpath: "x/b"}, {name: "a", subpath: "y/a"}, {name: "b", subpath: "x/b", dir: "second"},
	}}
	for _, tc := range []struct {
		name, subpath string
		want          int
	}{
		{"a", "", 0},
		{"b", "x/b", 1}, // the first of two
		{"a", "y/a", 2},
		{"b", "", -1},
		{"c", "", -1},
	} {
		if got := r.find(tc.name, tc.subpath); got != tc.want {
			t.Errorf("find(%q, %q) = %d, want %d", tc.name, tc.subpath, got, tc.want)
		}
	}
}
