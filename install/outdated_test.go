package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// lockBytes returns the project's lock file as it is on disk.
func lockBytes(t *testing.T, f *fixture) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// states maps each skill Outdated reports to its state.
func states(rows []Outdated) map[string]OutdatedState {
	out := map[string]OutdatedState{}
	for _, r := range rows {
		out[r.Skill] = r.State
	}
	return out
}

// treeSnapshot is every file under dir with its bytes and mode, and
// every link with its target: what must not change.
func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, _ := d.Info()
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[rel] = info.Mode().String() + " " + string(b)
		}
		return nil
	})
	return out
}

// TestOutdatedGitHubOneLookupPerSource checks rule 14 for a GitHub
// source with two skills: one lookup of the reference, no download while
// the pin is the recorded one; once the branch moves, one lookup and one
// archive for both skills, the changed one reported changed and the
// other moved; and nothing is written.
func TestOutdatedGitHubOneLookupPerSource(t *testing.T) {
	g := newFakeGitHub(t)
	repo := map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  skillMD("beta"),
	}
	g.publish("HEAD", commitA, repo)
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	before := lockBytes(t, f)
	g.take()

	rows, err := in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]OutdatedState{"alpha": OutdatedCurrent, "beta": OutdatedCurrent}
	if got := states(rows); !maps.Equal(got, want) {
		t.Errorf("Outdated with the pin unmoved = %v, want %v", got, want)
	}
	if got := g.take(); !slices.Equal(got, []string{"/repos/o/skills/commits/HEAD"}) {
		t.Errorf("Outdated with the pin unmoved asked %q, want one lookup and no download", got)
	}
	for _, r := range rows {
		if r.Pin != commitA || r.Now != commitA {
			t.Errorf("Outdated(%s) pin %s now %s, want both %s", r.Skill, r.Pin, r.Now, commitA)
		}
	}

	moved := map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "new\n", "skills/beta/SKILL.md": skillMD("beta")}
	g.publish("HEAD", commitB, moved)
	rows, err = in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]OutdatedState{"alpha": OutdatedChanged, "beta": OutdatedMoved}
	if got := states(rows); !maps.Equal(got, want) {
		t.Errorf("Outdated after the branch moved = %v, want %v", got, want)
	}
	got := g.take()
	lookups, archives := 0, 0
	for _, p := range got {
		switch {
		case strings.Contains(p, "/commits/"):
			lookups++
		case strings.HasPrefix(p, "/o-skills/"): // the archive host (the API redirects there)
			archives++
		}
	}
	if lookups != 1 || archives != 1 {
		t.Errorf("Outdated after the branch moved asked %q: %d lookups and %d archive requests, want 1 lookup and the archive once for both skills", got, lookups, archives)
	}
	for _, r := range rows {
		if r.Now != commitB || r.Pin != commitA {
			t.Errorf("Outdated(%s) = pin %s now %s, want %s now %s", r.Skill, r.Pin, r.Now, commitA, commitB)
		}
		if !r.IsOutdated() {
			t.Errorf("Outdated(%s).IsOutdated() = false, want true", r.Skill)
		}
	}
	if after := lockBytes(t, f); !bytes.Equal(before, after) {
		t.Errorf("Outdated changed the lock file:\n%s\nwant\n%s", after, before)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "alpha", "SKILL.md")); got != skillMD("alpha") {
		t.Errorf("Outdated changed the installed alpha: %q", got)
	}
}

