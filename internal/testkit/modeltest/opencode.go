package modeltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// OpenCodeCLI returns the path of OpenCode installed by
// .ci/install-agent-clis, found as [ClaudeCLI] finds Claude Code. OpenCode
// needs ripgrep (rg) on PATH for its skill tool offline. When either is
// missing the test is skipped, saying how to install it, or fails if
// AGENTADAPTOR_REQUIRE_CLIS=1.
func OpenCodeCLI(t testing.TB) string {
	t.Helper()
	path := cli(t, "opencode")
	if _, err := exec.LookPath("rg"); err != nil {
		testroot.Missing(t, "ripgrep (rg), for OpenCode,", "not on PATH",
			"install Debian's ripgrep package, or put the folder .ci/install-ripgrep prints first on PATH")
	}
	return path
}

// OpenCodeModel is the model OpenCode runs in [ChatServer.OpenCodeEnv].
const OpenCodeModel = "modeltest/modeltest-model"

// OpenCodeEnv returns an environment for OpenCode 1.18.33 that talks to s
// only and keeps its files in a fresh HOME: PATH, HOME, TMPDIR, the
// XDG_* folders under HOME, a provider "modeltest" in the user's
// config (~/.config/opencode/opencode.json) whose model
// [OpenCodeModel] is s's Chat Completions API, OPENCODE_DISABLE_MODELS_FETCH
// and OPENCODE_DISABLE_AUTOUPDATE (no lookup of models.opencode.ai), and
// the user's config folder seeded with node_modules/ and a
// package-lock.json, so that OpenCode runs no npm install into it.
func (s *ChatServer) OpenCodeEnv(t testing.TB) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	config := filepath.Join(home, ".config", "opencode")
	if err := os.MkdirAll(filepath.Join(config, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"package-lock.json": `{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}}`,
		"opencode.json": `{"provider":{"modeltest":{"npm":"@ai-sdk/openai-compatible","name":"modeltest",` +
			`"options":{"baseURL":"` + s.URL + `/v1","apiKey":"sk-modeltest"},` +
			`"models":{"modeltest-model":{"name":"modeltest","tool_call":true}}}},` +
			`"model":"` + OpenCodeModel + `","small_model":"` + OpenCodeModel + `","autoupdate":false,"share":"disabled"}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(config, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
	}, home
}
