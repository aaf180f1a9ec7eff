package process

import (
	"runtime"
	"syscall"
)

// launch starts the program so that it dies with this process (rule 10),
// and starts the goroutine that waits for it to exit.
//
// The kernel sends the parent-death signal when the thread that forked the
// program exits, not the process, and the Go runtime ends a thread whose
// goroutine exits while locked to it. So the program is started from a
// goroutine locked to its thread, which waits for the program on that same
// thread and unlocks it only once the program has exited: the thread
// cannot exit, or run another goroutine, in between.
func (r *running) launch() error {
	r.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	r.wg.Go(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := r.cmd.Start(); err != nil {
			started <- err
			return
		}
		// The program is our child and not reaped: its entry is its own.
		r.since, _ = startTime(r.cmd.Process.Pid)
		started <- nil
		r.reaped, r.waitErr = awaitExit(r.cmd)
		close(r.exited)
	})
	err := <-started
	if err != nil {
		r.wg.Wait()
	}
	return err
}
