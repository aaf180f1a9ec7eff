package process

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the program has exited, and leaves it unreaped:
// while it is a zombie its pid, which is also its group id, cannot be
// reused, so the group can still be signalled safely (rule 3). It never
// reaps the program, so it returns false and no error.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		// Another error cannot happen for a child not yet reaped; if it
		// did, the group would be killed early and cmd.Wait would still
		// reap the program.
		if !errors.Is(err, unix.EINTR) {
			return false, nil
		}
	}
}
