package qwen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckAuth checks the rule of checkAuth: with nothing that selects
// Qwen Code's auth type, the run is refused before the start, naming
// what to set.
func TestCheckAuth(t *testing.T) {
	openAI := []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=http://127.0.0.1:9/v1"}
	tests := []struct {
		name     string
		env      []string
		args     []string
		settings string // the user's settings.json, "" for none
		envFile  bool   // a .env in the workspace
		want     string // "" when the run may start
	}{
		{name: "OpenAI complete", env: append(openAI, "OPENAI_MODEL=m")},
		{name: "QWEN_MODEL for the model", env: append(openAI, "QWEN_MODEL=m")},
		{name: "no model", env: openAI, want: "OPENAI_API_KEY and OPENAI_BASE_URL set without OPENAI_MODEL: Qwen Code takes an OpenAI-compatible API only when all three are set (--model does not count); set OPENAI_MODEL, or choose an auth type"},
		{name: "nothing", want: ""}, // left to Qwen Code, whose refusal is worded (TestAuthRefused)
		{name: "a key alone", env: []string{"OPENAI_API_KEY=k"}, want: "OPENAI_API_KEY set without OPENAI_BASE_URL and OPENAI_MODEL"},
		{name: "OAuth", env: []string{"QWEN_OAUTH=1"}},
		{name: "Anthropic", env: []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_MODEL=m", "ANTHROPIC_BASE_URL=u"}},
		{name: "auth type argument", env: openAI, args: []string{"--auth-type=openai"}},
		{name: "auth type setting", env: openAI, settings: `{"security":{"auth":{"selectedType":"openai"}}}`},
		{name: "a .env file", env: openAI, envFile: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws, sys := t.TempDir(), t.TempDir(), t.TempDir()
			settings := filepath.Join(home, ".qwen", "settings.json")
			if tt.settings != "" {
				os.MkdirAll(filepath.Dir(settings), 0o755)
				if err := os.WriteFile(settings, []byte(tt.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.envFile {
				if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("OPENAI_MODEL=m\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := append([]string{"HOME=" + home, "QWEN_CODE_SYSTEM_SETTINGS_PATH=" + filepath.Join(sys, "settings.json")}, tt.env...)
			d := Driver(Config{Args: tt.args}).(*qwenDriver)
			err := d.checkAuth(env, ws)
			if tt.want == "" {
				if err != nil {
					t.Errorf("checkAuth = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), settings) {
				t.Errorf("checkAuth = %v, want it refused saying %q and naming %s", err, tt.want, settings)
			}
		})
	}
}

// TestAuthRefused checks the wording of Qwen Code's own refusal for want
// of an auth type.
func TestAuthRefused(t *testing.T) {
	refusal := &driver.AgentError{Message: "No auth type is selected. Please configure an auth type."}
	err := authRefused([]string{"HOME=/h"}, "/w", refusal)
	want := "nothing selects how Qwen Code reaches a model; for an OpenAI-compatible API, set OPENAI_API_KEY and OPENAI_BASE_URL and OPENAI_MODEL, or choose an auth type with security.auth.selectedType in /h/.qwen/settings.json"
	if !errors.Is(err, driver.ErrProviderSetup) || !errors.Is(err, driver.ErrAgentFailed) || !strings.Contains(err.Error(), want) {
		t.Errorf("authRefused = %v, want it to say %q", err, want)
	}
}
