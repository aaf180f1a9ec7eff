package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// allowBash lets Claude Code run its Bash tool without asking, through the
// user settings of the rig's home.
func allowBash(t *testing.T, r *runRig) {
	t.Helper()
	dir := filepath.Join(r.home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"permissions":{"allow":["Bash"]}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandLines returns the pids of the living processes (zombies left out)
// whose command line has the argument arg, and kills them when the test
// ends.
func commandLines(t *testing.T, arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !slices.Contains(strings.Split(string(cmd), "\x00"), arg) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		var pid int
		fmt.Sscan(e.Name(), &pid)
		pids = append(pids, pid)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	return pids
}

// describe returns the command lines of pids, for a failure message.
func describe(pids []int) string {
	var b strings.Builder
	for _, p := range pids {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		fmt.Fprintf(&b, "\n  %d %q", p, cmd)
	}
	return b.String()
}

// TestRunAgentKilled kills `agentskills run` with SIGKILL while Claude Code
// waits for the model's first answer, which would have it run a Bash
// command and ask the model again: Claude Code dies with agentskills,
// never runs the command, and the model hears no more from it.
func TestRunAgentKilled(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	mark := filepath.Join(t.TempDir(), "bash-ran")
	r := newRunRig(t, func(*modeltest.Request) modeltest.Reply {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n > 1 {
			return modeltest.Text("done")
		}
		<-release
		return modeltest.ToolUse("Bash", map[string]any{"command": "touch " + mark, "description": "mark"})
	})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server closes
	allowBash(t, r)
	bin := buildAgentskills(t)

	cmd := exec.Command(bin, "run", "-a", "claude-code", "--", "go")
	cmd.Env, cmd.Dir = r.env, r.workspace
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(60 * time.Second); len(r.server.MessageRequests()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent never asked the model; stderr:\n%s", stderr.String())
		}
	}
	agent := slices.DeleteFunc(modeltest.Processes(r.marker), func(p int) bool { return p == cmd.Process.Pid })
	if len(agent) == 0 {
		t.Fatal("test setup: the agent's process is not found")
	}
	t.Cleanup(func() {
		for _, p := range agent {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	cmd.Process.Kill()
	cmd.Wait()
	// Now the model answers, for an agent still there to hear it.
	unblock()
	var left []int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = modeltest.Processes(r.marker); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("30s after agentskills was killed, processes of the run are alive:%s", describe(left))
	}
	if n := len(r.server.MessageRequests()); n != 1 {
		t.Errorf("the model was asked %d times, want once: the agent went on after agentskills was killed", n)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the agent ran the Bash command after agentskills was killed")
	}
}

// TestRunAgentUntaggedOrphan has Claude Code's Bash tool start a process
// that drops the runner's tag from its environment and leaves the
// agent's session: it is gone once `agentskills run` has returned.
func TestRunAgentUntaggedOrphan(t *testing.T) {
	t.Parallel()
	n, err := rand.Int(rand.Reader, big.NewInt(1e9))
	if err != nil {
		t.Fatal(err)
	}
	seconds := fmt.Sprintf("600.%09d", n) // an argument no other process has
	command := "env -u AGENTADAPTOR_PROCESS_TAG setsid nohup sleep " + seconds + " >/dev/null 2>&1 &"
	r := newRunRig(t, modeltest.ToolThenText(modeltest.ToolUse("Bash", map[string]any{"command": command, "description": "start"}), "started"))
	allowBash(t, r)
	bin := buildAgentskills(t)

	cmd := exec.CommandContext(runCtx(t), bin, "run", "-a", "claude-code", "--", "go")
	cmd.Env, cmd.Dir = r.env, r.workspace
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "started\n" {
		t.Fatalf("run = %v, stdout %q; want the answer; stderr:\n%s", err, stdout.String(), stderr.String())
	}
	reqs := r.server.MessageRequests()
	if _, ok := reqs[len(reqs)-1].ToolResult(); !ok {
		t.Fatal("test setup: the Bash tool's result never reached the model")
	}
	if left := commandLines(t, seconds); len(left) > 0 {
		t.Errorf("after run returned, the process that dropped the tag is alive:%s", describe(left))
	}
}

// TestRunAgentKilledCodex kills `agentskills run` with SIGKILL while Codex
// waits for the model: Codex dies with it, although its Node.js launcher
// replaces itself with the native binary.
func TestRunAgentKilledCodex(t *testing.T) {
	t.Parallel()
	cli := modeltest.CodexCLI(t)
	s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesStall()))
	env, home, _ := s.CodexEnv(t)
	r := rigFor(t, cli, env, home)
	bin := buildAgentskills(t)

	cmd := exec.Command(bin, "run", "-a", "codex", "--", "wait")
	cmd.Env, cmd.Dir = r.env, r.workspace
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(60 * time.Second); len(s.ResponseRequests()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent never asked the model; stderr:\n%s", stderr.String())
		}
	}
	agent := slices.DeleteFunc(modeltest.Processes(r.marker), func(p int) bool { return p == cmd.Process.Pid })
	if len(agent) == 0 {
		t.Fatal("test setup: the agent's process is not found")
	}
	t.Cleanup(func() {
		for _, p := range agent {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	cmd.Process.Kill()
	cmd.Wait()
	var left []int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = modeltest.Processes(r.marker); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("30s after agentskills was killed, processes of the run are alive:%s", describe(left))
	}
}
