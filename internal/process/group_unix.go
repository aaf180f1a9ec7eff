//go:build unix

package process

import (
	"os"
	"syscall"
)

// procAttr puts the program in a process group of its own (rule 1).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// interrupt sends SIGINT to the program's group.
func interrupt(p *os.Process) {
	// ESRCH only says that the group is already gone.
	_ = syscall.Kill(-p.Pid, syscall.SIGINT)
}

// kill sends SIGKILL to the program's group.
func kill(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// signalName names the signal that ended a program, or returns "".
func signalName(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
