//go:build !linux

package process

// launch starts the program and the goroutine that waits for it to exit.
// Nothing binds the program to this process (rule 10 is Linux only).
func (r *running) launch() error {
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.wg.Go(func() {
		r.reaped, r.waitErr = awaitExit(r.cmd)
		close(r.exited)
	})
	return nil
}

// guard does nothing (rule 10 is Linux only).
type guard struct{}

func (guard) start(pgid int, tag string) {}
func (guard) stop()                      {}
