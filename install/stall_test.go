package install

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// stallingServer serves h until the test ends; a handler that stalls
// waits on the returned channel or the request's end.
func stallingServer(t *testing.T, h func(stop <-chan struct{}) http.HandlerFunc) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(h(stop))
	t.Cleanup(func() {
		close(stop)
		srv.Close()
	})
	return srv
}

// stall answers nothing until the test or the request ends.
func stall(stop <-chan struct{}, r *http.Request) {
	select {
	case <-stop:
	case <-r.Context().Done():
	}
}

// halfThenStall writes the headers and the first half of what h
// answers, then stalls.
func halfThenStall(stop <-chan struct{}, h http.Handler, w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	body := rec.Body.Bytes()
	w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	stall(stop, r)
}

// TestPublishedSourcesTimeOut adds GitHub, git and OCI sources from
// servers that accept and never answer, or stop in the middle of the
// content: each add fails after about the download timeout with
// source.ErrStalled, as a URL download does (rule 10), not when the
// context ends.
func TestPublishedSourcesTimeOut(t *testing.T) {
	const timeout = time.Second
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	silent := stallingServer(t, func(stop <-chan struct{}) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { stall(stop, r) }
	})
	silentHost := strings.TrimPrefix(silent.URL, "http://")

	// A GitHub whose tarball stops half way.
	g := newFakeGitHub(t)
	g.publish("main", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	g.mu.Lock()
	g.halfArchive = true
	g.mu.Unlock()

	// A registry whose blobs stop half way.
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	var stallBlobs atomic.Bool
	regStop := make(chan struct{})
	regSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stallBlobs.Load() && r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
			halfThenStall(regStop, reg, w, r)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(regStop); regSrv.Close() })
	regHost := strings.TrimPrefix(regSrv.URL, "http://")
	f := newFixture(t)
	dir := f.writeSkill(t, "review", "review", "")
	if _, err := oci.Push(t.Context(), dir, "oci://"+regHost+"/skills/review:1", oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t))))); err != nil {
		t.Fatal(err)
	}
	stallBlobs.Store(true)

	tests := []struct {
		name, source string
		setup        func(t *testing.T)
	}{
		{"GitHub API that never answers", "o/skills", func(t *testing.T) { t.Setenv("GITHUB_API_URL", silent.URL) }},
		{"GitHub tarball that stops half way", "o/skills@main", nil},
		{"git server that never answers", "git+" + silent.URL + "/skills.git", func(t *testing.T) {
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git:", err)
			}
		}},
		{"registry that never answers", "oci://" + silentHost + "/skills/review:1", nil},
		{"registry whose blobs stop half way", "oci://" + regHost + "/skills/review:1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			f := newFixture(t)
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))),
				WithLockDir(t.TempDir()), WithDownloadTimeout(timeout))
			// Far beyond the timeout: only the watch can end the add in
			// time, and with source.ErrStalled.
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			start := time.Now()
			_, err := in.Add(ctx, AddRequest{Sources: []string{tt.source}, Agents: agentsOf(t, "codex")})
			took := time.Since(start)
			if !errors.Is(err, ErrSourceUnavailable) || !errors.Is(err, source.ErrStalled) {
				t.Fatalf("Add(%s) = %v after %v, want ErrSourceUnavailable and source.ErrStalled", tt.source, err, took)
			}
			if took > 8*timeout {
				t.Errorf("Add(%s) took %v, want about the timeout %v", tt.source, took, timeout)
			}
			t.Logf("after %v: %v", took, err)
		})
	}
}
