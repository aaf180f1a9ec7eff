//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own and makes stopping
// it kill the whole group: git's helpers (git-remote-http, ssh) would
// otherwise go on waiting for a server after git is gone.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
