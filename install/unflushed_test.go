package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestVerdictCutShortNotUsed checks the argument for writing a verdict
// unflushed (rememberVerdict): what a crash can leave of it, the file
// cut short at any length, is never used, and the whole file is.
func TestVerdictCutShortNotUsed(t *testing.T) {
	f := newFixture(t)
	root := t.TempDir()
	in := trustInstaller(t, f, root, nil, Trust{})
	st := &sourceTrust{in: in}
	st.ps.Kind, st.ps.Location = "git", "/srv/acme/tools"
	const pin, digest = "0123456789abcdef0123456789abcdef01234567", "ab12"
	st.verifiedPin, st.commitSigner = pin, "a@example.org"
	in.rememberVerdict(&candidate{pin: pin, trust: st}, digest)
	file := filepath.Join(root, pinsDir, verdictKey(st.verdictSource(), pin, digest, ""))
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(whole) {
		if err := os.WriteFile(file, whole[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if v, ok := in.recalledVerdict(st, pin, digest, ""); ok {
			t.Fatalf("a verdict cut to %d of its %d bytes is used: %+v", n, len(whole), v)
		}
	}
	if err := os.WriteFile(file, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := in.recalledVerdict(st, pin, digest, ""); !ok {
		t.Errorf("the whole verdict is not used")
	}
}

// TestSourceMemoCutShortNotUsed checks the argument for writing a source
// memo unflushed (rememberSources): the memo an Add wrote, cut short at
// any length, is never used, and the whole memo is.
func TestSourceMemoCutShortNotUsed(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  skillMD("beta"),
	})
	f := newFixture(t)
	root := cachetest.Root(t)
	in := f.remoteInstaller(t, root)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	memos := sourceMemos(t, root)
	if len(memos) != 1 {
		t.Fatalf("Add left %d source memos, want 1", len(memos))
	}
	whole, err := os.ReadFile(memos[0])
	if err != nil {
		t.Fatal(err)
	}
	var m sourceMemo
	if err := json.Unmarshal(whole, &m); err != nil {
		t.Fatal(err)
	}
	for n := range len(whole) {
		if err := os.WriteFile(memos[0], whole[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := in.recalledSource(ctx, m.Source, m.Pin); ok {
			t.Fatalf("a memo cut to %d of its %d bytes is used: %d skills", n, len(whole), len(got))
		}
	}
	if err := os.WriteFile(memos[0], whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := in.recalledSource(ctx, m.Source, m.Pin); !ok || len(got) != 2 {
		t.Errorf("the whole memo gives %d skills, %v; want 2, true", len(got), ok)
	}
}
