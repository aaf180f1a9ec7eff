package install

import (
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

// TestURLSkillsAddedAtDifferentTimes checks rule 14 for a URL whose
// skills were added from two downloads: the validators of one skill's
// download say nothing of the content another skill was recorded with,
// so a 304 to them must not make that other skill current, and an
// update must move it.
func TestURLSkillsAddedAtDifferentTimes(t *testing.T) {
	f := newFixture(t)
	u := newURLServer(t)
	in := f.installer(t)
	ctx := t.Context()
	src := u.srv.URL + "/kit.tgz"
	u.set(testarchive.TarGzFiles(t, map[string]string{"kit/a/SKILL.md": skillMD("a"), "kit/b/SKILL.md": skillMD("b")}), `"v1"`, "")
	if _, err := in.Add(ctx, Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Skills: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	// b changes; a is added from the new download.
	u.set(testarchive.TarGzFiles(t, map[string]string{"kit/a/SKILL.md": skillMD("a"), "kit/b/SKILL.md": skillMD("b") + "v2\n"}), `"v2"`, "")
	if _, err := in.Add(ctx, Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Skills: []string{"a"}}); err != nil {
		t.Fatal(err)
	}

	rows, err := in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := states(rows); got["a"] != OutdatedCurrent || got["b"] != OutdatedChanged {
		t.Errorf("Outdated = %v, want a current and b changed", got)
	}

	ups, _, err := in.Update(ctx, UpdateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, up := range ups {
		if up.Skill == "b" && !up.Updated() {
			t.Errorf("Update left b at %s, want the new content", up.Digest)
		}
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "b", "SKILL.md")); got != skillMD("b")+"v2\n" {
		t.Errorf("b after Update = %q, want the new content", got)
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", LockName))
	if e := lock.Skills["b"]; e.ETag != `"v2"` {
		t.Errorf("b's ETag after Update = %q, want \"v2\"", e.ETag)
	}
}