// sha256Hex is the SHA-256 of b in hex.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestOutdatedReportsUnreachableSourcesPerSkill checks that a source
// that cannot be read is reported on each of its skills, the others
// still checked, and that a kind of source this version does not know
// is reported as unknown.
func TestOutdatedReportsUnreachableSourcesPerSkill(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	local := f.writeSkill(t, "local", "local", "")
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills", local}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	g.setOffline(true)
	os.WriteFile(filepath.Join(local, "SKILL.md"), []byte(skillMD("local")+"edited\n"), 0o644)
	rows, err := in.Outdated(ctx)
	if err != nil {
		t.Fatalf("Outdated with GitHub offline = %v, want a report", err)
	}
	want := map[string]OutdatedState{"alpha": OutdatedUnavailable, "local": OutdatedChanged}
	if got := states(rows); !maps.Equal(got, want) {
		t.Errorf("Outdated with GitHub offline = %v, want %v", got, want)
	}
	for _, r := range rows {
		if r.Skill == "alpha" && !strings.Contains(r.Reason, "source unavailable") {
			t.Errorf("Outdated(alpha).Reason = %q, want why", r.Reason)
		}
	}

	// A lock file naming a kind of source this version does not know.
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	lock.Skills["local"].Source = "ftp://example.org/kit.tgz"
	if err := lock.write(lockPath); err != nil {
		t.Fatal(err)
	}
	rows, err = in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := states(rows)["local"]; got != OutdatedUnknown {
		t.Errorf("Outdated of an ftp:// source = %s, want %s", got, OutdatedUnknown)
	}

	// A source folder that is gone.
	lock.Skills["local"].Source = "../gone"
	lock.write(lockPath)
	rows, err = in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := states(rows)["local"]; got != OutdatedUnavailable {
		t.Errorf("Outdated of a folder that is gone = %s, want %s", got, OutdatedUnavailable)
	}
}

// urlServer serves one archive with an ETag and a Last-Modified,
// answering If-None-Match and If-Modified-Since with 304, and counts
// what it is asked.
type urlServer struct {
	srv *httptest.Server

	mu       sync.Mutex
	body     []byte
	etag     string // "" to send none
	modified string // "" to send none
	full     int    // 200 answers
	notMod   int    // 304 answers
	asked    []http.Header
}

