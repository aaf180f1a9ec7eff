package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// runRig is a stand-in model API and a hermetic environment for
// `agentskills run` with the real Claude Code CLI.
type runRig struct {
	server    *modeltest.Server
	env       []string
	workspace string
	skills    string // a folder of two skills, alpha and beta
	home      string
	marker    string
}

func newRunRig(t *testing.T, reply modeltest.ReplyFunc) *runRig {
	t.Helper()
	cli := modeltest.ClaudeCLI(t)
	s := modeltest.NewAnthropic(t, reply)
	env, home := s.ClaudeEnv(t)
	r := rigFor(t, cli, env, home)
	r.server = s
	for _, name := range []string{"alpha", "beta"} {
		writeSkill(t, r.skills, name, fmt.Sprintf("---\nname: %s\ndescription: The %s skill DESC-%s.\n---\nBody of %s.\n", name, name, name, name))
	}
	return r
}

// inProcess runs agentskills in this process with the rig's environment.
func (r *runRig) inProcess(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var errs bytes.Buffer
	code, stdout = r.inProcessWith(t, ctx, strings.NewReader(""), &errs, args...)
	return code, stdout, errs.String()
}

// process runs agentskills as a process of its own, with the rig's
// environment and workspace: this test binary, race detector included,
// which TestMain (testscript.Main) puts on PATH as agentskills and runs
// as the command under that name. A test that runs agentskills only so
// changes nothing of this process (its environment, its working folder)
// and may run in parallel with others.
func (r *runRig) process(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var errs bytes.Buffer
	code, stdout = r.processWith(t, ctx, strings.NewReader(""), &errs, args...)
	return code, stdout, errs.String()
}

// processWith is process with the given standard input and standard
// error, which is written as the process writes it (as inProcessWith
// writes it, for a test that watches it while the run goes on).
func (r *runRig) processWith(t *testing.T, ctx context.Context, stdin io.Reader, stderr io.Writer, args ...string) (code int, stdout string) {
	t.Helper()
	bin, err := exec.LookPath("agentskills")
	if err != nil {
		t.Fatalf("agentskills is not on PATH (TestMain puts it there): %v", err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	// The rig's variables override this process's; CLAUDE_CONFIG_DIR is
	// left out, as inProcess leaves it out; and a race-enabled binary
	// otherwise sleeps a second as it exits.
	env := append(append(os.Environ(), r.env...), "GORACE=atexit_sleep_ms=0")
	cmd.Env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") })
	cmd.Dir = r.workspace
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("agentskills %q: %v; stderr %q", args, err, fmt.Sprint(stderr))
	}
	return code, out.String()
}

// runCtx bounds a run: a stuck agent fails its test instead of hanging
// the whole package.
func runCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestRunAgent(t *testing.T) {
	r := newRunRig(t, modeltest.Always(modeltest.Text("the answer")))
	code, out, errs := r.inProcess(t, runCtx(t), "run", "--agent", "claude-code", "--skill", r.skills, "--", "what", "now")
	if code != 0 || out != "the answer\n" {
		t.Fatalf("run = %d, stdout %q, stderr %q; want 0 and the answer", code, out, errs)
	}
	reqs := r.server.MessageRequests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Prompt(), "what now") {
		t.Fatalf("the model was not asked the prompt")
	}
	var all strings.Builder
	for _, m := range reqs[0].Messages {
		all.WriteString(m.Text())
	}
	for _, d := range []string{"DESC-alpha", "DESC-beta"} {
		if !strings.Contains(all.String(), d) {
			t.Errorf("the model was not shown %s", d)
		}
	}
	// Nothing was installed in the project.
	if _, err := os.Stat(filepath.Join(r.workspace, ".agents")); err == nil {
		t.Error("run installed into the workspace")
	}
}

