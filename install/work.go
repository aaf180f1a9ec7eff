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
	in      *Installer
	once    sync.Once
	p       atomic.Pointer[progress] // started by the first count
	found   atomic.Int64
	checked atomic.Int64
	copying atomic.Int64
	copied  atomic.Int64
	bytes   atomic.Int64
	placing atomic.Int64
	placed  atomic.Int64
	paused  atomic.Int32
}

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

// line is the report's line: "" while nothing is counted or a download
// reports.
func (w *work) line() string {
	const erase = "\x1b[K" // the rest of a longer line shown before
	switch {
	case w.paused.Load() > 0:
		return ""
	case w.placing.Load() > 0:
		return fmt.Sprintf("installing: %d of %d skills", w.placed.Load(), w.placing.Load()) + erase
	case w.copying.Load() > 0:
		return fmt.Sprintf("copying: %d of %d skills, %.1f MiB", w.copied.Load(), w.copying.Load(), float64(w.bytes.Load())/(1<<20)) + erase
	case w.found.Load() > 0:
		return fmt.Sprintf("checking: %d of %d skills", w.checked.Load(), w.found.Load()) + erase
	}
	return ""
}

// find counts n skills found, to be checked.
func (w *work) find(n int) {
	if w != nil && n > 0 {
		w.found.Add(int64(n))
		w.begin()
	}
}

// check counts a skill checked.
func (w *work) check() {
	if w != nil {
		w.checked.Add(1)
	}
}

// copy counts n skills to copy into place.
func (w *work) copy(n int) {
	if w != nil && n > 0 {
		w.copying.Add(int64(n))
		w.begin()
	}
}

// copiedOne counts a skill copied, of size bytes.
func (w *work) copiedOne(size int64) {
	if w != nil {
		w.copied.Add(1)
		w.bytes.Add(size)
	}
}

// place counts n skills to put in place for the agents.
func (w *work) place(n int) {
	if w != nil && n > 0 {
		w.placing.Add(int64(n))
		w.begin()
	}
}

// placedOne counts a skill put in place.
func (w *work) placedOne() {
	if w != nil {
		w.placed.Add(1)
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
