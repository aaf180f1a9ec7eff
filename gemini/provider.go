package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// exitAuth is Gemini CLI's exit status when it refuses its auth method
// ("Invalid auth method selected.", 0.61.0).
const exitAuth = 41

// authFix is the setting that makes Gemini CLI take GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL in a headless run.
const authFix = `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`

// maxSettings is the largest settings file the driver reads.
const maxSettings = 1 << 20

// checkAuth refuses, before the start, a run Gemini CLI would refuse
// with exit 41: GOOGLE_GEMINI_BASE_URL is set (which makes Gemini CLI
// 0.61.0 pick its "gateway" auth type, which a headless run rejects),
// neither GOOGLE_GENAI_USE_GCA nor GOOGLE_GENAI_USE_VERTEXAI is "true",
// and no settings file Gemini CLI reads (the user's, the workspace's, the
// system's and its system defaults) mentions selectedType or
// selectedAuthType. A file that cannot be read passes: Gemini CLI
// reports it.
func checkAuth(env []string, userHome, workspace string) error {
	if process.Getenv(env, "GOOGLE_GEMINI_BASE_URL") == "" ||
		process.Getenv(env, "GOOGLE_GENAI_USE_GCA") == "true" || process.Getenv(env, "GOOGLE_GENAI_USE_VERTEXAI") == "true" {
		return nil
	}
	user := filepath.Join(userHome, ".gemini", "settings.json")
	system := systemSettings(env)
	defaults := process.Getenv(env, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	for _, f := range []string{user, filepath.Join(workspace, ".gemini", "settings.json"), system, defaults} {
		b, err := readfile.Small(f, maxSettings)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if bytes.Contains(b, []byte("selectedType")) || bytes.Contains(b, []byte("selectedAuthType")) {
			return nil
		}
	}
	return fmt.Errorf("gemini: %w: GOOGLE_GEMINI_BASE_URL is set, and no settings choose an auth type, so Gemini CLI would refuse the run (\"Invalid auth method selected\", exit 41); "+
		"choose the API key (GEMINI_API_KEY) in %s:\n\n%s", driver.ErrProviderSetup, user, authFix)
}

// authRefused words Gemini CLI's refusal of its auth method, which it
// gives as "Invalid auth method selected." and exit 41 alone.
func authRefused(userHome string, err error) error {
	return fmt.Errorf("gemini: %w: Gemini CLI refused its auth method (exit 41); with GOOGLE_GEMINI_BASE_URL, choose the API key (GEMINI_API_KEY) in %s:\n\n%s\n\n%w",
		driver.ErrProviderSetup, filepath.Join(userHome, ".gemini", "settings.json"), authFix, err)
}

// systemSettings is Gemini CLI's system settings file:
// $GEMINI_CLI_SYSTEM_SETTINGS_PATH, else the system's own place.
func systemSettings(env []string) string {
	if p := process.Getenv(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	}
	return "/etc/gemini-cli/settings.json"
}
