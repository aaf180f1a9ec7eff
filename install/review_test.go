package install

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
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

// TestUpdateLatestNeverMovesBack checks rule 14's Latest for a range
// that names a pre-release: the highest release is below what the range
// picks, so leaving the range for it would move the skill back; the
// skill stays where its range puts it.
func TestUpdateLatestNeverMovesBack(t *testing.T) {
	g := newFakeGitHub(t)
	pins := map[string]string{}
	for i, tag := range []string{"v1.0.0", "v2.0.0-rc.1", "v2.0.0-rc.2"} {
		pins[tag] = fmt.Sprintf("%040x", i+1)
		g.publish("refs/tags/"+tag, pins[tag], map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + tag + "\n"})
	}
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	src := "o/skills@^2.0.0-rc.1"
	if _, err := in.Add(ctx, Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		ups, _, err := in.Update(ctx, UpdateRequest{Latest: true, DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		if u := updateOf(t, ups, "alpha"); u.Pin != pins["v2.0.0-rc.2"] || u.Source != src || u.Version != "v2.0.0-rc.2" {
			t.Errorf("Update(Latest, DryRun %v) = %+v, want alpha kept at v2.0.0-rc.2 (%s) from %s", dry, u, pins["v2.0.0-rc.2"], src)
		}
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", LockName))
	if e := lock.Skills["alpha"]; e.Source != src || e.Pin != pins["v2.0.0-rc.2"] {
		t.Errorf("lock after Update(Latest) = %s at %s, want %s at %s", e.Source, e.Pin, src, pins["v2.0.0-rc.2"])
	}
}
