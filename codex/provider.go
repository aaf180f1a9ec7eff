package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/process"
)

// ProviderError reports, before Codex starts, a run that would not reach
// the model API its environment names: OPENAI_BASE_URL is set, but no
// model provider is configured. Codex 0.169.0 does not take its base URL
// from OPENAI_BASE_URL: it keeps trying OpenAI's own host (a WebSocket,
// then HTTPS), for minutes, before it fails. The fix is a provider in the
// user's config.toml, which [ProviderError.Fix] writes out.
//
// The check holds when OPENAI_BASE_URL is set in the agent's environment
// and none of the user's config.toml (outside comments), [Config.Overrides]
// and [Config.Args] sets model_provider, mentions openai_base_url or
// names a profile (which may set a provider). It is the same on every
// system.
type ProviderError struct {
	// BaseURL is the value of OPENAI_BASE_URL.
	BaseURL string
	// Config is the user's config.toml, where the provider belongs.
	Config string
}

// Error says what is wrong and what to write.
func (e *ProviderError) Error() string {
	return fmt.Sprintf("codex: OPENAI_BASE_URL is set to %s, but Codex does not use it: with no model provider configured it keeps trying OpenAI's own host; "+
		"name a provider in %s (or unset OPENAI_BASE_URL):\n\n%s", e.BaseURL, e.Config, e.Fix())
}

// Fix returns the lines of config.toml that send Codex's model calls to
// BaseURL with the key in OPENAI_API_KEY, over the Responses API. They go
// at the top of the file: model_provider is a top-level key.
func (e *ProviderError) Fix() string {
	return fmt.Sprintf(`model_provider = "custom"

[model_providers.custom]
name = "custom"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
`, e.BaseURL)
}

// checkProvider returns a *ProviderError when env sets OPENAI_BASE_URL
// and nothing configures a model provider (see [ProviderError]).
func (d *codexDriver) checkProvider(env []string, userHome string) error {
	baseURL := process.Getenv(env, "OPENAI_BASE_URL")
	if baseURL == "" {
		return nil
	}
	for _, arg := range append(append([]string(nil), d.c.Overrides...), d.c.Args...) {
		if namesProvider(arg) || strings.Contains(arg, "profile") {
			return nil
		}
	}
	path := filepath.Join(userHome, "config.toml")
	data, err := readConfig(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil // the managed home reports it
	}
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		if namesProvider(line) || strings.HasPrefix(strings.TrimSpace(line), "profile") {
			return nil
		}
	}
	return &ProviderError{BaseURL: baseURL, Config: path}
}

// providerKey matches a setting of the model provider (top level, in a
// profile or as an override) or of the base URL of OpenAI's.
var providerKey = regexp.MustCompile(`model_provider\s*=|openai_base_url`)

// namesProvider reports whether a line of configuration sets a model
// provider or the base URL of OpenAI's.
func namesProvider(s string) bool { return providerKey.MatchString(s) }