func newURLServer(t *testing.T) *urlServer {
	u := &urlServer{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		defer u.mu.Unlock()
		u.asked = append(u.asked, r.Header.Clone())
		if (u.etag != "" && r.Header.Get("If-None-Match") == u.etag) ||
			(u.etag == "" && u.modified != "" && r.Header.Get("If-Modified-Since") == u.modified) {
			u.notMod++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		u.full++
		if u.etag != "" {
			w.Header().Set("ETag", u.etag)
		}
		if u.modified != "" {
			w.Header().Set("Last-Modified", u.modified)
		}
		w.Write(u.body)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *urlServer) set(body []byte, etag, modified string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.body, u.etag, u.modified = body, etag, modified
}

// counts returns the 200 and 304 answers since the last call.
func (u *urlServer) counts() (full, notModified int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	full, notModified = u.full, u.notMod
	u.full, u.notMod = 0, 0
	return full, notModified
}

// TestOutdatedURLAsksWhetherItChanged checks rule 14 for URL sources:
// the lock file records the ETag and Last-Modified of the download; a
// check sends them back and takes 304 as current without a download;
// new content is reported changed; and a URL pinned with #sha256= is
// never asked.
func TestOutdatedURLAsksWhetherItChanged(t *testing.T) {
	for _, tc := range []struct {
		name           string
		etag, modified string
	}{
		{"etag", `"v1"`, ""},
		{"last-modified", "", "Mon, 02 Jan 2006 15:04:05 GMT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			u := newURLServer(t)
			v1 := testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit")})
			u.set(v1, tc.etag, tc.modified)
			in := f.installer(t)
			ctx := t.Context()
			src := u.srv.URL + "/kit.tgz"
			if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Fatal(err)
			}
			lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
			if e := lock.Skills["kit"]; e.ETag != tc.etag || e.LastModified != tc.modified {
				t.Errorf("lock entry = etag %q last_modified %q, want %q %q", e.ETag, e.LastModified, tc.etag, tc.modified)
			}
			u.counts()

			rows, err := in.Outdated(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := states(rows)["kit"]; got != OutdatedCurrent {
				t.Errorf("Outdated of an unchanged URL = %s (%s), want current", got, rows[0].Reason)
			}
			if full, notMod := u.counts(); full != 0 || notMod != 1 {
				t.Errorf("Outdated of an unchanged URL: %d downloads and %d answers 304, want 0 and 1", full, notMod)
			}

			v2 := testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit") + "v2\n"})
			u.set(v2, strings.ReplaceAll(tc.etag, "v1", "v2"), strings.ReplaceAll(tc.modified, "2006", "2007"))
			rows, err = in.Outdated(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := states(rows)["kit"]; got != OutdatedChanged {
				t.Errorf("Outdated of a changed URL = %s (%s), want changed", got, rows[0].Reason)
			}
			if full, _ := u.counts(); full != 1 {
				t.Errorf("Outdated of a changed URL downloaded %d times, want 1", full)
			}
		})
	}

	t.Run("pinned", func(t *testing.T) {
		f := newFixture(t)
		u := newURLServer(t)
		body := testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit")})
		u.set(body, `"v1"`, "")
		in := f.installer(t)
		src := u.srv.URL + "/kit.tgz#sha256=" + sha256Hex(body)
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
		u.counts()
		u.set([]byte("other"), `"v2"`, "")
		rows, err := in.Outdated(t.Context())
		if err != nil || states(rows)["kit"] != OutdatedCurrent {
			t.Errorf("Outdated of a URL#sha256= = %+v, %v, want current", rows, err)
		}
		if full, notMod := u.counts(); full+notMod != 0 {
			t.Errorf("Outdated of a URL#sha256= asked the server %d times, want never", full+notMod)
		}
	})

	t.Run("hostile", func(t *testing.T) {
		// A server that now sends what is no archive, or more than the
		// cache's archive size (lowered to 64 KiB, so that the body
		// crossing it is small): the skill is unavailable, nothing
		// written.
		f := newFixture(t)
		u := newURLServer(t)
		u.set(testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit")}), `"v1"`, "")
		in := f.installer(t, WithCache(skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")), skill.WithMaxArchiveSize(64<<10))))
		src := u.srv.URL + "/kit.tgz"
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
		before := lockBytes(t, f)
		for _, body := range [][]byte{[]byte("not an archive"), bytes.Repeat([]byte("x"), int(in.cache.Limits().MaxArchiveSize)+1)} {
			u.set(body, `"v2"`, "")
			rows, err := in.Outdated(t.Context())
			if err != nil || states(rows)["kit"] != OutdatedUnavailable {
				t.Errorf("Outdated of a hostile URL = %+v, %v, want unavailable", rows, err)
			}
		}
		if !bytes.Equal(before, lockBytes(t, f)) {
			t.Error("Outdated changed the lock file")
		}
	})
}

// TestOutdatedGitBranch checks rule 14 for a git repository over
// file://: a commit on the branch that changes one skill reports it
// changed and the other moved.
func TestOutdatedGitBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "repo")
	c1 := gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta")})
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	c2 := gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "new\n"})
	rows, err := in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]OutdatedState{"alpha": OutdatedChanged, "beta": OutdatedMoved}
	if got := states(rows); !maps.Equal(got, want) {
		t.Errorf("Outdated of a git branch moved = %v, want %v", got, want)
	}
	for _, r := range rows {
		if r.Pin != c1 || r.Now != c2 {
			t.Errorf("Outdated(%s) = pin %s now %s, want %s now %s", r.Skill, r.Pin, r.Now, c1, c2)
		}
	}
}