func TestRunAgentJSONAndResume(t *testing.T) {
	// The first turn loads the skill; the resumed one just answers (a
	// second call of the same tool id in one session would confuse it).
	r := newRunRig(t, modeltest.IfPrompt("again", modeltest.Always(modeltest.Text("done")),
		modeltest.ToolThenText(modeltest.SkillCall("alpha"), "done")))
	code, out, errs := r.inProcess(t, runCtx(t), "run", "-a", "claude-code", "-s", filepath.Join(r.skills, "alpha"), "--json", "go")
	if code != 0 {
		t.Fatalf("run --json = %d; stderr %q", code, errs)
	}
	var last map[string]any
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		typ, _ := last["type"].(string)
		if typ == "" {
			t.Errorf("line %q has no type", sc.Text())
		}
		types = append(types, typ)
	}
	if len(types) < 3 || types[0] != "init" || types[len(types)-1] != "result" || slices.Index(types, "result") != len(types)-1 {
		t.Errorf("event types = %q, want init first and one result last", types)
	}
	session, _ := last["session_id"].(string)
	if last["text"] != "done" || session == "" {
		t.Fatalf("result line = %v, want text done and a session", last)
	}

	// Resuming with the same skills continues the session.
	code, out, errs = r.inProcess(t, runCtx(t), "run", "-a", "claude-code", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "again")
	if code != 0 || out != "done\n" {
		t.Fatalf("resume = %d, %q, stderr %q", code, out, errs)
	}
	// With another set it is refused before the agent starts.
	before := len(r.server.Requests())
	code, out, errs = r.inProcess(t, runCtx(t), "run", "-a", "claude-code", "-s", r.skills, "--resume", session, "again")
	if code != 1 || out != "" || !strings.Contains(errs, "skills added: beta") {
		t.Errorf("resume with another set = %d, %q, stderr %q; want 1 naming beta", code, out, errs)
	}
	if len(r.server.Requests()) != before {
		t.Error("the refused resume reached the model")
	}
}

func TestRunAgentExitCodes(t *testing.T) {
	r := newRunRig(t, modeltest.Always(modeltest.APIError(403, "permission_error", "DENIED-MARK")))
	tests := []struct {
		name string
		args []string
		code int
		errs string
	}{
		{"agent error", []string{"run", "-a", "claude-code", "hi"}, 1, "DENIED-MARK"},
		{"no agent", []string{"run", "hi"}, 2, "missing --agent"},
		{"unknown agent", []string{"run", "-a", "nope", "hi"}, 2, `cannot run agent "nope"`},
		{"no prompt", []string{"run", "-a", "claude-code"}, 2, "missing PROMPT"},
		{"missing skill", []string{"run", "-a", "claude-code", "-s", "/no/such/skill", "hi"}, 2, "/no/such/skill"},
		{"two skills of one name", []string{"run", "-a", "claude-code", "-s", r.skills, "-s", r.skills + "/alpha", "hi"}, 0, ""},
		{"workspace not a folder", []string{"run", "-a", "claude-code", "-w", "/no/such/dir", "hi"}, 2, "workspace"},
		{"unknown session", []string{"run", "-a", "claude-code", "--resume", "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "hi"}, 1, "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := r.inProcess(t, runCtx(t), tt.args...)
			if tt.code == 0 {
				// The same skill twice is one skill; the 403 then fails the run.
				tt.code, tt.errs = 1, "DENIED-MARK"
			}
			if code != tt.code || !strings.Contains(errs, tt.errs) {
				t.Errorf("run(%q) = %d, stderr %q; want %d holding %q", tt.args, code, errs, tt.code, tt.errs)
			}
		})
	}
}

