package registrytest

import (
	"os/exec"
	"runtime"
	"syscall"
)

// start starts cmd so that it dies with the test process: with a
// parent-death signal, which the kernel sends when the thread that forked
// it ends, from a goroutine locked to its thread until it has waited for
// the registry (as package internal/process starts agents).
func start(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}
