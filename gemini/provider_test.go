package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckAuth checks the rule of checkAuth: GOOGLE_GEMINI_BASE_URL
// with no settings file choosing an auth type is refused before the
// start, naming the user's settings and the setting to write.
func TestCheckAuth(t *testing.T) {
	const url = "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9"
	tests := []struct {
		name     string
		env      []string
		user, ws string // settings.json of the user's and of the workspace, "" for none
		system   string
		refuse   bool
	}{
		{name: "no base URL", env: []string{"GEMINI_API_KEY=x"}},
		{name: "no settings", env: []string{url}, refuse: true},
		{name: "settings without auth", env: []string{url}, user: `{"privacy":{"usageStatisticsEnabled":false}}`, refuse: true},
		{name: "user's auth", env: []string{url}, user: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`},
		{name: "workspace's auth", env: []string{url}, ws: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`},
		{name: "system's auth", env: []string{url}, system: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`},
		{name: "legacy auth", env: []string{url}, user: `{"selectedAuthType":"gemini-api-key"}`},
		{name: "Vertex AI", env: []string{url, "GOOGLE_GENAI_USE_VERTEXAI=true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws, sys := t.TempDir(), t.TempDir(), t.TempDir()
			write := func(path, data string) {
				if data == "" {
					return
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			user := filepath.Join(home, ".gemini", "settings.json")
			write(user, tt.user)
			write(filepath.Join(ws, ".gemini", "settings.json"), tt.ws)
			write(filepath.Join(sys, "settings.json"), tt.system)
			env := append(tt.env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(sys, "settings.json"))
			err := checkAuth(env, home, ws)
			if !tt.refuse {
				if err != nil {
					t.Errorf("checkAuth = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), "choose the API key (GEMINI_API_KEY) in "+user+":\n\n"+authFix) {
				t.Fatalf("checkAuth = %v, want it refused naming %s and the setting", err, user)
			}
			// The fix, written as the user's settings, passes the check.
			write(user, authFix)
			if err := checkAuth(env, home, ws); err != nil {
				t.Errorf("with the fix, checkAuth = %v", err)
			}
		})
	}
}
