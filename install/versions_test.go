package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// serveTags lists the stand-in's refs/tags/* refs of the repository as
// GitHub's tag listing does, page by page.
func (g *fakeGitHub) serveTags(w http.ResponseWriter, r *http.Request) {
	prefix := r.PathValue("owner") + "/" + r.PathValue("repo") + "@refs/tags/"
	g.mu.Lock()
	var names []string
	for k := range g.refs {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	type tag struct {
		Name   string `json:"name"`
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	out := []tag{}
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	for i := (max(page, 1) - 1) * per; i < min(max(page, 1)*per, len(names)); i++ {
		var t tag
		t.Name, t.Commit.SHA = names[i], g.refs[prefix+names[i]]
		out = append(out, t)
	}
	g.mu.Unlock()
	json.NewEncoder(w).Encode(out)
}

// rangeSource is one kind of published source with version tags: src
// names it with the range ^1.0, and publish makes a tag whose alpha
// skill's SKILL.md ends with body, returning the tag's pin.
type rangeSource struct {
	src     string
	publish func(t *testing.T, tag, body string) string
	// asked returns what the source was asked since the last call, for
	// the kinds that can tell ("" entries are not counted).
	asked func() []string
}

// TestVersionRange checks rule 13 for a source whose reference is a
// version range, on GitHub, git (file:// and smart HTTP) and OCI: Add
// picks the highest tag the range admits and records the source as typed
// with the pin; Sync reads at the pin, whatever tags come later; a
// second Add moves within the range, never past it; the policy sees the
// typed source as not pinned and the recorded one as pinned.
func TestVersionRange(t *testing.T) {
	kinds := map[string]func(t *testing.T) rangeSource{
		"github": func(t *testing.T) rangeSource {
			g := newFakeGitHub(t)
			n := 0
			return rangeSource{
				src: "o/skills@^1.0",
				publish: func(t *testing.T, tag, body string) string {
					n++
					commit := fmt.Sprintf("%040x", n)
					g.publish("refs/tags/"+tag, commit, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + body})
					return commit
				},
				asked: g.take,
			}
		},
		"git file": func(t *testing.T) rangeSource {
			repo := filepath.Join(t.TempDir(), "repo")
			return rangeSource{
				src:     "git+file://" + filepath.ToSlash(repo) + "#ref=^1.0&path=skills",
				publish: gitTagPublisher(repo),
			}
		},
		"git smart HTTP": func(t *testing.T) rangeSource {
			root := t.TempDir()
			repo := filepath.Join(root, "repo")
			srv := gitHTTPServer(t, root)
			return rangeSource{
				src:     "git+" + srv.URL + "/repo/.git#ref=^1.0",
				publish: gitTagPublisher(repo),
			}
		},
		"oci": func(t *testing.T) rangeSource {
			o := newOCIFixture(t)
			return rangeSource{
				src: "oci://" + o.Host + "/skills/alpha:^1.0",
				publish: func(t *testing.T, tag, body string) string {
					ref := o.push(t, "skills/alpha", tag, "alpha", body)
					return ref[strings.LastIndex(ref, "@")+1:]
				},
			}
		},
	}
	for name, kind := range kinds {
		t.Run(name, func(t *testing.T) {
			if strings.HasPrefix(name, "git") {
				if _, err := exec.LookPath("git"); err != nil {
					t.Skip("no git:", err)
				}
				t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
				t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			}
			rs := kind(t)
			pins := map[string]string{}
			for _, tag := range []string{"v1.0.0", "v1.1.0", "v2.0.0", "v1.2.0-rc.1"} {
				pins[tag] = rs.publish(t, tag, "version "+tag+"\n")
			}
			f := newFixture(t)
			in := f.remoteInstaller(t, cachetest.Root(t))
			ctx := t.Context()
			lockPath := filepath.Join(f.env.Project, ".agents", lockName)
			alpha := filepath.Join(f.env.Project, ".agents", "skills", "alpha", "SKILL.md")

			ps, err := in.Origin(rs.src)
			if err != nil || ps.Pinned {
				t.Errorf("Origin(%s) = %+v, %v; want a source that is not pinned", rs.src, ps, err)
			}

			changes, err := in.Add(ctx, AddRequest{Sources: []string{rs.src}, Agents: agentsOf(t, "claude-code")})
			if err != nil {
				t.Fatalf("Add(%s) = %v", rs.src, err)
			}
			if !slices.Contains(actions(changes), "alpha/:canonical:installed") {
				t.Errorf("Add(%s) = %v, want alpha installed", rs.src, actions(changes))
			}
			if got := readFile(t, alpha); !strings.HasSuffix(got, "version v1.1.0\n") {
				t.Errorf("Add(%s) installed %q, want v1.1.0's", rs.src, got)
			}
			lock, err := readLock(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			e := lock.Skills["alpha"]
			if e == nil || e.Source != rs.src || e.Pin != pins["v1.1.0"] {
				t.Fatalf("lock entry of alpha = %+v, want the source as typed %s and v1.1.0's pin %s", e, rs.src, pins["v1.1.0"])
			}
			if ps, err := in.policySource(e.Source, e.Pin, false); err != nil || !ps.Pinned {
				t.Errorf("policySource of the recorded source = %+v, %v; want it pinned by its pin", ps, err)
			}

			// A newer version in the range: sync (a cold cache, the folder
			// gone) still reads the pin.
			pins["v1.2.0"] = rs.publish(t, "v1.2.0", "version v1.2.0\n")
			if rs.asked != nil {
				rs.asked()
			}
			os.RemoveAll(filepath.Dir(alpha))
			cold := f.remoteInstaller(t, cachetest.Root(t))
			if _, err := cold.Sync(ctx, SyncRequest{}); err != nil {
				t.Fatalf("Sync = %v", err)
			}
			if got := readFile(t, alpha); !strings.HasSuffix(got, "version v1.1.0\n") {
				t.Errorf("Sync installed %q, want v1.1.0's, at the pin", got)
			}
			if rs.asked != nil {
				for _, p := range rs.asked() {
					if strings.HasSuffix(p, "/tags") || strings.Contains(p, "/commits/") {
						t.Errorf("Sync asked %s; want only the pinned content", p)
					}
				}
			}
			if lock, _ := readLock(lockPath); lock.Skills["alpha"].Pin != pins["v1.1.0"] || lock.Skills["alpha"].Source != rs.src {
				t.Errorf("Sync recorded %+v, want the pin kept", lock.Skills["alpha"])
			}

			// Add again moves within the range, not to v2.0.0.
			changes, err = in.Add(ctx, AddRequest{Sources: []string{rs.src}, Agents: agentsOf(t, "claude-code")})
			if err != nil {
				t.Fatalf("second Add = %v", err)
			}
			var moved Change
			for _, c := range changes {
				if c.Agent == "" && c.Skill == "alpha" {
					moved = c
				}
			}
			if moved.Action != ActionUpdated || moved.PreviousPin != pins["v1.1.0"] || moved.Pin != pins["v1.2.0"] {
				t.Errorf("second Add: alpha = %+v, want updated from v1.1.0 (%s) to v1.2.0 (%s)", moved, pins["v1.1.0"], pins["v1.2.0"])
			}
			if got := readFile(t, alpha); !strings.HasSuffix(got, "version v1.2.0\n") {
				t.Errorf("second Add installed %q, want v1.2.0's", got)
			}
			if lock, _ := readLock(lockPath); lock.Skills["alpha"].Pin != pins["v1.2.0"] || lock.Skills["alpha"].Source != rs.src {
				t.Errorf("second Add recorded %+v, want %s at %s", lock.Skills["alpha"], rs.src, pins["v1.2.0"])
			}
			if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
				t.Errorf("frozen Sync after the move = %v", err)
			}
		})
	}
}

// TestVersionRangeErrors checks that a range no tag satisfies, or one
// that is not a range, fails Add with ErrInvalidSource, naming the
// range, and installs nothing.
func TestVersionRangeErrors(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("refs/tags/v1.0.0", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	for src, want := range map[string]string{
		"o/skills@^2":           `"^2"`,
		"github:o/skills@^^2":   "version range",
		"github:o/skills@>=one": "version range",
		"o/skills@^1 || ^1.2-":  "version range",
	} {
		_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add(%s) = %v, want an error saying %q", src, err, want)
		}
		if !errors.Is(err, ErrInvalidSource) {
			t.Errorf("Add(%s) = %v, want ErrInvalidSource", src, err)
		}
	}
	assertNothingInstalled(t, f)
}

// gitTagPublisher returns a publish function of rangeSource for the
// repository at repo: each tag is a new commit of skills/alpha, annotated
// for every other tag.
func gitTagPublisher(repo string) func(t *testing.T, tag, body string) string {
	n := 0
	return func(t *testing.T, tag, body string) string {
		t.Helper()
		commit := gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + body})
		args := []string{"tag", tag}
		if n++; n%2 == 0 {
			args = []string{"tag", "-a", "-m", tag, tag}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git tag: %v\n%s", err, out)
		}
		return commit
	}
}

// gitHTTPServer serves the repositories under root over smart HTTP with
// git http-backend.
func gitHTTPServer(t *testing.T, root string) *httptest.Server {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git:", err)
	}
	srv := httptest.NewServer(&cgi.Handler{
		Path:   gitPath,
		Args:   []string{"http-backend"},
		Stderr: io.Discard,
		Env:    []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull},
	})
	t.Cleanup(srv.Close)
	return srv
}
