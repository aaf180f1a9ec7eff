package codex_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
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
