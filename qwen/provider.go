package qwen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// noAuthType is how Qwen Code 0.24.4 refuses a run when nothing selects
// how it reaches a model, in its result's error.
const noAuthType = "No auth type is selected"

// envAuth are the sets of variables from which Qwen Code 0.24.4 infers
// its auth type when no setting or --auth-type names one: every
// variable of one set must be set; "A|B" is either.
var envAuth = [][]string{
	{"QWEN_OAUTH"},
	{"OPENAI_API_KEY", "OPENAI_MODEL|QWEN_MODEL", "OPENAI_BASE_URL"},
	{"GEMINI_API_KEY", "GEMINI_MODEL"},
	{"GOOGLE_API_KEY", "GOOGLE_MODEL"},
	{"GOOGLE_CLOUD_PROJECT", "GOOGLE_MODEL"},
	{"ANTHROPIC_API_KEY", "ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL"},
}

// openAIVars are the variables Qwen Code needs to reach an
// OpenAI-compatible API.
var openAIVars = []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"}

// checkAuth refuses, before the start, a run Qwen Code would refuse with
// "No auth type is selected" although env sets some of the variables of
// an OpenAI-compatible API (openAIVars): none of the run's arguments is
// --auth-type, no set of variables of envAuth is complete in env, no
// settings file Qwen Code reads (the user's, the workspace's, the
// system's settings and defaults) mentions selectedType, and there is no
// .env file Qwen Code could take variables from (the workspace's or a
// folder's above it, the user's ~/.env or ~/.qwen/.env). A file that
// cannot be read passes: Qwen Code reports it.
func (d *qwenDriver) checkAuth(env []string, workspace string) error {
	for _, a := range d.c.Args {
		if strings.HasPrefix(a, "--auth-type") {
			return nil
		}
	}
	for _, set := range envAuth {
		if complete(env, set) {
			return nil
		}
	}
	if !slices.ContainsFunc(append(openAIVars, "QWEN_MODEL"), func(v string) bool { return process.Getenv(env, v) != "" }) {
		return nil // no sign of what the user meant: Qwen Code's refusal says it
	}
	home := homeDir(env)
	user := filepath.Join(qwenHome(env, workspace), "settings.json")
	settings := []string{user, filepath.Join(workspace, ".qwen", "settings.json"), systemSettingsPath(env, runtime.GOOS), systemDefaultsPath(env, runtime.GOOS)}
	for _, f := range settings {
		b, err := readfile.Small(f, maxSettings)
		if err != nil && !errors.Is(err, fs.ErrNotExist) || bytes.Contains(b, []byte("selectedType")) {
			return nil
		}
	}
	envFiles := []string{filepath.Join(home, ".env"), filepath.Join(home, ".qwen", ".env")}
	for dir := workspace; ; dir = filepath.Dir(dir) {
		envFiles = append(envFiles, filepath.Join(dir, ".env"), filepath.Join(dir, ".qwen", ".env"))
		if filepath.Dir(dir) == dir {
			break
		}
	}
	for _, f := range envFiles {
		if _, err := os.Stat(f); err == nil {
			return nil
		}
	}
	return fmt.Errorf("qwen: %w: Qwen Code would refuse the run (%q): %s", driver.ErrProviderSetup, noAuthType, authFix(env, user))
}

// authFix says what to set for Qwen Code to select an auth type: the
// variables of an OpenAI-compatible API that env lacks, or a setting of
// the user's settings file.
func authFix(env []string, settings string) string {
	var set, missing []string
	for _, v := range openAIVars {
		if process.Getenv(env, v) != "" || v == "OPENAI_MODEL" && process.Getenv(env, "QWEN_MODEL") != "" {
			set = append(set, v)
		} else {
			missing = append(missing, v)
		}
	}
	fix := "set " + strings.Join(missing, " and ")
	if len(set) > 0 {
		fix = strings.Join(set, " and ") + " set without " + strings.Join(missing, " and ") + ": Qwen Code takes an OpenAI-compatible API only when all three are set (--model does not count); " + fix
	} else {
		fix = "nothing selects how Qwen Code reaches a model; for an OpenAI-compatible API, " + fix
	}
	return fix + ", or choose an auth type with security.auth.selectedType in " + settings
}

// authRefused words Qwen Code's refusal for want of an auth type.
func authRefused(env []string, workspace string, err error) error {
	return fmt.Errorf("qwen: %w: %s: %w", driver.ErrProviderSetup, authFix(env, filepath.Join(qwenHome(env, workspace), "settings.json")), err)
}

// complete reports whether env sets every variable of set.
func complete(env []string, set []string) bool {
	for _, v := range set {
		ok := false
		for _, name := range strings.Split(v, "|") {
			ok = ok || process.Getenv(env, name) != ""
		}
		if !ok {
			return false
		}
	}
	return true
}
