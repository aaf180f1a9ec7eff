package skill_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestDriverFoldersOfAnyKind checks that the cache lists and collects
// the folders of a driver it knows nothing of: it finds them under its
// root, with the agent the driver recorded, and keeps the skills they
// link to until they are gone.
func TestDriverFoldersOfAnyKind(t *testing.T) {
	root := cachetest.Root(t)
	c := skill.NewCache(skill.WithSkillCacheRoot(root))
	dir, err := c.Materialize(t.Context(), skill.Inline("tone", "---\nname: tone\ndescription: Tone.\n---\nBe brief.\n"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []agentdir.Kind{
		{Dir: "mounts/nobody-knows", Agent: "unknown-agent", Magic: "test mount v1"},
		{Dir: "homes/nobody-knows", Agent: "unknown-home-agent", Magic: "test home v1", Sessions: "s/*.jsonl"},
	}
	for _, k := range kinds {
		l, err := agentdir.Acquire(t.Context(), root, k, "abc")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(l.Dir(), "s"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(l.Dir(), "s", "one.jsonl"), nil, 0o600)
		if err := os.Symlink(dir, filepath.Join(l.Dir(), "tone")); err != nil {
			t.Fatal(err)
		}
		l.Release()
	}
	folders, err := c.DriverFolders(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range folders {
		got = append(got, f.Agent+" "+f.Kind+" "+strings.Repeat("s", f.Sessions))
	}
	if want := []string{"unknown-agent mount ", "unknown-home-agent home s"}; !slices.Equal(got, want) {
		t.Errorf("DriverFolders = %q, want %q", got, want)
	}
	if removed, err := c.GC(t.Context(), 0); err != nil || len(removed) != 0 {
		t.Errorf("GC while folders link to the skill removed %d trees (%v), want none", len(removed), err)
	}
	removed, err := c.CollectDriverFolders(t.Context(), -time.Hour)
	if err != nil || len(removed) != 2 {
		t.Fatalf("CollectDriverFolders = %d folders, %v; want 2", len(removed), err)
	}
	if removed, err := c.GC(t.Context(), 0); err != nil || len(removed) != 1 {
		t.Errorf("GC once no folder links to the skill removed %d trees (%v), want 1", len(removed), err)
	}
}

// TestNoDriverKnowledge checks that this package links no driver and no
// table of agents: the cache finds the drivers' folders, it is not told
// of them.
func TestNoDriverKnowledge(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/agentadaptor/agentadaptor/"
	refused := []string{"claude", "codex", "gemini", "qwen", "opencode", "cursor", "copilot", "internal/agents", "internal/launch"}
	for _, p := range strings.Fields(string(out)) {
		if slices.Contains(refused, strings.TrimPrefix(p, module)) {
			t.Errorf("package skill depends on %s", p)
		}
	}
}
