package modeltest

import (
	"bytes"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// ClaudeCLI returns the path of the Claude Code CLI installed by
// .ci/install-agent-clis: $AGENTADAPTOR_CLIS/node_modules/.bin/claude, or
// .agent-clis/node_modules/.bin/claude at the top of the module (the
// nearest folder at or above the folder the test binary started in that
// holds go.mod, so a test that changed its working folder still finds it). When it is
// missing the test is skipped, or fails if AGENTADAPTOR_REQUIRE_CLIS=1.
func ClaudeCLI(t testing.TB) string {
	t.Helper()
	return cli(t, "claude")
}

// CodexCLI returns the path of the Codex CLI installed by
// .ci/install-agent-clis, found as [ClaudeCLI] finds Claude Code:
// $AGENTADAPTOR_CLIS/node_modules/.bin/codex, or
// .agent-clis/node_modules/.bin/codex at the top of the module. It is a
// Node.js script that starts the native binary as its child. When it is
// missing the test is skipped, or fails if AGENTADAPTOR_REQUIRE_CLIS=1.
func CodexCLI(t testing.TB) string {
	t.Helper()
	return cli(t, "codex")
}

func cli(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("AGENTADAPTOR_CLIS")
	if dir == "" {
		root, err := testroot.Module()
		if err != nil {
			missing(t, name, err.Error())
			return ""
		}
		dir = filepath.Join(root, ".agent-clis")
	}
	path := filepath.Join(dir, "node_modules", ".bin", name)
	fi, err := os.Stat(path)
	if err != nil {
		missing(t, name, err.Error())
		return ""
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		missing(t, name, path+" is not an executable file")
		return ""
	}
	return path
}

func missing(t testing.TB, name, why string) {
	t.Helper()
	testroot.Missing(t, name+" CLI", why, "run .ci/install-agent-clis")
}

// ClaudeEnv returns an environment for running the Claude Code CLI against
// s, hermetic and quiet. It holds only:
//   - PATH, from the test's environment;
//   - HOME, a fresh folder under t.TempDir(), returned as home so that a
//     test can put user skills in it or look at what the CLI wrote;
//   - TMPDIR, another fresh folder, since the CLI leaves files in it;
//   - ANTHROPIC_BASE_URL, s.URL, and ANTHROPIC_API_KEY, a dummy key;
//   - CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, which stops every call
//     but POST /v1/messages, and DISABLE_AUTOUPDATER, DISABLE_TELEMETRY
//     and DISABLE_ERROR_REPORTING, set to 1;
//   - CLAUDE_CODE_MAX_RETRIES=0, so that an [APIError] ends a run at once.
//
// Nothing else is passed on; in particular CLAUDE_CONFIG_DIR is not. Append
// to env to add or override a variable: with os/exec the last value wins.
func (s *Server) ClaudeEnv(t testing.TB) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"ANTHROPIC_BASE_URL=" + s.URL,
		"ANTHROPIC_API_KEY=sk-ant-modeltest",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=0",
	}, home
}

// Processes returns the pids of the living processes (zombies left out)
// whose environment holds the variable AGENTADAPTOR_TEST_RUN=marker: a
// test sets it for the CLI it runs, and every process the CLI starts
// inherits it, so a test can tell whether anything of its run is left.
// Linux only: elsewhere it finds none.
func Processes(marker string) []int {
	needle := []byte("AGENTADAPTOR_TEST_RUN=" + marker + "\x00")
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, needle) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
