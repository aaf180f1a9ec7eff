package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// watchedWriter keeps what is written to it and closes seen once it holds
// want. It is safe for concurrent use.
type watchedWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func newWatchedWriter(want string) *watchedWriter {
	return &watchedWriter{want: want, seen: make(chan struct{})}
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitSeen waits until w has seen its text, for at most a minute, and
// reports whether it did.
func (w *watchedWriter) waitSeen() bool {
	select {
	case <-w.seen:
		return true
	case <-time.After(time.Minute):
		return false
	}
}

// inProcessWith runs agentskills in this process with the rig's
// environment, stdin and stderr.
func (r *runRig) inProcessWith(t *testing.T, ctx context.Context, stdin io.Reader, stderr io.Writer, args ...string) (code int, stdout string) {
	t.Helper()
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	os.Unsetenv("CLAUDE_CONFIG_DIR")
	t.Chdir(r.workspace)
	var out bytes.Buffer
	code = run(ctx, args, stdin, &out, stderr)
	return code, out.String()
}

// blockSecond answers every call with fail, except that the answer to
// the second call (the first retry) waits until stderr shows the first
// retry's line: the line is then known to have been printed while the
// agent was still retrying, before the run ended.
func blockSecond[Q, R any](stderr *watchedWriter, late *atomic.Bool, fail R) func(Q) R {
	var calls atomic.Int32
	return func(Q) R {
		if calls.Add(1) == 2 && !stderr.waitSeen() {
			late.Store(true)
		}
		return fail
	}
}

// TestRunProgressRetries runs the real Claude Code and Codex against a
// model API that answers 401: the start and each retry are on stderr while
// the agent still retries, and the final error says what failed, without
// the agent's kind of result.
func TestRunProgressRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		agent string
		rig   func(t *testing.T, stderr *watchedWriter, late *atomic.Bool) *runRig
		start string
		final string
	}{
		{"claude-code", func(t *testing.T, stderr *watchedWriter, late *atomic.Bool) *runRig {
			r := newRunRig(t, blockSecond[*modeltest.Request](stderr, late, modeltest.APIError(401, "authentication_error", "Invalid API key")))
			r.env = append(r.env, "CLAUDE_CODE_MAX_RETRIES=2")
			return r
		}, "claude-code 2.1.328 started, session ", "(the model API answered 401 after 2 retries; check ANTHROPIC_API_KEY or your login)"},
		{"codex", func(t *testing.T, stderr *watchedWriter, late *atomic.Bool) *runRig {
			cli := modeltest.CodexCLI(t)
			s := modeltest.NewResponses(t, blockSecond[*modeltest.ResponsesRequest](stderr, late, modeltest.ResponsesAPIError(401, "invalid_request_error", "Invalid API key")))
			env, home, codexHome := s.CodexEnv(t)
			config := strings.Replace(s.CodexConfig(), "stream_max_retries = 0", "stream_max_retries = 2", 1)
			if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			r := rigFor(t, cli, env, home)
			writeSkill(t, r.skills, "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\nBody.\n")
			return r
		}, "codex started, session ", "(the model API answered 401 after 2 retries; check OPENAI_API_KEY, the model provider in ~/.codex/config.toml, or your login)"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			t.Parallel()
			stderr := newWatchedWriter("retry 1 of 2")
			var late atomic.Bool
			r := tt.rig(t, stderr, &late)
			code, out := r.processWith(t, runCtx(t), strings.NewReader(""), stderr, "run", "-a", tt.agent, "-s", r.skills, "hello")
			errs := stderr.String()
			t.Logf("stderr:\n%s", errs)
			if code != 1 || out != "" {
				t.Fatalf("run = %d, stdout %q, stderr %q; want 1", code, out, errs)
			}
			if late.Load() {
				t.Errorf("the first retry was not on stderr while the agent retried; stderr %q", errs)
			}
			for _, want := range []string{tt.start, "--resume ", "the model API answered 401", "retry 1 of 2", "retry 2 of 2",
				"agentskills run: " + tt.agent + " failed: ", tt.final} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr %q, want it to hold %q", errs, want)
				}
			}
			for _, bad := range []string{"(success)", "(turn.failed)", "agent reported an error"} {
				if strings.Contains(errs, bad) {
					t.Errorf("stderr %q holds %q", errs, bad)
				}
			}
			if !strings.HasSuffix(errs, tt.final+"\n") {
				t.Errorf("stderr %q, want it to end with the final error", errs)
			}
		})
	}
}