// TestOutdatedOCITagMoved checks rule 14 for an OCI tag pushed again
// with other content.
func TestOutdatedOCITagMoved(t *testing.T) {
	o := newOCIFixture(t)
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	o.push(t, "team/review", "1", "review", "")
	src := "oci://" + o.Host + "/team/review:1"
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if rows, err := in.Outdated(ctx); err != nil || states(rows)["review"] != OutdatedCurrent {
		t.Errorf("Outdated of an unmoved tag = %+v, %v, want current", rows, err)
	}
	o.push(t, "team/review", "1", "review", "v2\n")
	rows, err := in.Outdated(ctx)
	if err != nil || states(rows)["review"] != OutdatedChanged {
		t.Errorf("Outdated of a moved tag = %+v, %v, want changed", rows, err)
	}
	if len(rows) == 1 && (rows[0].Now == rows[0].Pin || !strings.HasPrefix(rows[0].Now, "sha256:")) {
		t.Errorf("Outdated of a moved tag: now %s, pin %s, want a new manifest digest", rows[0].Now, rows[0].Pin)
	}
}

// TestOutdatedNeedsAReadableLock checks that a lock file that cannot be
// read fails the check.
func TestOutdatedNeedsAReadableLock(t *testing.T) {
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.env.Project, ".agents"), 0o755)
	os.WriteFile(filepath.Join(f.env.Project, ".agents", lockName), []byte("{not json"), 0o644)
	if _, err := f.installer(t).Outdated(t.Context()); !errors.Is(err, ErrInvalidLock) {
		t.Errorf("Outdated with a broken lock file = %v, want ErrInvalidLock", err)
	}
}

// TestOutdatedRefusedByPolicy checks that Outdated with a trust policy
// that no longer allows a source reports its skills refused without
// reading it, and still checks the others; Update refuses it, changing
// nothing.
func TestOutdatedRefusedByPolicy(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	f := newFixture(t)
	cache := cachetest.Root(t)
	in := f.remoteInstaller(t, cache)
	ctx := t.Context()
	local := f.writeSkill(t, "local", "local", "")
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills", local}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	g.take()
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"local:/**\"]\n")
	strict := trustInstaller(t, f, cache, trust.NewChecker(p), Trust{})
	rows, err := strict.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]OutdatedState{"alpha": OutdatedRefused, "local": OutdatedCurrent}
	if got := states(rows); !maps.Equal(got, want) {
		t.Errorf("Outdated with only local sources allowed = %v, want %v", got, want)
	}
	if got := g.take(); len(got) != 0 {
		t.Errorf("Outdated of a denied source asked GitHub %q, want nothing", got)
	}
	before := lockBytes(t, f)
	if _, _, err := strict.Update(ctx, UpdateRequest{}); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("Update of a denied source = %v, want trust.ErrRefused", err)
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("a refused Update changed the lock file")
	}
}

// TestURLValidatorsBounded downloads an archive of three skills from a
// server whose ETag and Last-Modified are a mebibyte each: they are not
// recorded (each skill's entry would carry them), so the lock file stays
// small, and Outdated compares by downloading instead.
func TestURLValidatorsBounded(t *testing.T) {
	f := newFixture(t)
	u := newURLServer(t)
	body := testarchive.TarGzFiles(t, map[string]string{"a/SKILL.md": skillMD("a"), "b/SKILL.md": skillMD("b"), "c/SKILL.md": skillMD("c")})
	u.set(body, `"`+strings.Repeat("e", 1<<20)+`"`, strings.Repeat("m", 1<<20))
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{u.srv.URL + "/kit.tgz"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	fi, err := os.Stat(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 16<<10 {
		t.Errorf("the lock file has %d bytes after a server sent a 1 MiB ETag and Last-Modified, want them left out", fi.Size())
	}
	lock, _ := readLock(lockPath)
	for name, e := range lock.Skills {
		if e.ETag != "" || e.LastModified != "" {
			t.Errorf("lock entry %s records an overlong ETag (%d bytes) or Last-Modified (%d bytes)", name, len(e.ETag), len(e.LastModified))
		}
	}
	u.counts()
	rows, err := in.Outdated(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := states(rows)["a"]; got != OutdatedCurrent {
		t.Errorf("Outdated = %s, want %s by comparing a download", got, OutdatedCurrent)
	}
	if full, _ := u.counts(); full != 1 {
		t.Errorf("Outdated downloaded %d times, want once for the source", full)
	}
}
