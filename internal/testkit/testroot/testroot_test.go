package testroot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestModuleFromStartDir: the module is found from the folder the test
// binary started in, whatever the working folder is now.
func TestModuleFromStartDir(t *testing.T) {
	want, err := Module()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	got, err := Module()
	if err != nil || got != want {
		t.Errorf("Module() after Chdir = %q, %v, want %q", got, err, want)
	}
	if _, err := os.Stat(filepath.Join(got, ".ci", "run")); err != nil {
		t.Errorf("the module root %s has no .ci/run: %v", got, err)
	}
}

// missingTB records how Missing ends a test.
type missingTB struct {
	testing.TB
	fatal, skip string
}

func (m *missingTB) Helper()                           {}
func (m *missingTB) Fatalf(format string, args ...any) { m.fatal = fmt.Sprintf(format, args...) }
func (m *missingTB) Skipf(format string, args ...any)  { m.skip = fmt.Sprintf(format, args...) }

// Missing fails when AGENTADAPTOR_REQUIRE_CLIS=1 and skips otherwise,
// recording the tool for Main's note.
func TestMissing(t *testing.T) {
	t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", "1")
	m := &missingTB{TB: t}
	Missing(m, "claude CLI", "not found", "run .ci/install-agent-clis")
	if want := "claude CLI: not found (AGENTADAPTOR_REQUIRE_CLIS=1; run .ci/install-agent-clis)"; m.fatal != want || m.skip != "" {
		t.Errorf("AGENTADAPTOR_REQUIRE_CLIS=1: got fatal %q, skip %q; want fatal %q", m.fatal, m.skip, want)
	}
	t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", "")
	m = &missingTB{TB: t}
	Missing(m, "claude CLI", "not found", "run .ci/install-agent-clis")
	if want := "claude CLI not installed (not found); run .ci/install-agent-clis"; m.fatal != "" || m.skip != want {
		t.Errorf("unset: got fatal %q, skip %q; want skip %q", m.fatal, m.skip, want)
	}
}

// TestNote checks Main's note: nothing without a skip; else the count,
// and the tools grouped by what installs them, in the order missed.
func TestNote(t *testing.T) {
	var s skips
	if n := s.note(); n != "" {
		t.Errorf("note() with no skip = %q, want none", n)
	}
	s.add("claude CLI", "run .ci/install-agent-clis")
	if want := "1 test skipped: claude CLI not installed (run .ci/install-agent-clis)"; s.note() != want {
		t.Errorf("note() = %q, want %q", s.note(), want)
	}
	s.add("cosign", "run .ci/install-cosign")
	s.add("codex CLI", "run .ci/install-agent-clis")
	s.add("claude CLI", "run .ci/install-agent-clis")
	if want := "4 tests skipped: claude CLI, codex CLI not installed (run .ci/install-agent-clis); cosign not installed (run .ci/install-cosign)"; s.note() != want {
		t.Errorf("note() = %q, want %q", s.note(), want)
	}
}