// TestRunProgressQuiet has --quiet (-q) turn the progress off: only the
// final error is on stderr.
func TestRunProgressQuiet(t *testing.T) {
	t.Parallel()
	r := newRunRig(t, modeltest.Always(modeltest.APIError(401, "authentication_error", "Invalid API key")))
	for _, flag := range []string{"--quiet", "-q"} {
		var stderr bytes.Buffer
		code, _ := r.processWith(t, runCtx(t), strings.NewReader(""), &stderr, "run", "-a", "claude-code", flag, "hello")
		errs := stderr.String()
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "agentskills run: claude-code failed: ") {
			t.Errorf("run %s = %d, stderr %q; want 1 and the final error alone", flag, code, errs)
		}
	}
}

// TestRunProgressOtherAgents runs the real Qwen Code and Gemini CLI
// against a model API that answers 401 (neither retries it): the start
// is printed, and the final error names the agent and the credentials,
// not the agent's kind of result.
func TestRunProgressOtherAgents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		agent string
		rig   func(t *testing.T) *runRig
		start string
		final string
	}{
		{"qwen-code", func(t *testing.T) *runRig {
			s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatAPIError(401, "bad key")))
			env, home := s.QwenEnv(t)
			return rigFor(t, modeltest.QwenCLI(t), env, home)
		}, "qwen-code 0.24.4 started, session ", "(check OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL, or your Qwen Code settings)\n"},
		{"gemini-cli", func(t *testing.T) *runRig {
			s := modeltest.NewGemini(t, modeltest.GeminiAlways(modeltest.GeminiAPIError(401, "bad key")))
			env, home := s.GeminiEnv(t)
			return rigFor(t, modeltest.GeminiCLI(t), env, home)
		}, "gemini-cli started, session ", "(check GEMINI_API_KEY or your login)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			t.Parallel()
			r := tt.rig(t)
			var stderr bytes.Buffer
			code, _ := r.processWith(t, runCtx(t), strings.NewReader(""), &stderr, "run", "-a", tt.agent, "-m", "m1", "hello")
			errs := stderr.String()
			if code != 1 {
				t.Fatalf("run = %d, stderr %q; want 1", code, errs)
			}
			for _, want := range []string{tt.start, "--model m1 --resume ", "agentskills run: " + tt.agent + " failed: ", tt.final} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr %q, want it to hold %q", errs, want)
				}
			}
			for _, bad := range []string{"(error_during_execution)", "(error)", "agent reported an error"} {
				if strings.Contains(errs, bad) {
					t.Errorf("stderr %q holds %q", errs, bad)
				}
			}
		})
	}
}

// TestRunPromptFromStdin gives the prompt on standard input with "-", and
// refuses an empty prompt before the agent starts.
func TestRunPromptFromStdin(t *testing.T) {
	r := newRunRig(t, modeltest.Always(modeltest.Text("the answer")))
	var stderr bytes.Buffer
	code, out := r.inProcessWith(t, runCtx(t), strings.NewReader("STDIN-PROMPT\nline two\n"), &stderr, "run", "-a", "claude-code", "-q", "-")
	if code != 0 || out != "the answer\n" {
		t.Fatalf("run - = %d, %q, stderr %q; want the answer", code, out, stderr.String())
	}
	if reqs := r.server.MessageRequests(); len(reqs) != 1 || !strings.Contains(reqs[0].Prompt(), "STDIN-PROMPT\nline two") {
		t.Errorf("the model was not asked the prompt of stdin")
	}
	for _, tt := range []struct {
		args  []string
		stdin string
	}{
		{[]string{""}, "unused"},
		{[]string{" "}, ""},
		{[]string{"-"}, ""},
		{[]string{"-"}, "\n \n"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"run", "-a", "claude-code", "--"}, tt.args...)
		code, out := r.inProcessWith(t, runCtx(t), strings.NewReader(tt.stdin), &stderr, args...)
		if code != 2 || out != "" || !strings.Contains(stderr.String(), "is empty") {
			t.Errorf("run(%q) with stdin %q = %d, %q, stderr %q; want 2 saying the prompt is empty", args, tt.stdin, code, out, stderr.String())
		}
	}
	if n := len(r.server.MessageRequests()); n != 1 {
		t.Errorf("the model was asked %d times, want once: an empty prompt reached the agent", n)
	}
}

// TestRunProgressToolCall has the real Claude Code load a skill: the
// tool call is one line on stderr, and the answer alone is on stdout.
func TestRunProgressToolCall(t *testing.T) {
	r := newRunRig(t, modeltest.ToolThenText(modeltest.SkillCall("alpha"), "done"))
	var stderr bytes.Buffer
	code, out := r.inProcessWith(t, runCtx(t), strings.NewReader(""), &stderr, "run", "-a", "claude-code", "-s", r.skills, "go")
	if code != 0 || out != "done\n" {
		t.Fatalf("run = %d, %q, stderr %q; want the answer", code, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "agentskills run: tool Skill: alpha\n") {
		t.Errorf("stderr %q, want the Skill call on a line", stderr.String())
	}
}
