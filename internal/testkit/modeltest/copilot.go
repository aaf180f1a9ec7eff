package modeltest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// CopilotCLI returns the path of GitHub Copilot CLI's native program
// installed by .ci/install-agent-clis: the platform package beside the
// npm launcher, $AGENTADAPTOR_CLIS/node_modules/@github/copilot-linux-x64/copilot
// on Linux on x86-64 (or under .agent-clis at the top of the module). The
// launcher itself is a Node.js script that a signal does not stop: a test
// runs the native program. When it is missing the test is skipped, or
// fails if AGENTADAPTOR_REQUIRE_CLIS=1.
func CopilotCLI(t testing.TB) string {
	t.Helper()
	launcher := cli(t, "copilot")
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	goos := map[string]string{"windows": "win32"}[runtime.GOOS]
	if goos == "" {
		goos = runtime.GOOS
	}
	name := "copilot"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	path := filepath.Join(filepath.Dir(filepath.Dir(launcher)), "@github", "copilot-"+goos+"-"+arch, name)
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		missing(t, "copilot", path+" is not the native program")
		return ""
	}
	return path
}

// CopilotEnv returns an environment for GitHub Copilot CLI that talks to
// s only (COPILOT_OFFLINE=true: no GitHub login, no lookup of any host)
// and keeps its files in a fresh HOME: PATH, HOME, TMPDIR,
// COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL (s.URL/v1),
// COPILOT_PROVIDER_API_KEY (a dummy key), COPILOT_MODEL
// ("copilot-modeltest") and XDG_CACHE_HOME, the user's cache folder, where
// the CLI unpacks its runtime (235 MB) once per version instead of once per
// HOME. Append to env to add or override a variable: with os/exec the last
// value wins.
func (s *ChatServer) CopilotEnv(t testing.TB) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = t.TempDir()
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"XDG_CACHE_HOME=" + cache,
		"COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_BASE_URL=" + s.URL + "/v1",
		"COPILOT_PROVIDER_API_KEY=sk-modeltest",
		"COPILOT_MODEL=copilot-modeltest",
	}, home
}
