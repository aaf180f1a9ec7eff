package process

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestAwaitExitUnreaped checks the order rule 3 relies on, on Linux: when
// awaitExit returns, the program has exited but is not reaped, so its pid
// (the group id) still belongs to it.
func TestAwaitExitUnreaped(t *testing.T) {
	t.Parallel()
	c := child(t, "exit:3")
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = c.Env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if reaped, err := awaitExit(cmd); reaped || err != nil {
		t.Fatalf("awaitExit = %v, %v; want false, nil", reaped, err)
	}
	if err := syscall.Kill(pid, 0); err != nil || !gone(pid) {
		t.Errorf("after awaitExit, process %d: kill 0 = %v, gone = %v; want a zombie", pid, err, gone(pid))
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit code after awaitExit = %d, want 3", code)
	}
}
