//go:build !linux

package process

import "os/exec"

// awaitExit waits for the program and reaps it: without a way to wait and
// leave the program a zombie, its group is killed just after, which is
// racy but best effort (rule 3).
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}
