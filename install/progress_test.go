package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// slowDelay is how long a slow stand-in pauses: longer than the second a
// download may take before it shows progress.
const slowDelay = 1300 * time.Millisecond

// slowBody sends its first read at once and pauses before the rest.
type slowBody struct {
	io.ReadCloser
	reads int
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.reads++; b.reads == 2 {
		time.Sleep(slowDelay)
	}
	return b.ReadCloser.Read(p[:min(len(p), 64)])
}

// slowTransport makes the bodies of responses from host slow.
type slowTransport struct{ host string }

func (s slowTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.URL.Host == s.host {
		resp.Body = &slowBody{ReadCloser: resp.Body}
	}
	return resp, err
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
// take longer than a second: each shows the progress line URL downloads
// show, for the source as typed, and ends it; a fast one shows nothing.
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
		in := New(f.env, WithCacheRoot(cachetest.Root(t)), WithLockDir(filepath.Join(f.env.Home, ".locks")),
			WithHTTPClient(&http.Client{Transport: slowTransport{host: archiveHost}}), WithProgress(&progress))
		if _, err := in.Add(t.Context(), Request{Sources: []string{"o/skills@v1"}, Agents: agentsOf(t, "codex")}); err != nil {
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
		in = New(f.env, WithCacheRoot(cachetest.Root(t)), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithProgress(&progress))
		if _, err := in.Add(t.Context(), Request{Sources: []string{"o/skills@v2"}, Agents: agentsOf(t, "codex")}); err != nil {
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
				time.Sleep(slowDelay)
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
		if _, err := oci.Push(t.Context(), dir, ref, oci.WithCacheRoot(cachetest.Root(t))); err != nil {
			t.Fatal(err)
		}
		slow.Store(true)
		var progress bytes.Buffer
		in := New(f.env, WithCacheRoot(cachetest.Root(t)), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithProgress(&progress))
		if _, err := in.Add(t.Context(), Request{Sources: []string{ref}, Agents: agentsOf(t, "codex")}); err != nil {
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
		// A git whose fetches are slow, first on PATH.
		bin := t.TempDir()
		script := "#!/bin/sh\nif [ \"$1\" = fetch ]; then sleep 1.3; fi\nexec " + real + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var progress bytes.Buffer
		in := New(f.env, WithCacheRoot(cachetest.Root(t)), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithProgress(&progress))
		src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
		if _, err := in.Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
		if got := progress.String(); !done(src).MatchString(got) || strings.HasSuffix(got, " 0.0 MiB, done\n") {
			t.Errorf("progress = %q, want lines for %s ending with done, counting the archive", got, src)
		}
	})
}
