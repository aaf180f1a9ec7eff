package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// fakeClock is a clock for progress reports that moves only when
// advance is called, so that a test decides how long a download takes.
// Its ticker hands the ticks advance makes to the report running, if any.
type fakeClock struct {
	started chan struct{} // receives a value when a ticker starts

	mu      sync.Mutex
	elapsed time.Duration
	ticks   chan time.Time // of the running ticker; nil when none runs
	stopped chan struct{}  // closed when that ticker stops
}

// fakeStart is the time a fakeClock starts at.
var fakeStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newFakeClock() *fakeClock { return &fakeClock{started: make(chan struct{}, 1)} }

func (c *fakeClock) clock() clock {
	return clock{
		now: func() time.Time {
			c.mu.Lock()
			defer c.mu.Unlock()
			return fakeStart.Add(c.elapsed)
		},
		ticker: func(time.Duration) (<-chan time.Time, func()) {
			c.mu.Lock()
			defer c.mu.Unlock()
			ticks, stopped := make(chan time.Time), make(chan struct{})
			c.ticks, c.stopped = ticks, stopped
			select {
			case c.started <- struct{}{}:
			default:
			}
			return ticks, func() {
				close(stopped)
				c.mu.Lock()
				defer c.mu.Unlock()
				if c.ticks == ticks {
					c.ticks = nil
				}
			}
		},
	}
}

// advance moves the clock on by d in steps of the report period, 200 ms,
// handing each tick to the running report, if any, and waiting until it
// has taken it.
func (c *fakeClock) advance(d time.Duration) {
	const step = 200 * time.Millisecond
	for ; d > 0; d -= step {
		c.mu.Lock()
		c.elapsed += step
		now, ticks, stopped := fakeStart.Add(c.elapsed), c.ticks, c.stopped
		c.mu.Unlock()
		if ticks != nil {
			select {
			case ticks <- now:
			case <-stopped:
			}
		}
	}
}

// slowDelay is how long a slow stand-in takes by the fake clock: longer
// than the second a download may take before it shows progress. A fast
// one takes exactly that second, which shows nothing.
const (
	slowDelay = 1200 * time.Millisecond
	fastDelay = time.Second
)

// slowBody sends its first read at once and moves the clock on by delay
// before the rest.
type slowBody struct {
	io.ReadCloser
	clock *fakeClock
	delay time.Duration
	reads int
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.reads++; b.reads == 2 {
		b.clock.advance(b.delay)
	}
	return b.ReadCloser.Read(p[:min(len(p), 64)])
}

// slowTransport makes the bodies of responses from host take delay by
// clock.
type slowTransport struct {
	host  string
	clock *fakeClock
	delay time.Duration
}

func (s slowTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.URL.Host == s.host {
		resp.Body = &slowBody{ReadCloser: resp.Body, clock: s.clock, delay: s.delay}
	}
	return resp, err
}

// withFakeClock returns in with its progress reports timed by c.
func withFakeClock(in *Installer, c *fakeClock) *Installer {
	in.clock = c.clock()
	return in
}

// noise returns n bytes of text that compresses little: hex of a
// SHA-256 chain, the same at every run.
func noise(n int) []byte {
	var b []byte
	sum := sha256.Sum256([]byte("noise"))
	for len(b) < n {
		b = hex.AppendEncode(b, sum[:])
		sum = sha256.Sum256(sum[:])
	}
	return b[:n]
}

