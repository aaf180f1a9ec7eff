package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// TestMain makes the test binary the agentskills command when the scripts
// run it, so the scripts exercise the real main.
func TestMain(m *testing.M) {
	testscript.Main(removingBuilt{m}, map[string]func(){"agentskills": main})
}

// built is the agentskills command, built once for the tests that run it
// as a process of its own (not this test binary, which -race makes
// larger and slower); they only run it. dir, which holds it, is removed
// when the tests end.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildAgentskills returns the agentskills command, built on the first
// call.
func buildAgentskills(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "agentskills-test-")
		if built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "agentskills")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// removingBuilt runs the tests, then removes the command they built.
type removingBuilt struct{ m *testing.M }

func (r removingBuilt) Run() int {
	code := testroot.Main(r.m)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	return code
}

// TestScripts runs testdata/script/*.txtar. Besides the usual commands,
// "status N command args..." runs a command and fails unless it exits
// with status N; its output is kept for the stdout and stderr commands.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// A race-enabled binary otherwise sleeps a second as it exits.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status": cmdStatus,
		},
	})
}

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status %q: %v", args[0], err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
