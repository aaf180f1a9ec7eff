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

// Missing fails when AGENTADAPTOR_REQUIRE_CLIS=1 and skips otherwise.
func TestMissing(t *testing.T) {
	t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", "1")
	m := &missingTB{TB: t}
	Missing(m, "required", "skipped")
	if m.fatal != "required" {
		t.Errorf("AGENTADAPTOR_REQUIRE_CLIS=1: got fatal %q, skip %q", m.fatal, m.skip)
	}
	t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", "")
	m = &missingTB{TB: t}
	Missing(m, "required", "skipped")
	if m.fatal != "" || m.skip != "skipped" {
		t.Errorf("unset: got fatal %q, skip %q", m.fatal, m.skip)
	}
}