// TestRemoteProgress installs from a GitHub, an OCI and a git stand-in that
// take longer than a second by a fake clock: each shows the progress line URL downloads
// show, for the source as typed, and ends it; one that takes the second shows nothing.
func TestRemoteProgress(t *testing.T) {
	done := func(source string) *regexp.Regexp {
		return regexp.MustCompile(`^(\rdownloading ` + regexp.QuoteMeta(source) + `: \d+\.\d MiB)+, done\n$`)
	}
	t.Run("github", func(t *testing.T) {
		g := newFakeGitHub(t)
		g.publish("v1", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + strings.Repeat("x", 4096)})
		f := newFixture(t)
		var progress bytes.Buffer
		archiveHost := strings.TrimPrefix(g.archive.URL, "http://")
		clk := newFakeClock()
		in := withFakeClock(New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(filepath.Join(f.env.Home, ".locks")),
			WithHTTPClient(&http.Client{Transport: slowTransport{host: archiveHost, clock: clk, delay: slowDelay}}), WithProgress(&progress)), clk)
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{"o/skills@v1"}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
		if got := progress.String(); !done("o/skills@v1").MatchString(got) {
			t.Errorf("progress = %q, want lines for o/skills@v1 ending with done", got)
		}
		if strings.Contains(progress.String(), g.token) {
			t.Errorf("progress shows the token: %q", progress.String())
		}
		// The same source, fast: nothing is shown.
		progress.Reset()
		g.publish("v2", commitB, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "v2\n"})
		clk = newFakeClock()
		in = withFakeClock(New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(filepath.Join(f.env.Home, ".locks")),
			WithHTTPClient(&http.Client{Transport: slowTransport{host: archiveHost, clock: clk, delay: fastDelay}}), WithProgress(&progress)), clk)
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{"o/skills@v2"}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
		if progress.Len() != 0 {
			t.Errorf("a fast download printed progress: %q", progress.String())
		}
	})
	t.Run("oci", func(t *testing.T) {
		t.Setenv("DOCKER_CONFIG", t.TempDir())
		reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
		var slow atomic.Bool
		clk := newFakeClock()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if slow.Load() && strings.Contains(r.URL.Path, "/blobs/") && r.Method == http.MethodGet {
				rec := httptest.NewRecorder()
				reg.ServeHTTP(rec, r)
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				body := rec.Body.Bytes()
				n := min(len(body), 16)
				w.Write(body[:n])
				w.(http.Flusher).Flush()
				clk.advance(slowDelay)
				w.Write(body[n:])
				return
			}
			reg.ServeHTTP(w, r)
		}))
		defer srv.Close()
		f := newFixture(t)
		dir := f.writeSkill(t, "review", "review", "")
		if err := os.WriteFile(filepath.Join(dir, "data.txt"), noise(300<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		ref := "oci://" + strings.TrimPrefix(srv.URL, "http://") + "/skills/review:1"
		if _, err := oci.Push(t.Context(), dir, ref, oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t))))); err != nil {
			t.Fatal(err)
		}
		slow.Store(true)
		var progress bytes.Buffer
		in := withFakeClock(New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithProgress(&progress)), clk)
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
		if got := progress.String(); !done(ref).MatchString(got) || strings.HasSuffix(got, " 0.0 MiB, done\n") {
			t.Errorf("progress = %q, want lines for %s ending with done, counting the layer", got, ref)
		}
	})
	t.Run("git", func(t *testing.T) {
		real, err := exec.LookPath("git")
		if err != nil {
			t.Skip("no git:", err)
		}
		if runtime.GOOS == "windows" {
			t.Skip("the slow git stand-in is a shell script")
		}
		f := newFixture(t)
		repo := filepath.Join(t.TempDir(), "repo")
		gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/alpha/data.txt": string(noise(300 << 10))})
		// A git, first on PATH, whose fetches wait until the gate file
		// exists; the test makes it once the download has taken
		// slowDelay by the fake clock.
		bin := t.TempDir()
		gate := filepath.Join(t.TempDir(), "gate")
		script := "#!/bin/sh\nif [ \"$1\" = fetch ]; then while [ ! -e '" + gate + "' ]; do sleep 0.01; done; fi\nexec " + real + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var progress bytes.Buffer
		clk := newFakeClock()
		in := withFakeClock(New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithProgress(&progress)), clk)
		src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
		opened := make(chan error, 1)
		go func() {
			<-clk.started
			clk.advance(slowDelay)
			opened <- os.WriteFile(gate, nil, 0o644)
		}()
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
		if err := <-opened; err != nil {
			t.Fatal(err)
		}
		if got := progress.String(); !done(src).MatchString(got) || strings.HasSuffix(got, " 0.0 MiB, done\n") {
			t.Errorf("progress = %q, want lines for %s ending with done, counting the archive", got, src)
		}
	})
}

// TestLocalProgress checks the report of an Add's work on a folder
// source that takes longer than a second by a fake clock: a line counting
// the skills checked, then the skills copied and their bytes, then those
// put in place (when it has ticks to print them), each
// rewritten in place and erasing what a longer line left, cleared when
// the Add ends; an Add that takes the second shows nothing.
func TestLocalProgress(t *testing.T) {
	const skills = 20
	f := newFixture(t)
	for i := range skills {
		dir := f.writeSkill(t, fmt.Sprintf("s%02d", i), fmt.Sprintf("s%02d", i), "")
		if err := os.WriteFile(filepath.Join(dir, "data.txt"), noise(64<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, slow := range []bool{true, false} {
		t.Run(fmt.Sprintf("slow=%v", slow), func(t *testing.T) {
			f := *f
			f.env.Project = t.TempDir()
			clk := newFakeClock()
			progress := &shownWriter{wrote: make(chan struct{}, 100)}
			// The report prints after it takes a tick: each phase waits
			// for a line before it goes on.
			advance := func() {
				clk.advance(slowDelay)
				select {
				case <-progress.wrote:
				case <-time.After(time.Minute):
					t.Error("no progress line a minute after the clock moved")
				}
			}
			checked := 0
			check := func(dir string) (string, []string, error) {
				if checked++; slow && checked == skills/2 {
					advance()
				}
				return nameChecker(dir)
			}
			in := withFakeClock(f.installer(t, withChecker(check), WithProgress(progress)), clk)
			var once sync.Once
			in.staging = func(name string) {
				if slow && strings.HasSuffix(filepath.ToSlash(name), "data.txt") {
					once.Do(advance)
				}
			}
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{f.sources}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Fatal(err)
			}
			got := progress.String()
			if !slow {
				if got != "" {
					t.Errorf("a fast add printed progress: %q", got)
				}
				return
			}
			want := regexp.MustCompile(`^(\rchecking: \d+ of 20 skills\x1b\[K)+(\rcopying: \d+ of 20 skills, \d+\.\d MiB\x1b\[K)+(\rinstalling: \d+ of 20 skills\x1b\[K)*\r\x1b\[K$`)
			if !want.MatchString(got) {
				t.Errorf("progress = %q, want lines checking the skills, then installing them, cleared at the end", got)
			}
			if !strings.HasPrefix(got, fmt.Sprintf("\rchecking: %d of 20 skills", skills/2-1)) {
				t.Errorf("progress = %q, want %d of 20 skills checked when the clock moved", got, skills/2-1)
			}
		})
	}
}

// shownWriter is a progress report's writer that a test reads: it keeps
// what is written and signals each write on wrote.
type shownWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *shownWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return w.buf.Write(b)
}

func (w *shownWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