// TestRunAgentInterrupt stops a real agentskills process while the agent
// waits for the model, by Ctrl-C, by SIGTERM and by a closed terminal
// (SIGHUP): it exits 130 and leaves no process.
func TestRunAgentInterrupt(t *testing.T) {
	t.Parallel()
	r := newRunRig(t, modeltest.Always(modeltest.Stall()))
	bin := buildAgentskills(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			asked := len(r.server.MessageRequests())
			cmd := exec.Command(bin, "run", "-a", "claude-code", "-s", r.skills, "wait")
			cmd.Env, cmd.Dir = r.env, r.workspace
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for len(r.server.MessageRequests()) == asked {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the agent never asked the model; stderr:\n%s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if len(modeltest.Processes(r.marker)) < 2 {
				t.Fatal("test setup: the agent's process is not found")
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("agentskills did not exit 30s after %v", sig)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Errorf("exit = %v, want status 130; stderr:\n%s", err, stderr.String())
			}
			errs := stderr.String()
			if strings.Count(errs, "interrupted") != 1 || strings.Contains(errs, "context canceled") {
				t.Errorf("stderr = %q, want it to say once that the run was interrupted, and no chain of errors", errs)
			}
			// The session the start reported, and how to resume it.
			start := regexp.MustCompile(`started, session ([0-9a-f-]{36})`).FindStringSubmatch(errs)
			if start == nil {
				t.Fatalf("stderr = %q, want the session at the start", errs)
			}
			hint := fmt.Sprintf("session %s can be resumed with: agentskills run --agent claude-code --skill %s --resume %s -- PROMPT\n", start[1], r.skills, start[1])
			if strings.Count(errs, hint) != 1 {
				t.Errorf("stderr = %q, want once %q", errs, hint)
			}
			if left := modeltest.Processes(r.marker); len(left) > 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// TestRunAgentCodex runs the real Codex CLI: the same flags, output and
// exit codes as for Claude Code.
func TestRunAgentCodex(t *testing.T) {
	r, s := newCodexRunRig(t, modeltest.ResponsesIfPrompt("again", modeltest.ResponsesAlways(modeltest.ResponsesText("again done")), modeltest.ResponsesAlways(modeltest.ResponsesText("codex answer"))))
	code, out, errs := r.inProcess(t, runCtx(t), "run", "--agent", "codex", "--skill", filepath.Join(r.skills, "alpha"), "--json", "hello")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	session, _ := last["session_id"].(string)
	if last["type"] != "result" || last["text"] != "codex answer" || session == "" {
		t.Fatalf("last line = %v, want the result with a session", last)
	}
	reqs := s.ResponseRequests()
	listed, err := reqs[0].Skills()
	if err != nil || !slices.ContainsFunc(listed, func(l modeltest.ListedSkill) bool { return l.Name == "alpha" }) {
		t.Errorf("listed skills = %v, %v; want alpha", listed, err)
	}
	code, out, errs = r.inProcess(t, runCtx(t), "run", "-a", "codex", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "again")
	if code != 0 || out != "again done\n" {
		t.Errorf("resume = %d, %q, stderr %q", code, out, errs)
	}
	code, _, errs = r.inProcess(t, runCtx(t), "run", "-a", "codex", "-s", r.skills, "--resume", session, "again")
	if code != 1 || !strings.Contains(errs, "skills added: beta") {
		t.Errorf("resume with another set = %d, %q; want 1 naming beta", code, errs)
	}
}

// newCodexRunRig is a rig for `agentskills run` with the real Codex CLI
// and a stand-in Responses API answering with reply, which it returns.
func newCodexRunRig(t *testing.T, reply modeltest.ResponsesReplyFunc) (*runRig, *modeltest.ResponsesServer) {
	t.Helper()
	cli := modeltest.CodexCLI(t)
	s := modeltest.NewResponses(t, reply)
	env, home, _ := s.CodexEnv(t)
	r := rigFor(t, cli, env, home)
	for _, name := range []string{"alpha", "beta"} {
		writeSkill(t, r.skills, name, fmt.Sprintf("---\nname: %s\ndescription: The %s skill.\n---\nBody.\n", name, name))
	}
	return r, s
}

// rigFor is a rig for the agent CLI at cli, run with env in the home
// folder home, which also holds the skill cache and the recorded sessions.
func rigFor(t *testing.T, cli string, env []string, home string) *runRig {
	r := &runRig{workspace: t.TempDir(), skills: t.TempDir(), home: home, marker: rand.Text()}
	t.Cleanup(func() { cachetest.Writable(home) }) // the skill cache is in it
	r.env = append(env,
		"PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENT_ADAPTOR_SKILL_CACHE_ROOT="+filepath.Join(home, ".cache", "skills"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"AGENTADAPTOR_TEST_RUN="+r.marker,
	)
	return r
}

// TestRunAgentResumeIsNeverAnOption gives --resume a value that Claude
// Code would read as its --settings option, whose apiKeyHelper it runs:
// for both agents the id is bad input, refused before the agent starts.
func TestRunAgentResumeIsNeverAnOption(t *testing.T) {
	claude := newRunRig(t, modeltest.Always(modeltest.Text("answer")))
	codex, codexServer := newCodexRunRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("answer")))
	for _, tt := range []struct {
		agent    string
		r        *runRig
		requests func() int
	}{
		{"claude-code", claude, func() int { return len(claude.server.Requests()) }},
		{"codex", codex, func() int { return len(codexServer.Requests()) }},
	} {
		t.Run(tt.agent, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "pwned")
			id := fmt.Sprintf(`--settings={"apiKeyHelper":"touch %s; echo k"}`, marker)
			for _, json := range []bool{false, true} {
				args := []string{"run", "-a", tt.agent, "-s", tt.r.skills, "--resume", id, "hi"}
				if json {
					args = append(args, "--json")
				}
				code, out, errs := tt.r.inProcess(t, runCtx(t), args...)
				if code != 2 || !strings.Contains(errs, "invalid session id") || !strings.Contains(errs, "a UUID such as") {
					t.Errorf("run(%q) = %d, stderr %q; want 2 saying an id is a UUID", args, code, errs)
				}
				if strings.Contains(errs, "was not started by agentskills run") {
					t.Errorf("stderr %q notes a session that never started", errs)
				}
				if json && !strings.Contains(out, `"type":"error"`) {
					t.Errorf("--json output %q, want an error line", out)
				}
			}
			if n := tt.requests(); n != 0 {
				t.Errorf("the refused runs sent %d requests", n)
			}
			if _, err := os.Lstat(marker); err == nil {
				t.Errorf("%s exists: the session id was read as an option", marker)
			}
			if left := modeltest.Processes(tt.r.marker); len(left) > 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// TestRunAgentModelIsNeverAnOption gives --model a value that Claude Code
// would read as its --settings option: the model is asked for by that
// name, and nothing else happens.
func TestRunAgentModelIsNeverAnOption(t *testing.T) {
	r := newRunRig(t, modeltest.Always(modeltest.Text("answer")))
	marker := filepath.Join(t.TempDir(), "pwned")
	model := fmt.Sprintf(`--settings={"apiKeyHelper":"touch %s; echo k"}`, marker)
	code, out, errs := r.inProcess(t, runCtx(t), "run", "-a", "claude-code", "--model", model, "hi")
	if code != 0 || out != "answer\n" {
		t.Errorf("run --model %q = %d, %q, stderr %q; want the answer", model, code, out, errs)
	}
	if reqs := r.server.MessageRequests(); len(reqs) == 0 || reqs[0].Model != model {
		t.Errorf("the model was not asked for by the name %q", model)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("%s exists: the model was read as an option", marker)
	}
}

// TestRunAgentTimeouts checks --timeout, which gives up a stalled
// download of a skill source, and --run-timeout, which stops the whole
// run, the agent included, with exit code 124.
func TestRunAgentTimeouts(t *testing.T) {
	t.Parallel()
	r := newRunRig(t, modeltest.Always(modeltest.Stall()))
	tests := []struct {
		name    string
		args    []string
		code    int
		errs    []string
		started bool // the agent asked the model
	}{
		{"stalled download", []string{"--timeout", "300ms", "-s", stalled(t)}, 1,
			[]string{"nothing received for 300ms", "give the download longer with --timeout"}, false},
		// Long enough for the agent to start on a busy machine.
		{"agent that never ends", []string{"-s", r.skills, "--run-timeout", "15s"}, 124,
			[]string{"run timed out after 15s", "give it longer with --run-timeout", "can be resumed with: agentskills run --agent claude-code --skill " + r.skills + " --resume "}, true},
		{"download that never ends", []string{"--timeout", "10m", "--run-timeout", "1s", "-s", stalled(t)}, 124,
			[]string{"run timed out after 1s", "give it longer with --run-timeout"}, false},
		{"negative run timeout", []string{"--run-timeout", "-1s"}, 2, []string{"--run-timeout -1s is negative"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := len(r.server.MessageRequests())
			args := append(append([]string{"run", "-a", "claude-code"}, tt.args...), "wait")
			begin := time.Now()
			code, out, errs := r.process(t, runCtx(t), args...)
			took := time.Since(begin)
			if code != tt.code || out != "" {
				t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d", args, code, out, errs, tt.code)
			}
			for _, want := range tt.errs {
				if !strings.Contains(errs, want) {
					t.Errorf("run(%q): stderr %q, want it to hold %q", args, errs, want)
				}
			}
			// The limits, not the test's bound of two minutes, ended the
			// run: 30s is the default --timeout, and a stopped agent has
			// 5s between SIGINT and SIGKILL.
			if took > 40*time.Second {
				t.Errorf("run(%q) took %s", args, took)
			}
			if started := len(r.server.MessageRequests()) > asked; started != tt.started {
				t.Errorf("run(%q): the agent asked the model: %v, want %v", args, started, tt.started)
			}
			if left := modeltest.Processes(r.marker); len(left) > 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}
