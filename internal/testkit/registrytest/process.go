package registrytest

import (
	"os/exec"
)

// process is a started registry.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once it has exited and been reaped
	err    error         // how it exited, once exited is closed
}

// stop kills the registry and waits for it.
func (p *process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	// It may have exited meanwhile: Wait below reaps it either way.
	_ = p.cmd.Process.Kill()
	<-p.exited
}
