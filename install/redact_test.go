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
