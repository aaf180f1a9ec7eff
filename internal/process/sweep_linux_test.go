package process

import (
	"os/exec"
	"strings"
	"testing"
)

// tagged finds the tag wherever it is in a process's environment, also
// past the first reads of a large one, and not in another process's.
func TestTagged(t *testing.T) {
	tag := "AGENTADAPTOR_RUN=sweep-test"
	for _, pad := range []int{0, 4000, 70000} {
		cmd := exec.Command("sleep", "30")
		cmd.Env = []string{"PAD=" + strings.Repeat("x", pad), tag}
		other := exec.Command("sleep", "30")
		other.Env = []string{"PAD=" + strings.Repeat("x", pad), tag + "-other"}
		for _, c := range []*exec.Cmd{cmd, other} {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { c.Process.Kill(); c.Wait() }()
		}
		var buf []byte
		needle := []byte(tag + "\x00")
		if !tagged(cmd.Process.Pid, needle, &buf) {
			t.Errorf("tagged(the tagged process, %d bytes of padding) = false, want true", pad)
		}
		if tagged(other.Process.Pid, needle, &buf) {
			t.Errorf("tagged(another process, %d bytes of padding) = true, want false", pad)
		}
	}
}
