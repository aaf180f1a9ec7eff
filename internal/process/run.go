package process

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// tagVar is the environment variable that marks a run's processes.
const tagVar = "AGENTADAPTOR_PROCESS_TAG"

// Defaults of the optional fields of [Command].
const (
	DefaultGrace      = 5 * time.Second
	DefaultStderrTail = 16 << 10
	DefaultMaxLine    = 64 << 20
)

// MaxStderrLine is the longest line of standard error passed to
// [Command.StderrLine], in bytes; the rest of a longer line is dropped.
const MaxStderrLine = 4 << 10

// Command describes one run of a program.
type Command struct {
	// Path is the program to run: an absolute path, or one the caller has
	// looked up. A relative path is relative to Dir.
	Path string
	// Args are the arguments, without the program name.
	Args []string
	// Dir is the working folder; "" means the caller's.
	Dir string
	// Env is the whole environment; nil means [os.Environ].
	Env []string
	// Stdin is written to standard input, which is then closed.
	Stdin string
	// Grace is the time between SIGINT and SIGKILL when Run stops the
	// program, and about the longest Run waits, once the group is dead, for
	// a pipe held open by a process outside it; 0 or less means
	// [DefaultGrace].
	Grace time.Duration
	// StderrTail is how many bytes of the end of standard error are kept; 0
	// or less means [DefaultStderrTail].
	StderrTail int
	// MaxLine is the longest line of standard output accepted, in bytes,
	// not counting its ending; 0 or less means [DefaultMaxLine].
	MaxLine int
	// Overlong, if not nil, is called with the length of each line of
	// standard output longer than MaxLine, which is skipped. It is called
	// from the goroutine that calls the line callback, never concurrently
	// with it.
	Overlong func(size int)
	// StderrLine, if not nil, is called with each line of standard error
	// as it arrives (rule 12), from one goroutine, never concurrently with
	// itself; the tail (StderrTail) is kept all the same. Default nil.
	StderrLine func(line string)
}

// Exit is how a program ended.
type Exit struct {
	// Code is the exit status; -1 when the program was ended by a signal or
	// was not started.
	Code int
	// Signal is the name of the signal that ended the program, such as
	// "interrupt" or "killed"; "" when it exited by itself.
	Signal string
	// Stderr is the end of the program's standard error: at most
	// [Command.StderrTail] bytes of valid UTF-8 (invalid bytes are replaced
	// by U+FFFD, and a cut never splits a character).
	Stderr string
}

// Run starts c and calls line for every non-empty line of its standard
// output, without the line ending, then waits for the program and returns
// how it ended. The slice passed to line is valid only during the call.
// Lines split across reads are reassembled, and a final line without a
// newline is delivered too. line may be nil; it should return promptly, as
// Run waits for it.
//
// A non-zero exit status is not an error: the returned [Exit] tells how the
// program ended, and it is filled in whenever the program was started, even
// when the error is not nil. Run returns an error when the program cannot
// be started (wrapping the error of [os/exec]), when ctx is done before the
// program has exited (wrapping ctx.Err() and [context.Cause]), and when
// line returns an error (that error as it is). In the last two cases the
// program is stopped as the package's rules say. If line or
// [Command.Overlong] panics, the program is stopped the same way, and Run
// panics with the same value once it is gone.
func Run(ctx context.Context, c Command, line func([]byte) error) (Exit, error) {
	c = c.withDefaults()
	if line == nil {
		line = func([]byte) error { return nil }
	}
	if ctx.Err() != nil {
		return Exit{Code: -1}, stopped(ctx, c.Path)
	}
	r, err := start(c)
	if err != nil {
		return Exit{Code: -1}, err
	}
	r.serve(line)
	cause := r.watch(ctx)
	r.finish()
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.outcome(cause)
}

// running is one started program and what Run keeps of it until it
// returns. Its goroutines write reaped and waitErr before exited is closed,
// and panicked before wg is done; Run reads them only after that.
type running struct {
	c      Command
	cmd    *exec.Cmd
	tag    string // the environment entry that marks its processes (rule 9)
	p      pipes
	wg     sync.WaitGroup // every goroutine serve starts
	halt   atomic.Bool    // Run is stopping the program: no more callbacks
	end    ending
	tail   tailBuffer
	exited chan struct{} // closed once the program has exited
	since  uint64        // when the program started, in clock ticks after boot (Linux; rule 11)
	guard  guard         // what kills the group when this process dies (Linux; rule 10)

	lineErr  chan error // the first error of the line callback
	reaped   bool       // awaitExit reaped the program
	waitErr  error      // awaitExit's error
	panicMu  sync.Mutex // guards panicked, which two readers may set
	panicked any        // what line, Overlong or StderrLine panicked with
}

