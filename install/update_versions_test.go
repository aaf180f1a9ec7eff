package install

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestUpdateVersionRange checks rule 14 for a source whose reference is
// a version range, on GitHub, git over file:// and OCI: Outdated reports
// the tag the range picks now; Update moves within the range and keeps
// the source; Latest leaves the range for the highest version, recording
// ^ of it, a dry run of it changing nothing.
func TestUpdateVersionRange(t *testing.T) {
	kinds := map[string]func(t *testing.T) (src string, publish func(t *testing.T, tag, body string) string){
		"github": func(t *testing.T) (string, func(t *testing.T, tag, body string) string) {
			g := newFakeGitHub(t)
			n := 0
			return "o/skills@^1.0", func(t *testing.T, tag, body string) string {
				n++
				commit := fmt.Sprintf("%040x", n)
				g.publish("refs/tags/"+tag, commit, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + body})
				return commit
			}
		},
		"git": func(t *testing.T) (string, func(t *testing.T, tag, body string) string) {
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git:", err)
			}
			t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			repo := filepath.Join(t.TempDir(), "repo")
			return "git+file://" + filepath.ToSlash(repo) + "#ref=^1.0&path=skills", gitTagPublisher(repo)
		},
		"oci": func(t *testing.T) (string, func(t *testing.T, tag, body string) string) {
			o := newOCIFixture(t)
			return "oci://" + o.Host + "/skills/alpha:^1.0", func(t *testing.T, tag, body string) string {
				ref := o.push(t, "skills/alpha", tag, "alpha", body)
				return ref[strings.LastIndex(ref, "@")+1:]
			}
		},
	}
	for name, kind := range kinds {
		t.Run(name, func(t *testing.T) {
			src, publish := kind(t)
			pins := map[string]string{}
			for _, tag := range []string{"v1.0.0", "v1.1.0", "v2.0.0"} {
				pins[tag] = publish(t, tag, "version "+tag+"\n")
			}
			f := newFixture(t)
			in := f.remoteInstaller(t, cachetest.Root(t))
			ctx := t.Context()
			if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Fatalf("Add(%s) = %v", src, err)
			}
			pins["v1.2.0"] = publish(t, "v1.2.0", "version v1.2.0\n")

			rows, err := in.Outdated(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].State != OutdatedChanged || rows[0].Version != "v1.2.0" || rows[0].Now != pins["v1.2.0"] || rows[0].Pin != pins["v1.1.0"] {
				t.Errorf("Outdated with v1.2.0 published = %+v, want changed, now v1.2.0 (%s)", rows, pins["v1.2.0"])
			}

			ups, _, err := in.Update(ctx, UpdateRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if u := updateOf(t, ups, "alpha"); u.Version != "v1.2.0" || u.Pin != pins["v1.2.0"] || u.Source != src || u.PreviousSource != "" {
				t.Errorf("Update within the range = %+v, want v1.2.0 (%s) from %s", u, pins["v1.2.0"], src)
			}
			lockPath := filepath.Join(f.env.Project, ".agents", lockName)
			if lock, _ := readLock(lockPath); lock.Skills["alpha"].Source != src || lock.Skills["alpha"].Pin != pins["v1.2.0"] {
				t.Errorf("lock after Update = %+v, want %s at %s", lock.Skills["alpha"], src, pins["v1.2.0"])
			}

			// Latest, dry: reported, nothing changed.
			before := lockBytes(t, f)
			ups, _, err = in.Update(ctx, UpdateRequest{Latest: true, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			u := updateOf(t, ups, "alpha")
			if u.Version != "v2.0.0" || u.Pin != pins["v2.0.0"] || u.PreviousSource != src || !strings.Contains(u.Source, "^2.0.0") || strings.Contains(u.Source, "^1.0") {
				t.Errorf("Update(Latest, DryRun) = %+v, want v2.0.0 and the source with ^2.0.0", u)
			}
			if !bytes.Equal(before, lockBytes(t, f)) {
				t.Error("a dry run with Latest changed the lock file")
			}

			ups, _, err = in.Update(ctx, UpdateRequest{Latest: true})
			if err != nil {
				t.Fatal(err)
			}
			newSrc := updateOf(t, ups, "alpha").Source
			lock, _ := readLock(lockPath)
			if e := lock.Skills["alpha"]; e.Source != newSrc || e.Pin != pins["v2.0.0"] {
				t.Errorf("lock after Update(Latest) = %+v, want %s at %s", e, newSrc, pins["v2.0.0"])
			}
			if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "alpha", "SKILL.md")); !strings.HasSuffix(got, "version v2.0.0\n") {
				t.Errorf("after Update(Latest) alpha = %q, want v2.0.0's", got)
			}
			rows, err = in.Outdated(ctx)
			if err != nil || len(rows) != 1 || rows[0].State != OutdatedCurrent || rows[0].Version != "v2.0.0" {
				t.Errorf("Outdated after Update(Latest) = %+v, %v, want current at v2.0.0", rows, err)
			}
			if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
				t.Errorf("frozen Sync after Update(Latest) = %v", err)
			}
		})
	}
}
