package codex_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/clitest"
	"github.com/agentadaptor/agentadaptor/internal/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// homes returns the managed homes under the rig's cache.
func (r *rig) homes(t *testing.T) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(filepath.Join(r.cache, "homes", "codex"))
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") {
			out = append(out, filepath.Join(r.cache, "homes", "codex", e.Name()))
		}
	}
	return out
}

// A run holds its home: a collection while it runs keeps the home and
// the tree it links to, however old; once the run is over, both go, and
// the collection counts the session that went with the home.
func TestRealRunHoldsItsHome(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesStall()))
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	ctx, cancel := context.WithCancel(clitest.RunCtx(t))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, "wait for it")
		done <- err
	}()
	for deadline := time.Now().Add(60 * time.Second); len(r.server.ResponseRequests()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("codex never asked the model")
		}
	}
	c := skill.NewCache(skill.WithSkillCacheRoot(r.cache))
	homes := r.homes(t)
	if len(homes) != 1 {
		t.Fatalf("homes %v while the run runs, want one", homes)
	}
	if removed, err := c.CollectDriverFolders(t.Context(), time.Nanosecond); err != nil || len(removed) != 0 {
		t.Errorf("CollectDriverFolders(1ns) during the run = %+v, %v; want nothing removed", removed, err)
	}
	if removed, err := c.GC(t.Context(), time.Nanosecond); err != nil || len(removed) != 0 {
		t.Errorf("GC(1ns) during the run = %+v, %v; want the linked tree kept", removed, err)
	}
	if folders, err := c.DriverFolders(t.Context()); err != nil || len(folders) != 1 || !folders[0].InUse || folders[0].Agent != "codex" || folders[0].Kind != "home" {
		t.Errorf("DriverFolders during the run = %+v, %v; want the home in use", folders, err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end 30s after cancellation")
	}
	removed, err := c.CollectDriverFolders(t.Context(), time.Nanosecond)
	if err != nil || len(removed) != 1 || removed[0].Dir != homes[0] || removed[0].Sessions != 1 || removed[0].Size == 0 {
		t.Fatalf("CollectDriverFolders(1ns) after the run = %+v, %v; want %s removed with its session", removed, err, homes[0])
	}
	if trees, err := c.GC(t.Context(), time.Nanosecond); err != nil || len(trees) != 1 || trees[0].Name != "review" {
		t.Errorf("GC(1ns) after the run = %+v, %v; want the review tree removed", trees, err)
	}
	if left := r.homes(t); len(left) != 0 {
		t.Errorf("homes left: %v", left)
	}
}

// Every folder from the cache root down to the managed home must be the
// user's own and writable by no one else, or the run fails before Codex
// starts, naming the folder.
func TestRealForeignHomeFoldersAreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ownership and modes are not checked on Windows (see the package doc)")
	}
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	refs := adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R")))
	if _, err := r.agent(t, r.config(), refs).Run(clitest.RunCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	homes := r.homes(t)
	if len(homes) != 1 {
		t.Fatalf("homes %v, want one", homes)
	}
	isRoot := os.Geteuid() == 0
	chown := func(p string) error { return os.Chown(p, 12345, 12345) }
	unchown := func(p string) error { return os.Chown(p, 0, 0) }
	chmod := func(mode fs.FileMode) func(string) error { return func(p string) error { return os.Chmod(p, mode) } }
	tests := []struct {
		name     string
		folder   string
		spoil    func(string) error
		restore  func(string) error
		root     bool
		mentions string
	}{
		{"homes of another user", filepath.Join(r.cache, "homes"), chown, unchown, true, "belongs to user 12345"},
		{"homes/codex of another user", filepath.Join(r.cache, "homes", "codex"), chown, unchown, true, "belongs to user 12345"},
		{"the home of another user", homes[0], chown, unchown, true, "belongs to user 12345"},
		{"homes writable by its group", filepath.Join(r.cache, "homes"), chmod(0o770), chmod(0o700), false, "may be written by its group"},
		{"homes/codex writable by all", filepath.Join(r.cache, "homes", "codex"), chmod(0o777), chmod(0o700), false, "may be written"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && !isRoot {
				t.Skip("giving a folder to another user needs root")
			}
			if err := tc.spoil(tc.folder); err != nil {
				t.Fatal(err)
			}
			defer tc.restore(tc.folder)
			before := len(r.server.Requests())
			_, err := r.agent(t, r.config(), refs).Run(clitest.RunCtx(t), "x")
			if err == nil || !strings.Contains(err.Error(), tc.folder) || !strings.Contains(err.Error(), tc.mentions) {
				t.Fatalf("run with %s = %v, want it refused naming %s and saying %q", tc.name, err, tc.folder, tc.mentions)
			}
			if n := len(r.server.Requests()); n != before {
				t.Errorf("the refused run reached the model (%d requests)", n-before)
			}
			if left := modeltest.Processes(r.marker); len(left) > 0 {
				t.Errorf("processes of the refused run: %v", left)
			}
		})
	}
}

