package process

import (
	"os"
	"os/exec"
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

// guardScript is what the guard runs: it ignores the signals Run sends to
// stop the program politely, waits for the end of its standard input, and
// then kills its process group, which is the program's.
const guardScript = `trap "" INT TERM HUP; read -r _; kill -KILL 0`

// guard is a shell in the program's process group that kills the group
// when this process dies (rule 10): its standard input is a pipe whose
// only writer is this process, so it reads the end of it when this process
// dies, however it dies. It is a member of the group, so the group's id
// cannot be reused while it waits. Run kills it with the group and reaps
// it before closing the pipe.
type guard struct {
	cmd *exec.Cmd
	w   *os.File
}

// start starts the guard in the group pgid, the program's. Without a
// shell, or if the group is gone, there is no guard: the program still
// dies with this process, only its group may not.
func (g *guard) start(pgid int, tag string) {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:        "/bin/sh",
		Args:        []string{"sh", "-c", guardScript},
		Env:         []string{tag},
		Dir:         "/",
		Stdin:       r,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pgid: pgid},
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return
	}
	g.cmd, g.w = cmd, w
}

// stop reaps the guard, which the group's SIGKILL has killed, and closes
// its pipe.
func (g *guard) stop() {
	if g.cmd == nil {
		return
	}
	// An error only says how the guard ended: killed.
	_ = g.cmd.Wait()
	g.w.Close()
}
