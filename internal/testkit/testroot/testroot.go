// Package testroot finds the top of the module for test helpers that look
// for tools installed there (.agent-clis, .tools): from the folder the test
// binary started in, its package's folder, read once before any test can
// change the working folder (t.Chdir), never from the working folder of
// the moment. [Missing] is what those helpers do when a tool is not
// there, and [Main], called from a package's TestMain, says after the
// tests which tools the skipped tests missed, in go test's default output.
package testroot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Missing ends t for a tool that is not installed (why says how it was
// found missing; install says what to do, "run .ci/install-agent-clis"):
// it fails t when AGENTADAPTOR_REQUIRE_CLIS=1 (as CI sets it, so a
// missing tool cannot pass unnoticed), and skips t otherwise, recording
// the tool for the note [Main] prints.
func Missing(t testing.TB, tool, why, install string) {
	t.Helper()
	if os.Getenv("AGENTADAPTOR_REQUIRE_CLIS") == "1" {
		t.Fatalf("%s: %s (AGENTADAPTOR_REQUIRE_CLIS=1; %s)", tool, why, install)
		return
	}
	t.Cleanup(func() {
		if t.Skipped() { // a test that only pretends to skip is not counted
			skipped.add(tool, install)
		}
	})
	t.Skipf("%s not installed (%s); %s", tool, why, install)
}

// skipped are the tools the skipped tests of this test binary missed:
// the record of test support, kept for [Main]'s note.
var skipped skips

// skips counts the tests skipped for a missing tool, and says how to
// install each tool. It is safe for concurrent use.
type skips struct {
	mu      sync.Mutex
	tests   int
	tools   []string          // in the order first missed
	install map[string]string // tool to what to do
}

func (s *skips) add(tool, install string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tests++
	if _, ok := s.install[tool]; !ok {
		if s.install == nil {
			s.install = map[string]string{}
		}
		s.tools = append(s.tools, tool)
		s.install[tool] = install
	}
}

// note is the line Main prints: "" when no test was skipped, else how
// many were, which tools they missed and what to do, the tools that take
// one step together: "3 tests skipped: claude CLI, codex CLI not
// installed (run .ci/install-agent-clis)".
func (s *skips) note() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tests == 0 {
		return ""
	}
	var steps []string
	byStep := map[string][]string{}
	for _, tool := range s.tools {
		step := s.install[tool]
		if byStep[step] == nil {
			steps = append(steps, step)
		}
		byStep[step] = append(byStep[step], tool)
	}
	var parts []string
	for _, step := range steps {
		parts = append(parts, strings.Join(byStep[step], ", ")+" not installed ("+step+")")
	}
	tests := "1 test"
	if s.tests > 1 {
		tests = strconv.Itoa(s.tests) + " tests"
	}
	return tests + " skipped: " + strings.Join(parts, "; ")
}

// Main runs the tests of m, as a TestMain does, and returns their exit
// code. When a test was skipped by [Missing], it first writes one line
// naming the package, the tools missed and how to install them: to the
// terminal go test runs in, since go test shows what a passing package
// prints only with -v, else (no terminal, as in CI) to standard error.
func Main(m *testing.M) int {
	code := m.Run()
	if n := skipped.note(); n != "" {
		w, closeW := noteOutput()
		fmt.Fprintf(w, "%s: %s\n", packageName(), n)
		closeW()
	}
	return code
}

// noteOutput opens the terminal, else returns standard error.
func noteOutput() (io.Writer, func()) {
	name := "/dev/tty"
	if runtime.GOOS == "windows" {
		name = "CONOUT$"
	}
	if f, err := os.OpenFile(name, os.O_WRONLY, 0); err == nil {
		return f, func() { f.Close() }
	}
	return os.Stderr, func() {}
}

// packageName names the package under test by its folder in the module,
// as go test lists it; the folder alone when the module is not found.
func packageName() string {
	root, err := Module()
	if err != nil {
		return startDir
	}
	rel, err := filepath.Rel(root, startDir)
	if err != nil {
		return startDir
	}
	return "./" + filepath.ToSlash(rel)
}

// startDir is the working folder the test binary started in.
var startDir, startDirErr = os.Getwd()

// Module returns the nearest folder at or above the folder the test binary
// started in that holds a go.mod.
func Module() (string, error) {
	if startDirErr != nil {
		return "", startDirErr
	}
	dir := startDir
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above " + startDir)
		}
		dir = parent
	}
}