// unsignedJWT returns a JWT of claims with no signature, which Codex
// reads without checking.
func unsignedJWT(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + ".c2ln"
}

func chatgptClaims(exp time.Time) map[string]any {
	return map[string]any{
		"exp":   exp.Unix(),
		"email": "user@example.com",
		"https://api.openai.com/auth": map[string]any{
			"chatgpt_plan_type": "plus", "chatgpt_account_id": "acct_test", "chatgpt_user_id": "user_test",
		},
	}
}

// names returns the names in dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Rule 6 of the managed home: a run with an API key only reads the
// user's auth.json; a ChatGPT login due for a refresh is saved through
// the link, which leaves auth.json.lock beside the user's file, and
// nothing else changes in the user's Codex home.
func TestRealUserCodexHomeWrites(t *testing.T) {
	t.Run("API key", func(t *testing.T) {
		r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
		if err := os.WriteFile(filepath.Join(r.userCodex, "auth.json"), []byte(`{"OPENAI_API_KEY":"sk-user"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		before := cachetest.Listing(t, r.userCodex)
		if _, err := r.agent(t, r.config()).Run(clitest.RunCtx(t), "x"); err != nil {
			t.Fatal(err)
		}
		if after := cachetest.Listing(t, r.userCodex); after != before {
			t.Errorf("the user's Codex home changed:\n%s\nwant\n%s", after, before)
		}
	})
	t.Run("ChatGPT login refreshed", func(t *testing.T) {
		fresh := unsignedJWT(chatgptClaims(time.Now().Add(time.Hour)))
		var mu sync.Mutex
		var refreshed []string
		tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, _ := io.ReadAll(req.Body)
			mu.Lock()
			refreshed = append(refreshed, string(body))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"id_token": fresh, "access_token": fresh, "refresh_token": "rt-NEW"})
		}))
		defer tokens.Close()
		r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
		config := fmt.Sprintf(`model_provider = "fake"
analytics.enabled = false

[features]
plugins = false
apps = false

[model_providers.fake]
name = "fake"
base_url = %q
requires_openai_auth = true
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, r.server.URL+"/v1")
		if err := os.WriteFile(filepath.Join(r.userCodex, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		stale := unsignedJWT(chatgptClaims(time.Now().Add(-24 * time.Hour)))
		auth, _ := json.Marshal(map[string]any{
			"auth_mode":      "chatgpt",
			"OPENAI_API_KEY": nil,
			"tokens":         map[string]any{"id_token": stale, "access_token": stale, "refresh_token": "rt-OLD", "account_id": "acct_test"},
			"last_refresh":   time.Now().Add(-30 * 24 * time.Hour).UTC().Format(time.RFC3339),
		})
		if err := os.WriteFile(filepath.Join(r.userCodex, "auth.json"), auth, 0o600); err != nil {
			t.Fatal(err)
		}
		c := r.config()
		c.Env = append(slices.DeleteFunc(slices.Clone(c.Env), func(kv string) bool { return strings.HasPrefix(kv, "OPENAI_API_KEY=") }),
			"CODEX_REFRESH_TOKEN_URL_OVERRIDE="+tokens.URL+"/oauth/token")
		if os.Getenv("OPENAI_API_KEY") != "" {
			t.Setenv("OPENAI_API_KEY", "")
			os.Unsetenv("OPENAI_API_KEY")
		}
		if _, err := r.agent(t, c).Run(clitest.RunCtx(t), "x"); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(refreshed) != 1 || !strings.Contains(refreshed[0], "rt-OLD") {
			t.Fatalf("token requests %q, want one refresh of rt-OLD", refreshed)
		}
		if got, want := names(t, r.userCodex), []string{"auth.json", "auth.json.lock", "config.toml"}; !slices.Equal(got, want) {
			t.Errorf("the user's Codex home holds %v, want %v", got, want)
		}
		if fi, err := os.Stat(filepath.Join(r.userCodex, "auth.json.lock")); err != nil || fi.Size() != 0 {
			t.Errorf("auth.json.lock: %v, %v; want an empty file", fi, err)
		}
		if saved, _ := os.ReadFile(filepath.Join(r.userCodex, "auth.json")); !strings.Contains(string(saved), "rt-NEW") {
			t.Errorf("the user's auth.json = %s, want the new tokens", saved)
		}
		if got, _ := os.ReadFile(filepath.Join(r.userCodex, "config.toml")); string(got) != config {
			t.Error("the user's config.toml changed")
		}
		homes := r.homes(t)
		if len(homes) != 1 {
			t.Fatalf("homes %v, want one", homes)
		}
		if target, err := os.Readlink(filepath.Join(homes[0], "auth.json")); err != nil || target != filepath.Join(r.userCodex, "auth.json") {
			t.Errorf("managed auth.json -> %q, %v; want the link kept", target, err)
		}
	})
}
