package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckProvider checks the rule of ProviderError: OPENAI_BASE_URL
// with nothing that sets a model provider is refused, with the fix.
func TestCheckProvider(t *testing.T) {
	const url = "http://127.0.0.1:9/v1"
	tests := []struct {
		name   string
		env    []string
		config string // "" for no config.toml
		c      Config
		refuse bool
		// line and table are where a misplaced model_provider is, when
		// the refusal names one.
		line  int
		table string
	}{
		{name: "no OPENAI_BASE_URL", config: "model = \"m\"\n"},
		{name: "no config", env: []string{"OPENAI_BASE_URL=" + url}, refuse: true},
		{name: "config without provider", env: []string{"OPENAI_BASE_URL=" + url}, config: "model = \"m\"\n", refuse: true},
		{name: "a provider table not chosen", env: []string{"OPENAI_BASE_URL=" + url}, config: "[model_providers.x]\nbase_url = \"" + url + "\"\n", refuse: true},
		{name: "provider in a comment", env: []string{"OPENAI_BASE_URL=" + url}, config: "# model_provider = \"x\"\n", refuse: true},
		{name: "provider in a provider's table", env: []string{"OPENAI_BASE_URL=" + url}, config: "[model_providers.x]\nbase_url = \"" + url + "\"\nmodel_provider = \"x\"\n", refuse: true, line: 3, table: "[model_providers.x]"},
		{name: "provider in another table", env: []string{"OPENAI_BASE_URL=" + url}, config: "a = 1\n\n[features] # the features\nplugins = false\n  model_provider=\"x\"\n", refuse: true, line: 5, table: "[features]"},
		{name: "provider in a multi-line string", env: []string{"OPENAI_BASE_URL=" + url}, config: "instructions = \"\"\"\n[x]\n\"\"\"\nmodel = \"m\"\n", refuse: true},
		{name: "provider after a multi-line string", env: []string{"OPENAI_BASE_URL=" + url}, config: "instructions = \"\"\"\n[x]\n\"\"\"\nmodel_provider = \"x\"\n"},
		{name: "provider chosen", env: []string{"OPENAI_BASE_URL=" + url}, config: "model_provider = \"x\"\n[model_providers.x]\n"},
		{name: "provider of a profile", env: []string{"OPENAI_BASE_URL=" + url}, config: "[profiles.p]\nmodel_provider = \"x\"\n"},
		{name: "provider of a profile as a dotted key", env: []string{"OPENAI_BASE_URL=" + url}, config: "profiles.p.model_provider = \"x\"\n"},
		{name: "a profile", env: []string{"OPENAI_BASE_URL=" + url}, config: "profile = \"p\"\n"},
		{name: "openai_base_url", env: []string{"OPENAI_BASE_URL=" + url}, config: "openai_base_url = \"" + url + "\"\n"},
		{name: "override", env: []string{"OPENAI_BASE_URL=" + url}, c: Config{Overrides: []string{`model_provider="x"`}}},
		{name: "argument", env: []string{"OPENAI_BASE_URL=" + url}, c: Config{Args: []string{"-c", "model_provider=x"}}},
		{name: "profile argument", env: []string{"OPENAI_BASE_URL=" + url}, c: Config{Args: []string{"--profile", "p"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			d := Driver(tt.c).(*codexDriver)
			err := d.checkProvider(tt.env, home)
			var pe *ProviderError
			if !tt.refuse {
				if err != nil {
					t.Errorf("checkProvider = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &pe) || !errors.Is(err, driver.ErrProviderSetup) || pe.BaseURL != url || pe.Config != filepath.Join(home, "config.toml") {
				t.Fatalf("checkProvider = %v, want a *ProviderError for %s", err, url)
			}
			if pe.Line != tt.line || pe.Table != tt.table {
				t.Errorf("misplaced provider at line %d in %q, want %d in %q", pe.Line, pe.Table, tt.line, tt.table)
			}
			where := "name a provider in " + pe.Config
			if tt.line > 0 {
				where = fmt.Sprintf("model_provider on line %d of %s is inside the %s table, where Codex ignores it; move it to the top of the file", tt.line, pe.Config, tt.table)
			}
			for _, want := range []string{"OPENAI_BASE_URL is set to " + url, where, `model_provider = "custom"`, `base_url = "` + url + `"`, `wire_api = "responses"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want it to hold %q", err, want)
				}
			}
			// The fix, written as config.toml, passes the check.
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(pe.Fix()), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := d.checkProvider(tt.env, home); err != nil {
				t.Errorf("with the fix, checkProvider = %v", err)
			}
		})
	}
}

// TestProviderURL checks which base URL the check of the chosen
// provider's reads: the base_url of the provider the top level chooses,
// none when a profile may choose another.
func TestProviderURL(t *testing.T) {
	const url = "http://127.0.0.1:9/v1"
	tests := []struct {
		name, config, want string
	}{
		{"chosen", "model_provider = \"x\"\n\n[model_providers.x]\nbase_url = \"" + url + "\" # the stand-in\n", url},
		{"another chosen", "model_provider = \"y\"\n[model_providers.x]\nbase_url = \"" + url + "\"\n", ""},
		{"none chosen", "[model_providers.x]\nbase_url = \"" + url + "\"\n", ""},
		{"a profile", "model_provider = \"x\"\nprofile = \"p\"\n[model_providers.x]\nbase_url = \"" + url + "\"\n", ""},
		{"quoted table", "model_provider = \"x\"\n[model_providers.\"x\"]\nbase_url = '" + url + "'\n", url},
	}
	for _, tt := range tests {
		got, where := providerURL(tt.config, "/h/config.toml")
		if got != tt.want || (got != "" && where != "base_url of [model_providers.x] in /h/config.toml") {
			t.Errorf("%s: providerURL = %q, %q; want %q", tt.name, got, where, tt.want)
		}
	}
}
