// Command peakrss runs a command and writes its peak resident size, in
// bytes, to a file: peakrss OUT COMMAND [ARG]...; it exits with the
// command's status. A test cannot read that of a process it starts
// itself: Go starts a process sharing its parent's memory until exec
// (vfork), and Linux counts the parent's peak in the child's. This small
// program, started fresh, adds only its own few MiB.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss OUT COMMAND [ARG]...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d\n", ru.Maxrss<<10), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
