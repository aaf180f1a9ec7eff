package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// A run with the real Codex leaves a managed home holding its session:
// cache list shows it with its size and the session, cache clear without
// -y and without a terminal refuses, saying what it would remove, and
// cache clear -y removes it and says the session went.
func TestCacheClearCodexHome(t *testing.T) {
	r, _ := newCodexRunRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	code, _, errs := r.inProcess(t, runCtx(t), "run", "-a", "codex", "-s", filepath.Join(r.skills, "alpha"), "hi")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	code, out, errs := r.inProcess(t, runCtx(t), "cache", "list")
	home := regexp.MustCompile(`(?m)^codex +home +\d+ +([1-9]\d*) +1 +\S+ \S+ +no +(/\S+)$`).FindStringSubmatch(out)
	if code != 0 || home == nil || !strings.Contains(out, "The agent homes hold 1 sessions (codex 1)") {
		t.Fatalf("cache list = %d, %q, stderr %q; want the Codex home with its size and its session", code, out, errs)
	}
	t.Logf("the Codex home of one run holds %s bytes", home[1])
	code, _, errs = r.inProcess(t, runCtx(t), "cache", "clear")
	if code != 2 || !strings.Contains(errs, "the 0 skill mounts and 1 agent homes that no running agent uses ("+home[1]+" bytes)") ||
		!strings.Contains(errs, "with the 1 sessions the homes hold, which can no longer be resumed (codex 1)") || !strings.Contains(errs, "pass -y") {
		t.Errorf("cache clear without -y = %d, stderr %q; want it refused, saying what it would remove", code, errs)
	}
	if _, err := os.Stat(home[2]); err != nil {
		t.Fatalf("the home after a refused clear: %v", err)
	}
	code, out, errs = r.inProcess(t, runCtx(t), "cache", "clear", "-y")
	if code != 0 || !strings.Contains(out, "Removed 0 skill mounts and 1 agent homes ("+home[1]+" bytes)") ||
		!strings.Contains(out, "held 1 sessions, which can no longer be resumed: codex 1.") {
		t.Fatalf("cache clear -y = %d, %q, stderr %q; want the home removed and its session counted", code, out, errs)
	}
	if _, err := os.Stat(home[2]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the home after cache clear -y: %v, want it gone", err)
	}
	if n := kinds(r.cacheRows(t)); len(n) != 0 {
		t.Errorf("cache list after clear = %v, want nothing", n)
	}
}

// TestCacheClear checks what clear keeps and when it asks: a folder that
// a run holds a lease on is kept, with the skill it links to; on a
// terminal it asks, and only yes removes anything.
func TestCacheClear(t *testing.T) {
	tests := []struct {
		name     string
		yes      bool
		terminal bool
		answer   string
		code     int
		removed  bool
		stderr   string
	}{
		{name: "-y", yes: true, removed: true},
		{name: "no terminal", code: 2, stderr: "clear asks before it removes anything, and standard input is not a terminal: pass -y"},
		{name: "terminal, yes", terminal: true, answer: "y\n", removed: true, stderr: "Remove? [y/N] "},
		{name: "terminal, YES", terminal: true, answer: "YES\n", removed: true, stderr: "Remove? [y/N] "},
		{name: "terminal, no", terminal: true, answer: "n\n", code: 1, stderr: "Nothing was removed."},
		{name: "terminal, nothing", terminal: true, answer: "", code: 1, stderr: "Nothing was removed."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := cachetest.Root(t)
			c := skill.NewCache(skill.WithSkillCacheRoot(root))
			linked, err := c.Materialize(t.Context(), skill.Inline("kept", "---\nname: kept\ndescription: Linked from a leased home.\n---\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Materialize(t.Context(), skill.Inline("loose", "---\nname: loose\ndescription: Linked from nothing.\n---\n")); err != nil {
				t.Fatal(err)
			}
			busy := home(t, root, "aa", linked)
			defer busy.Release()
			idle := home(t, root, "bb", "")
			idle.Release()

			var out, errs bytes.Buffer
			s := &streams{in: strings.NewReader(tt.answer), out: &out, err: &errs}
			err = runE(func(*cobra.Command, []string) error {
				return runCacheClear(t.Context(), &cacheClearOptions{io: s, yes: tt.yes, terminal: tt.terminal}, c)
			})(nil, nil)
			if code := s.exitCode(nil, err); code != tt.code {
				t.Fatalf("clear = %v, exit code %d, want %d", err, code, tt.code)
			}
			if !strings.Contains(errs.String(), tt.stderr) {
				t.Errorf("clear's stderr = %q, want %q in it", errs.String(), tt.stderr)
			}
			if _, err := os.Stat(busy.Dir()); err != nil {
				t.Errorf("the leased home: %v, want it kept", err)
			}
			if _, err := os.Stat(linked); err != nil {
				t.Errorf("the skill the leased home links to: %v, want it kept", err)
			}
			entries, _ := c.Entries(t.Context())
			_, statErr := os.Stat(idle.Dir())
			if gone := errors.Is(statErr, os.ErrNotExist) && len(entries) == 1; gone != tt.removed {
				t.Fatalf("idle home removed with the loose skill: %v (%v, %d skills left), want %v", gone, statErr, len(entries), tt.removed)
			}
			if !tt.removed {
				if out.Len() > 0 {
					t.Errorf("clear's stdout = %q, want nothing", out.String())
				}
				return
			}
			for _, want := range []string{"Removed 1 cached skills", "Removed 0 skill mounts and 1 agent homes",
				"held 1 sessions, which can no longer be resumed: codex 1.", "Kept home " + busy.Dir() + " of codex: a running agent uses it."} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("clear's stdout = %q, want %q in it", out.String(), want)
				}
			}
		})
	}
}

// codexHome is the kind of a managed Codex home, as package codex
// declares it: cache clear finds it under the root.
var codexHome = agentdir.Kind{Dir: "homes/codex", Agent: "codex", Magic: "agentadaptor codex home v1",
	Sessions: "sessions/*/*/*/rollout-*.jsonl"}

// home makes a managed Codex home of key under root holding one session
// and, when to is not "", a link to it, and returns its lease.
func home(t *testing.T, root, key, to string) *agentdir.Lease {
	t.Helper()
	l, err := agentdir.Acquire(t.Context(), root, codexHome, key)
	if err != nil {
		t.Fatal(err)
	}
	day := filepath.Join(l.Dir(), "sessions", "2026", "12", "01")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(day, "rollout-2026-12-01T10-00-00-"+key+".jsonl"), []byte("{}\n"), 0o600)
	if to != "" {
		os.MkdirAll(filepath.Join(l.Dir(), "skills"), 0o700)
		if err := os.Symlink(to, filepath.Join(l.Dir(), "skills", "kept")); err != nil {
			t.Fatal(err)
		}
	}
	return l
}
