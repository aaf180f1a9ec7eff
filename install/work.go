package install

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// work is what an Add reports of its work with the skills it found, with
// WithProgress, on one line as a download's progress (progress): how
// many skills were checked, then how many were copied (staged beside
// their canonical copies) and their bytes, then how many were put in
// place for the agents. It shows nothing for the first second, pauses while a
// download reports its own progress, and clears its line when the Add
// ends. Its counters are safe to update from any goroutine; a nil *work
// counts nothing.
type work struct {
	in     *Installer
	once   sync.Once
	p      atomic.Pointer[progress] // started by the first count
	phases [workPhases]struct{ total, done atomic.Int64 }
	bytes  atomic.Int64 // of the skills copied
	paused atomic.Int32
}

// The phases of an Add's work, in their order.
const (
	workChecking   = iota // the skills found are checked
	workCopying           // their canonical copies are staged
	workInstalling        // they are put in place for the agents
	workPhases
)

type workKey struct{}

// startWork returns a context under which the call's work is reported,
// when the installer reports progress, and the function that ends the
// report.
func (in *Installer) startWork(ctx context.Context) (context.Context, func()) {
	if in.progress == nil {
		return ctx, func() {}
	}
	w := &work{in: in}
	return context.WithValue(ctx, workKey{}, w), w.end
}

// workOf returns the work ctx reports, or nil.
func workOf(ctx context.Context) *work {
	w, _ := ctx.Value(workKey{}).(*work)
	return w
}

// begin starts the report, once: a call that finds no skill starts no
// clock.
func (w *work) begin() {
	w.once.Do(func() {
		p := &progress{w: w.in.progress}
		p.line = w.line
		w.p.Store(p.run(w.in.clock))
	})
}

// line is the report's line: the latest phase begun, or "" while
// nothing is counted or a download reports.
func (w *work) line() string {
	const erase = "\x1b[K" // the rest of a longer line shown before
	if w.paused.Load() > 0 {
		return ""
	}
	for ph := workPhases - 1; ph >= 0; ph-- {
		total, done := w.phases[ph].total.Load(), w.phases[ph].done.Load()
		switch {
		case total == 0:
			continue
		case ph == workCopying:
			return fmt.Sprintf("copying: %d of %d skills, %.1f MiB", done, total, float64(w.bytes.Load())/(1<<20)) + erase
		case ph == workInstalling:
			return fmt.Sprintf("installing: %d of %d skills", done, total) + erase
		}
		return fmt.Sprintf("checking: %d of %d skills", done, total) + erase
	}
	return ""
}

// expect counts n skills more for the phase ph, and starts the report.
func (w *work) expect(ph, n int) {
	if w != nil && n > 0 {
		w.phases[ph].total.Add(int64(n))
		w.begin()
	}
}

// did counts a skill done in the phase ph, of size bytes copied.
func (w *work) did(ph int, size int64) {
	if w != nil {
		w.phases[ph].done.Add(1)
		w.bytes.Add(size)
	}
}

// pause stops showing the line, clearing it, until resume is called.
func (w *work) pause() (resume func()) {
	if w == nil {
		return func() {}
	}
	w.paused.Add(1)
	if p := w.p.Load(); p != nil {
		p.clear()
	}
	return func() { w.paused.Add(-1) }
}

// end stops the report and clears its line.
func (w *work) end() {
	w.once.Do(func() {}) // after begin, if it ran
	if p := w.p.Load(); p != nil {
		p.halt()
		p.clear()
	}
}

// startDownload starts the progress report of the download of what,
// pausing the report of the call's work (ctx) until its done.
func (in *Installer) startDownload(ctx context.Context, what string) *progress {
	resume := workOf(ctx).pause()
	p := startProgress(in.progress, what, in.clock)
	p.after = resume
	return p
}
