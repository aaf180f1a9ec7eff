package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir}, Agent: "The Agent", Package: "@shop/agent"}

	l, err := Prepare(t.Context(), &driver.Request{}, p)
	wd, _ := os.Getwd()
	if err != nil || l.Path != filepath.Join(dir, "agent") || l.Workspace != wd {
		t.Fatalf("Prepare = %+v, %v; want the program from the agent's PATH and the current folder", l, err)
	}
	if l, err := Prepare(t.Context(), &driver.Request{Workspace: "/w"}, p); err != nil || l.Workspace != "/w" {
		t.Errorf("Prepare with a workspace = %+v, %v", l, err)
	}
	if _, err := Prepare(t.Context(), nil, p); err == nil {
		t.Error("Prepare of a nil request succeeded")
	}

	missing := p
	missing.Command = "nothing-by-this-name"
	_, err = Prepare(t.Context(), &driver.Request{}, missing)
	var notFound *driver.ProgramNotFoundError
	if !errors.Is(err, driver.ErrProcessFailed) || !errors.Is(err, driver.ErrProgramNotFound) || !errors.As(err, &notFound) ||
		notFound.Command != "nothing-by-this-name" || notFound.Field != "agent.Config.Command" ||
		!strings.Contains(err.Error(), "install The Agent with `npm install -g @shop/agent`, or set agent.Config.Command") {
		t.Errorf("Prepare of a missing program = %v, want a process error saying how to install it and the field to set", err)
	}

	cause := errors.New("user pressed stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	_, err = Prepare(ctx, &driver.Request{}, p)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("Prepare with a cancelled context = %v, want both the context's error and its cause", err)
	}
}

// TestPrepareNested checks that Prepare refuses a workspace holding the
// nested skills folders its program's row says the agent loads, and a
// row the agents table does not have.
func TestPrepareNested(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(ws, "pkg", ".claude", "skills")
	if err := os.MkdirAll(filepath.Join(nested, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, "x", "SKILL.md"), []byte("---\nname: x\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir}, Row: "claude-code"}
	var ne *driver.NestedSkillsError
	if _, err := Prepare(t.Context(), &driver.Request{Workspace: ws}, p); !errors.As(err, &ne) || len(ne.Folders) != 1 || ne.Folders[0] != nested {
		t.Errorf("Prepare beside %s = %v, want a *driver.NestedSkillsError naming it", nested, err)
	}
	p.Row = "codex" // Codex loads no nested folder
	if _, err := Prepare(t.Context(), &driver.Request{Workspace: ws}, p); err != nil {
		t.Errorf("Prepare for a row without nested folders = %v", err)
	}
	p.Row = "no-such-agent"
	if _, err := Prepare(t.Context(), &driver.Request{Workspace: ws}, p); err == nil || !strings.Contains(err.Error(), `no row "no-such-agent"`) {
		t.Errorf("Prepare for a row not in the table = %v", err)
	}
}

func TestNoResult(t *testing.T) {
	err := NoResult("agent", "  it said this\n")
	if !errors.Is(err, driver.ErrNoResult) || errors.Is(err, driver.ErrProcessFailed) || !strings.HasSuffix(err.Error(), "; stderr: it said this") {
		t.Errorf("NoResult = %v", err)
	}
	if err := NoResult("agent", ""); strings.Contains(err.Error(), "stderr") {
		t.Errorf("NoResult without stderr = %v", err)
	}
}

func TestProgramOf(t *testing.T) {
	env := []string{"A=1"}
	d := driver.Descriptor{ID: "the-agent", Name: "agent", Program: "agent-cli", Agent: "The Agent", Package: "@shop/agent"}
	p := ProgramOf(d, "", env)
	env[0] = "A=2"
	if p.Name != "agent" || p.Command != "agent-cli" || p.Env[0] != "A=1" || p.Agent != "The Agent" || p.Package != "@shop/agent" || p.Row != "the-agent" {
		t.Errorf("ProgramOf = %+v, want the descriptor's program as command, its row, and its own copy of env", p)
	}
	if p := ProgramOf(d, "/bin/other", nil); p.Command != "/bin/other" {
		t.Errorf("ProgramOf with a command = %+v", p)
	}
	if CacheRoot("/r") != "/r" || CacheRoot("") == "" {
		t.Error("CacheRoot does not keep a root given, or gives none by default")
	}
}

// TestRun checks the run every driver makes: the prompt on standard
// input (none when the plan puts it in the arguments), the plan's
// arguments and environment, each line to Line, the Outcome given how
// the program ended, and what setup deferred undone afterwards, the
// last first.
func TestRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in agent is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\ncat\necho \"$1 $WHO\"\n"
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir + string(filepath.ListSeparator) + os.Getenv("PATH")}}
	for _, inArgs := range []bool{false, true} {
		var lines, undone []string
		var ended Ended
		res, err := Run(t.Context(), &driver.Request{Prompt: "hello\n", Workspace: dir}, p, 0, func(_ context.Context, l *Launch) (*Plan, error) {
			l.Defer(func() { undone = append(undone, "first") })
			l.Defer(func() { undone = append(undone, "second") })
			return &Plan{
				Args: []string{"arg"}, Env: append(l.Env, "WHO=me"), PromptInArgs: inArgs,
				Line: func(b []byte) error {
					lines = append(lines, string(b))
					return nil
				},
				Outcome: func(e Ended) (*driver.Result, error) {
					ended = e
					return &driver.Result{Text: "ok"}, nil
				},
			}, nil
		})
		want := "hello|arg me"
		if inArgs {
			want = "arg me"
		}
		if err != nil || res.Text != "ok" || ended.Exit.Code != 0 || ended.Path != filepath.Join(dir, "agent") || strings.Join(lines, "|") != want {
			t.Errorf("Run (prompt in arguments: %v) = %+v, %v, ended %+v; lines %q, want %q", inArgs, res, err, ended, lines, want)
		}
		if !slices.Equal(undone, []string{"second", "first"}) {
			t.Errorf("Run undid %q, want second then first", undone)
		}
	}
}

