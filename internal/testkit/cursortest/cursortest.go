// Package cursortest runs package cursor's tests against a stand-in for
// Cursor's CLI, which cannot be installed where the tests run, and finds
// the real one when a user asks for it.
//
// # The stand-in
//
// [Build] compiles the program in ./agent, named agent as Cursor's CLI
// is, into a fresh folder. Written from Cursor's documentation of its
// headless mode (cursor.com/docs/cli: parameters, output format, skills),
// it:
//
//  1. takes `-p --output-format stream-json [--model M] [--force]
//     [--workspace DIR] [--resume ID] [--] PROMPT` in either
//     "--name value" or "--name=value" form, and refuses an unknown
//     option (exit 1); --standin-touch=FILE, its own, creates FILE and
//     stands for any option a value read as an option would reach;
//  2. needs CURSOR_API_KEY, and asks the Chat Completions API at
//     $AGENTADAPTOR_CURSOR_STANDIN_API (a modeltest.ChatServer) for each
//     turn: its system message says "Permission mode: force." or
//     "Permission mode: default." (--force or not) and lists the skills
//     found, as "- NAME: DESCRIPTION (FOLDER)";
//  3. finds skills where Cursor's documentation says Cursor does:
//     .agents/skills, .cursor/skills, .claude/skills and .codex/skills of
//     the workspace, then ~/.agents/skills, ~/.cursor/skills,
//     ~/.claude/skills and ~/.codex/skills under $HOME, links followed,
//     the first of a name kept (an order the documentation does not
//     give), and lists their names in system/init's "skills" (a field
//     the documentation does not show);
//  4. writes system/init, user, assistant, tool_call started and
//     completed (a readToolCall of the skill's SKILL.md when the model
//     calls its read_skill tool) and a result line with no usage;
//  5. keeps each chat in $HOME/.cursor/chats/ID.json (where Cursor keeps
//     them is not documented) and refuses --resume of an unknown id
//     with exit 1 and nothing on stdout;
//  6. on a failing API writes the error on stderr and exits 1 with no
//     result line; with AGENTADAPTOR_CURSOR_STANDIN_NO_RESULT=N it exits
//     N after the answer without a result line;
//  7. on SIGINT stops the request and exits 130 with no result line.
//
// # The real CLI
//
// [RealCLI] returns Cursor's CLI from PATH when AGENTADAPTOR_CURSOR=1 and
// CURSOR_API_KEY are set, and skips the test otherwise, saying how to run
// it. Those tests talk to Cursor's service and cost what a run costs.
//
// The stand-in runs on Linux and macOS; on Windows SIGINT cannot be sent
// to it, so the tests that interrupt it are for Unix.
package cursortest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// Build compiles the stand-in into a fresh folder and returns that
// folder, which holds the program named agent (agent.exe on Windows).
func Build(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	name := "agent"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/agentadaptor/agentadaptor/internal/testkit/cursortest/agent")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the Cursor CLI stand-in: %v\n%s", err, out)
	}
	return dir
}

// Env returns an environment in which the stand-in in dir (from [Build])
// is the agent on PATH and talks to m: PATH, a HOME of its own (returned),
// TMPDIR, a dummy CURSOR_API_KEY and AGENTADAPTOR_CURSOR_STANDIN_API.
// The user's ~/.cursor/skills and ~/.cursor/chats exist, as after earlier
// runs of Cursor.
func Env(t testing.TB, dir string, m *modeltest.ChatServer) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	for _, d := range []string{"skills", "chats"} {
		if err := os.MkdirAll(filepath.Join(home, ".cursor", d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return []string{
		"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"CURSOR_API_KEY=key-cursortest",
		"AGENTADAPTOR_CURSOR_STANDIN_API=" + m.URL + "/v1",
	}, home
}

// RealCLI returns the path of Cursor's CLI (agent on PATH) when
// AGENTADAPTOR_CURSOR=1 and CURSOR_API_KEY are set; otherwise it skips
// the test, saying how to run it.
func RealCLI(t testing.TB) string {
	t.Helper()
	if os.Getenv("AGENTADAPTOR_CURSOR") != "1" || os.Getenv("CURSOR_API_KEY") == "" {
		t.Skip("the real Cursor CLI test runs with AGENTADAPTOR_CURSOR=1 and CURSOR_API_KEY set, and agent (curl https://cursor.com/install | bash) on PATH")
	}
	p, err := exec.LookPath("agent")
	if err != nil {
		t.Fatalf("AGENTADAPTOR_CURSOR=1 but Cursor's CLI is not on PATH: %v (install it with `curl https://cursor.com/install | bash`)", err)
	}
	return p
}