// start starts the program of c, tagged (rule 9), in a group of its own
// (rule 1) and, on Linux, bound to die with this process (rule 10), with
// its standard streams on fresh pipes.
func start(c Command) (*running, error) {
	// Rule 9: the tag marks every descendant, whatever group it moves to.
	tag := tagVar + "=" + rand.Text()
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(slices.Clip(env), tag)
	r := &running{
		c:       c,
		tag:     tag,
		end:     ending{done: make(chan struct{}), grace: c.Grace},
		tail:    tailBuffer{max: c.StderrTail},
		exited:  make(chan struct{}),
		lineErr: make(chan error, 1),
	}
	if err := r.p.open(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	r.cmd = &exec.Cmd{
		Path:        c.Path,
		Args:        append([]string{c.Path}, c.Args...),
		Dir:         c.Dir,
		Env:         env,
		Stdin:       r.p.inR,
		Stdout:      r.p.outW,
		Stderr:      r.p.errW,
		SysProcAttr: procAttr(),
	}
	err := r.launch()
	r.p.closeChildEnds()
	if err != nil {
		r.p.closeParentEnds()
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	r.guard.start(r.cmd.Process.Pid, tag)
	return r, nil
}

// serve starts the goroutines that write the program's standard input
// (rule 7), pass its standard output to line (rule 4) and keep the tail of
// its standard error (rule 5).
func (r *running) serve(line func([]byte) error) {
	if r.c.Stdin == "" {
		r.p.inW.Close()
	} else {
		r.wg.Go(func() {
			// An error is expected when the program exits without reading
			// everything; it is none of the caller's business.
			_, _ = io.WriteString(r.p.inW, r.c.Stdin)
			r.p.inW.Close()
		})
	}
	r.wg.Go(func() { r.readLines(line) })
	r.wg.Go(r.readStderr)
}

// readStderr keeps the tail of standard error (rule 5) and, when the
// caller asked for them, passes its lines to StderrLine until Run halts
// the program (rule 12). A panic of StderrLine halts the program.
func (r *running) readStderr() {
	defer r.recoverCallback()
	var w io.Writer = &r.tail
	var lines *stderrLines
	if r.c.StderrLine != nil {
		lines = &stderrLines{tail: &r.tail, line: func(s string) {
			if !r.halt.Load() {
				r.c.StderrLine(s)
			}
		}}
		w = lines
	}
	// The writers never fail, so only the pipe can end the copy.
	_, _ = io.Copy(w, &pipeReader{f: r.p.errR, end: &r.end})
	if lines != nil {
		lines.flush()
	}
}

// readLines calls line for each line of standard output, and Overlong for
// each line too long, until Run halts the program; the rest of the output
// is read and dropped. An error or a panic of either halts the program.
func (r *running) readLines(line func([]byte) error) {
	defer r.recoverCallback()
	emit := func(b []byte) {
		if r.halt.Load() {
			return
		}
		if err := line(b); err != nil {
			r.halt.Store(true)
			r.lineErr <- err
		}
	}
	overlong := func(size int) {
		if r.c.Overlong != nil && !r.halt.Load() {
			r.c.Overlong(size)
		}
	}
	scanLines(&pipeReader{f: r.p.outR, end: &r.end}, r.c.MaxLine, emit, overlong)
}

// recoverCallback, deferred by readLines, keeps what a callback panicked
// with and has the program stopped; Run panics with it at the end.
func (r *running) recoverCallback() {
	if v := recover(); v != nil {
		r.panicMu.Lock()
		if r.panicked == nil {
			r.panicked = v
		}
		r.panicMu.Unlock()
		r.halt.Store(true)
		select {
		case r.lineErr <- errPanicked:
		default:
		}
	}
}

// watch waits until the program exits, ctx is done or the line callback
// fails. In the last two cases it stops the program (rule 2) and returns
// why; it returns once the program has exited.
func (r *running) watch(ctx context.Context) (cause error) {
	select {
	case <-r.exited:
	case <-ctx.Done():
		cause = stopped(ctx, r.c.Path)
	case cause = <-r.lineErr:
	}
	if cause != nil {
		r.halt.Store(true)
		stop(r.cmd.Process, r.exited, r.c.Grace)
	}
	return cause
}

// finish kills what is left of the program's group (rule 3), with the
// guard (rule 10), its tagged descendants (rule 9) and its orphans (rule
// 11), reaps the program, bounds the reading of pipes held by escaped
// processes (rule 8), and waits for every goroutine of the run before
// closing the pipes (rule 6).
func (r *running) finish() {
	kill(r.cmd.Process)
	r.guard.stop()
	sweep(r.tag)
	reapOrphans(r.cmd.Process.Pid, r.since, r.tag)
	if !r.reaped {
		r.waitErr = r.cmd.Wait()
	}
	r.end.begin(&r.p)
	r.wg.Wait()
	r.p.closeParentEnds()
}

// outcome is what Run returns for a finished run that cause, if not nil,
// stopped: how the program ended and the first error among cause, the line
// callback's and waiting's.
func (r *running) outcome(cause error) (Exit, error) {
	if cause == nil {
		select {
		case cause = <-r.lineErr:
		default:
		}
	}
	exit := Exit{Code: -1, Stderr: r.tail.String()}
	if st := r.cmd.ProcessState; st != nil {
		exit.Code = st.ExitCode()
		exit.Signal = signalName(st)
	}
	if _, ok := errors.AsType[*exec.ExitError](r.waitErr); r.waitErr != nil && !ok && cause == nil {
		cause = fmt.Errorf("wait for %s: %w", r.c.Path, r.waitErr)
	}
	return exit, cause
}

func (c Command) withDefaults() Command {
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.StderrTail <= 0 {
		c.StderrTail = DefaultStderrTail
	}
	if c.MaxLine <= 0 {
		c.MaxLine = DefaultMaxLine
	}
	return c
}

// stop interrupts the program's group, and kills it if the program has not
// exited after grace (rule 2). It returns once the program has exited.
func stop(p *os.Process, exited <-chan struct{}, grace time.Duration) {
	interrupt(p)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		kill(p)
		<-exited
	}
}

// errPanicked stops the program when the line callback panics; Run then
// panics in turn.
var errPanicked = errors.New("line callback panicked")

// stopped is the error of a run that ctx ended.
func stopped(ctx context.Context, path string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("run %s: %w: %w", path, err, cause)
	}
	return fmt.Errorf("run %s: %w", path, err)
}

