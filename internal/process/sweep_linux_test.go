package process

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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
		proc, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(proc)
		if !tagged(proc, cmd.Process.Pid, needle, &buf) {
			t.Errorf("tagged(the tagged process, %d bytes of padding) = false, want true", pad)
		}
		if tagged(proc, other.Process.Pid, needle, &buf) {
			t.Errorf("tagged(another process, %d bytes of padding) = true, want false", pad)
		}
	}
}

// eachPid lists every process /proc lists, as os.ReadDir reads it, this
// process and a child of it among them, through a buffer that holds a
// few entries at a time.
func TestEachPid(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// Processes come and go meanwhile: those listed before and still
	// there after must be listed.
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	if !eachPid(make([]byte, 512), func(_, pid int) { got = append(got, pid) }) {
		t.Fatal("eachPid() = false, want /proc read")
	}
	for _, pid := range []int{os.Getpid(), cmd.Process.Pid} {
		if !slices.Contains(got, pid) {
			t.Errorf("eachPid() left out %d", pid)
		}
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, err := os.Stat("/proc/" + e.Name()); err == nil && !slices.Contains(got, pid) {
			t.Errorf("eachPid() left out %d, which os.ReadDir lists", pid)
		}
	}
	for _, name := range []string{"self", "12a", "", "0123456789", "-1"} {
		if pid, ok := pidOf([]byte(name + "\x00\x00")); ok {
			t.Errorf("pidOf(%q) = %d, want none", name, pid)
		}
	}
	if pid, ok := pidOf([]byte("4242\x00\x00\x00")); !ok || pid != 4242 {
		t.Errorf("pidOf(4242) = %d, %v", pid, ok)
	}
}
