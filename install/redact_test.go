package install

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRedactURL checks what the lock file records and messages show of a
// URL (rule 10): no password, no user information of an http(s) URL,
// and the user of an ssh URL.
func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:secret@example.com/kit.tgz", "https://example.com/kit.tgz"},
		{"https://ghp_TOKEN@example.com/kit.tgz", "https://example.com/kit.tgz"},
		{"git+https://ghp_TOKEN@git.example.com/skills.git#ref=main", "git+https://git.example.com/skills.git#ref=main"},
		{"git+http://ghp_TOKEN@127.0.0.1:8080/skills.git", "git+http://127.0.0.1:8080/skills.git"},
		{"git+ssh://git@github.com/o/skills.git#ref=v1&path=skills/a", "git+ssh://git@github.com/o/skills.git#ref=v1&path=skills/a"},
		{"git+ssh://git:secret@gitlab.example.com:2222/o/skills.git", "git+ssh://git@gitlab.example.com:2222/o/skills.git"},
		{"git+ssh://:secret@gitlab.example.com/o/skills.git", "git+ssh://gitlab.example.com/o/skills.git"},
		{"git+ssh://gitlab.example.com/o/skills.git", "git+ssh://gitlab.example.com/o/skills.git"},
		{"oci://ghcr.io/o/skill:1", "oci://ghcr.io/o/skill:1"},
		{"./skills/review", "./skills/review"},
	}
	for _, tt := range tests {
		if got := redactURL(tt.in); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestGitCredentialsNotShown adds git+http sources whose user is a token
// from servers that fail: neither the error, git's messages in it, nor
// the progress line shows the token (rule 10).
func TestGitCredentialsNotShown(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	const token = "ghp_SECRETTOKEN123"
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer refused.Close()
	silent := stallingServer(t, func(stop <-chan struct{}) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { stall(stop, r) }
	})
	for name, srv := range map[string]*httptest.Server{"a missing repository": missing, "a refused token": refused, "a stall": silent} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			var progress bytes.Buffer
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))),
				WithLockDir(t.TempDir()), WithDownloadTimeout(time.Second), WithProgress(&progress))
			src := "git+" + strings.Replace(srv.URL, "http://", "http://"+token+"@", 1) + "/skills.git#ref=main"
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")})
			if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("Add(%s) = %v, want an error naming %s without the token", src, err, srv.URL)
			}
			if _, err := in.Contents(t.Context(), FindRequest{Source: src}); err == nil || strings.Contains(err.Error(), token) {
				t.Errorf("Contents(%s) = %v, want an error without the token", src, err)
			}
			if strings.Contains(progress.String(), token) {
				t.Errorf("progress = %q, which shows the token", progress.String())
			}
			t.Logf("error: %v", err)
		})
	}
}
