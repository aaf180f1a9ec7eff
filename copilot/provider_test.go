package copilot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckProvider checks the rule of checkProvider: offline without a
// provider, or a provider without a model, is refused before the start.
func TestCheckProvider(t *testing.T) {
	const url = "COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:9/v1"
	tests := []struct {
		name   string
		env    []string
		c      Config
		config string // ~/.copilot/config.json, "" for none
		want   string // "" when the run may start
	}{
		{name: "logged in"},
		{name: "offline without a provider", env: []string{"COPILOT_OFFLINE=true"}, want: "COPILOT_OFFLINE is true, but COPILOT_PROVIDER_BASE_URL is not set"},
		{name: "provider without a model", env: []string{url}, want: "COPILOT_PROVIDER_BASE_URL is http://127.0.0.1:9/v1, but no model is named"},
		{name: "provider and COPILOT_MODEL", env: []string{url, "COPILOT_MODEL=m"}},
		{name: "provider and Model", env: []string{url}, c: Config{Model: "m"}},
		{name: "provider and --model", env: []string{url}, c: Config{Args: []string{"--model=m"}}},
		{name: "provider and a saved model", env: []string{url}, config: `{"model": "m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				os.MkdirAll(filepath.Join(home, ".copilot"), 0o755)
				if err := os.WriteFile(filepath.Join(home, ".copilot", "config.json"), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Driver(tt.c).(*copilotDriver).checkProvider(append([]string{"HOME=" + home}, tt.env...))
			if tt.want == "" {
				if err != nil {
					t.Errorf("checkProvider = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("checkProvider = %v, want it refused saying %q", err, tt.want)
			}
		})
	}
}