// pipes are the program's standard input, output and error. The child ends
// are closed once the program has started (it holds its own copies), the
// parent ends when Run returns.
type pipes struct {
	inR, inW   *os.File
	outR, outW *os.File
	errR, errW *os.File
}

func (p *pipes) open() error {
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.inR.Close()
		p.inW.Close()
		return err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.inR.Close()
		p.inW.Close()
		p.outR.Close()
		p.outW.Close()
		return err
	}
	return nil
}

func (p *pipes) closeChildEnds() {
	p.inR.Close()
	p.outW.Close()
	p.errW.Close()
}

// closeParentEnds closes the ends Run keeps. The standard input writer may
// have closed its end already; closing twice only returns an error.
func (p *pipes) closeParentEnds() {
	p.inW.Close()
	p.outR.Close()
	p.errR.Close()
}

// ending tells the pipe readers that the group is dead, and so that any
// writer left is a process outside it, not worth waiting for long.
type ending struct {
	done  chan struct{} // closed once the group is dead
	at    time.Time     // when; written before done is closed
	grace time.Duration // how long the readers may still wait in Read
}

// begin records that the group is dead: it aborts a write to standard input
// (nobody is left to read it) and bounds reads already waiting.
func (e *ending) begin(p *pipes) {
	e.at = time.Now()
	close(e.done)
	// Where deadlines are not supported (Windows pipes) these fail, and the
	// readers wait for the end of the pipe.
	_ = p.inW.SetWriteDeadline(e.at)
	_ = p.outR.SetReadDeadline(e.at.Add(e.grace))
	_ = p.errR.SetReadDeadline(e.at.Add(e.grace))
}

func (e *ending) dead() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// pipeReader reads a pipe of the program. Once the group is dead it spends
// at most the grace period, in total, waiting in Read: data already in the
// pipe comes at once however slowly the caller consumes it, but a pipe kept
// open and quiet by a process outside the group ends the reading.
type pipeReader struct {
	f    *os.File
	end  *ending
	used time.Duration // time spent in Read since the group died
}

func (r *pipeReader) Read(b []byte) (int, error) {
	start := time.Now()
	if r.end.dead() {
		_ = r.f.SetReadDeadline(start.Add(r.end.grace - r.used))
	}
	n, err := r.f.Read(b)
	if r.end.dead() {
		from := start
		if from.Before(r.end.at) {
			from = r.end.at
		}
		r.used += time.Since(from)
	}
	return n, err
}
