//go:build !unix

package process

import (
	"os"
	"syscall"
)

// procAttr adds nothing: there are no process groups to join.
func procAttr() *syscall.SysProcAttr { return nil }

// interrupt kills the program, for lack of a signal to ask it to stop.
func interrupt(p *os.Process) {
	// An error only says that the program has already finished.
	_ = p.Kill()
}

// kill kills the program; its children are not tracked.
func kill(p *os.Process) {
	_ = p.Kill()
}

// signalName returns "": programs are not ended by signals.
func signalName(*os.ProcessState) string { return "" }