// TestRunSetupFails checks that a setup's error is the run's, with what
// it deferred undone and no program started.
func TestRunSetupFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\ntouch started\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir}}
	stop, undone := errors.New("stop"), false
	_, err := Run(t.Context(), &driver.Request{Workspace: dir}, p, 0, func(_ context.Context, l *Launch) (*Plan, error) {
		l.Defer(func() { undone = true })
		return nil, stop
	})
	if !errors.Is(err, stop) || !undone {
		t.Errorf("Run with a failing setup = %v, undone %v; want its error, undone", err, undone)
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("the program started after its setup failed")
	}
}

func TestEndedResult(t *testing.T) {
	ok := process.Exit{}
	failed := process.Exit{Code: 1, Stderr: "boom"}
	line := &driver.ResultEvent{Text: "done", SessionID: "s1"}
	end := Ended{Name: "agent", Path: "/bin/agent", Exit: ok}

	if res, err := end.Result(line, "other"); err != nil || res.Text != "done" || res.SessionID != "s1" {
		t.Errorf("Result of a success = %+v, %v", res, err)
	}
	if res, err := end.Result(&driver.ResultEvent{Text: "done"}, "s2"); err != nil || res.SessionID != "s2" {
		t.Errorf("Result without a session in the line = %+v, %v; want the session given", res, err)
	}
	if _, err := end.Result(nil, ""); !errors.Is(err, driver.ErrNoResult) {
		t.Errorf("Result without a line = %v, want ErrNoResult", err)
	}
	var agentErr *driver.AgentError
	if _, err := end.Result(&driver.ResultEvent{Text: "bad", IsError: true, Subtype: "error"}, "s"); !errors.As(err, &agentErr) || agentErr.Result.SessionID != "s" {
		t.Errorf("Result of an error line = %v, want an AgentError holding the result", err)
	}

	end.Exit = failed
	var perr *driver.ProcessError
	if _, err := end.Result(nil, ""); !errors.As(err, &perr) || perr.ExitCode != 1 || perr.Stderr != "boom" || perr.Command != "/bin/agent" {
		t.Errorf("Result of a failed process without a line = %v", err)
	}
	if _, err := end.Result(line, ""); !errors.As(err, &perr) {
		t.Errorf("Result of a failed process with a line = %v, want a process error", err)
	}
	stop := errors.New("stopped")
	end = Ended{Name: "agent", Path: "/bin/agent", Exit: process.Exit{Code: -1, Signal: "interrupt"}, Err: stop}
	if _, err := end.Result(line, ""); !errors.As(err, &perr) || !errors.Is(err, stop) {
		t.Errorf("Result of a stopped run = %v, want a process error wrapping the cause", err)
	}
}

func TestCacheRootIsAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if got := CacheRoot("-cache"); got != filepath.Join(dir, "-cache") {
		t.Errorf("CacheRoot(-cache) = %q, want %q", got, filepath.Join(dir, "-cache"))
	}
	if got := CacheRoot(""); !filepath.IsAbs(got) {
		t.Errorf("CacheRoot() = %q, want an absolute folder", got)
	}
}

// TestRunStderrLine checks that Run passes the program's stderr lines
// to the StderrLine setup sets.
func TestRunStderrLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the program is a shell script")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\necho out\necho 'Attempt 1 failed' >&2\necho done >&2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir}}
	req := &driver.Request{Workspace: dir}
	var lines []string
	_, err := Run(t.Context(), req, p, 0, func(_ context.Context, l *Launch) (*Plan, error) {
		l.StderrLine = func(s string) { lines = append(lines, s) }
		return &Plan{Outcome: func(e Ended) (*driver.Result, error) { return nil, e.Err }}, nil
	})
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if got := strings.Join(lines, "|"); got != "Attempt 1 failed|done" {
		t.Errorf("StderrLine got %q, want %q", got, "Attempt 1 failed|done")
	}
}
