package codex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/launch"
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
// and none of [Config.Overrides] and [Config.Args] sets model_provider,
// mentions openai_base_url or names a profile, and the user's config.toml
// (outside comments) neither mentions openai_base_url nor sets
// model_provider or profile where Codex reads them: at the top level,
// above every table, or model_provider in a [profiles.NAME] table. A
// model_provider inside another table (typically below
// [model_providers.NAME], where a block appended to the file lands) has no
// effect; the error names its line. It is the same on every system.
type ProviderError struct {
	// BaseURL is the value of OPENAI_BASE_URL.
	BaseURL string
	// Config is the user's config.toml, where the provider belongs.
	Config string
	// Line is the line of Config that sets model_provider inside Table,
	// where Codex ignores it; 0 when no line sets it.
	Line int
	// Table is the table that holds Line, as its header names it:
	// "[model_providers.custom]".
	Table string
}

// Error says what is wrong and what to write.
func (e *ProviderError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("codex: OPENAI_BASE_URL is set to %s, but Codex does not use it, and model_provider on line %d of %s is inside the %s table, where Codex ignores it; "+
			"move it to the top of the file, above every table, as in:\n\n%s", e.BaseURL, e.Line, e.Config, e.Table, e.Fix())
	}
	return fmt.Sprintf("codex: OPENAI_BASE_URL is set to %s, but Codex does not use it: with no model provider configured it keeps trying OpenAI's own host; "+
		"name a provider in %s (or unset OPENAI_BASE_URL):\n\n%s", e.BaseURL, e.Config, e.Fix())
}

// Is reports whether target is driver.ErrProviderSetup, the error of
// every driver's provider check.
func (e *ProviderError) Is(target error) bool { return target == driver.ErrProviderSetup }

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
	pe := &ProviderError{BaseURL: baseURL, Config: path}
	if setsProvider(string(data), pe) {
		return nil
	}
	return pe
}

// checkProviderURL refuses, before the start, a loopback base URL of the
// model provider the user's config.toml chooses where nothing listens
// (launch.CheckURL): Codex would retry it, then fail. Overrides
// and Args that name a provider or a profile, or a file that names a
// profile, skip the check.
func (d *codexDriver) checkProviderURL(ctx context.Context, userHome string) error {
	for _, arg := range append(append([]string(nil), d.c.Overrides...), d.c.Args...) {
		if namesProvider(arg) || strings.Contains(arg, "profile") {
			return nil
		}
	}
	path := filepath.Join(userHome, "config.toml")
	data, err := readConfig(path)
	if err != nil {
		return nil // none, or the managed home reports it
	}
	url, where := providerURL(string(data), path)
	return launch.CheckURL(ctx, "codex", where, url)
}

// setsProvider reports whether the text of a config.toml sets a model
// provider where Codex reads it (see [ProviderError]); when it does not
// but sets model_provider in another table, it records the first such
// line in pe.
func setsProvider(config string, pe *ProviderError) bool {
	found := false
	tomlKeys(config, func(n int, table, key, _ string) bool {
		switch {
		case strings.Contains(key, "openai_base_url"),
			table == "" && (key == "model_provider" || key == "profile"),
			table == "" && strings.HasPrefix(key, "profiles.") && strings.HasSuffix(key, ".model_provider"),
			strings.HasPrefix(table, "profiles.") && key == "model_provider":
			found = true
			return false
		case key == "model_provider" && pe.Line == 0:
			pe.Line, pe.Table = n, "["+table+"]"
		}
		return true
	})
	return found
}

// tomlKeys calls f with each "key = value" line of the text of a
// config.toml: its number, its table ("" at the top level, as its header
// names it without brackets), its key and its value (quotes removed),
// until f returns false. It reads the file line by line, as far as the
// keys and table headers go: comments and multi-line strings are
// skipped, values are not parsed.
func tomlKeys(config string, f func(n int, table, key, value string) bool) {
	table, quote, n := "", "", 0
	for line := range strings.Lines(config) {
		n++
		if quote != "" { // inside a multi-line string
			if strings.Count(line, quote)%2 == 1 {
				quote = ""
			}
			continue
		}
		for _, q := range []string{`"""`, "'''"} {
			if strings.Count(line, q)%2 == 1 {
				quote = q
			}
		}
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			table = strings.TrimSpace(strings.Trim(line, "[] \t"))
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if !f(n, table, strings.TrimSpace(key), strings.Trim(strings.TrimSpace(value), `"'`)) {
			return
		}
	}
}

// providerURL returns the base URL of the model provider that the text
// of a config.toml chooses at its top level, and says where it is set;
// "" when the file chooses none, or names a profile, which may choose
// another.
func providerURL(config, path string) (url, where string) {
	provider, profile := "", false
	bases := map[string]string{}
	tomlKeys(config, func(_ int, table, key, value string) bool {
		switch {
		case table == "" && key == "model_provider":
			provider = value
		case table == "" && key == "profile":
			profile = true
		case strings.HasPrefix(table, "model_providers.") && key == "base_url":
			bases[strings.Trim(strings.TrimPrefix(table, "model_providers."), `"'`)] = value
		}
		return true
	})
	if profile || provider == "" || bases[provider] == "" {
		return "", ""
	}
	return bases[provider], fmt.Sprintf("base_url of [model_providers.%s] in %s", provider, path)
}

// namesProvider reports whether an override or argument sets a model
// provider (top level or in a profile) or the base URL of OpenAI's.
func namesProvider(s string) bool { return providerKey.MatchString(s) }

// providerKey matches a setting of the model provider or of the base URL
// of OpenAI's.
var providerKey = regexp.MustCompile(`model_provider\s*=|openai_base_url`)
