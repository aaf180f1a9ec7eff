package podmantest

import (
	"fmt"
	"strings"
	"testing"
)

// recordTB records how a test would end.
type recordTB struct {
	testing.TB
	fatal, skip string
}

func (r *recordTB) Helper()                           {}
func (r *recordTB) Cleanup(func())                    {}
func (r *recordTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordTB) Skipf(format string, args ...any)  { r.skip = fmt.Sprintf(format, args...) }

// TestMissingProgram: a program not on PATH skips the test, saying to
// run .ci/install-podman, or fails it when AGENTADAPTOR_REQUIRE_CLIS=1.
func TestMissingProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"podman", "skopeo"} {
		for _, require := range []string{"", "1"} {
			t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", require)
			r := &recordTB{TB: t}
			if got := lookPath(r, name); got != "" {
				t.Errorf("lookPath(%s) with an empty PATH = %q", name, got)
			}
			ended, other := r.skip, r.fatal
			if require == "1" {
				ended, other = r.fatal, r.skip
			}
			if other != "" || !strings.Contains(ended, name) || !strings.Contains(ended, ".ci/install-podman") {
				t.Errorf("lookPath(%s) with REQUIRE_CLIS=%q: fatal %q, skip %q; want one naming %s and .ci/install-podman", name, require, r.fatal, r.skip, name)
			}
		}
	}
}
