package audit

import (
	"fmt"
	"io/fs"
	"runtime"
	"sync"
)

// maxWorkers bounds the goroutines that scan a tree's files at once
// (see "Limits" and "Speed" in the package doc).
const maxWorkers = 4

// batchBytes is the size a batch of files fills before it is scanned:
// files smaller than it go to a scanning goroutine several at a time, so
// that handing them over costs little beside scanning them.
const batchBytes = 64 << 10

// maxBatchFiles bounds the files of a batch, which hold their findings
// until the batch is merged.
const maxBatchFiles = 256

// serialBytes is how much of a tree the calling goroutine scans itself
// before it hands batches on to other goroutines: a skill's tree is
// seldom more, and scanning it on one goroutine takes less CPU time
// (handing batches over and waking goroutines cost 4-10% more on a
// tree of a few MiB), which is what counts on a machine with no core
// idle; past it, a larger tree's wall time is shared among the
// processors.
const serialBytes = 16 << 20

// treeWorkers is how many goroutines [Tree] scans files with: one a
// processor, at most maxWorkers.
func treeWorkers() int { return min(runtime.GOMAXPROCS(0), maxWorkers) }

// treeScan is one audit of a tree. The calling goroutine walks the tree
// and reads its files, in the order [fs.WalkDir] walks them, into
// batches (a buffer and the files it holds); with workers above one,
// other goroutines (started as batches come, at most workers) scan the
// batches' text, and the one that finishes a batch merges it once the
// batches before it are merged (and, with it, the ones after it that
// finished before), so that the findings are merged under the caps in
// the order the files were read: the report is the one of reading and
// scanning the files one after the other. With one worker, and until
// serial bytes of the tree are read (serialBytes), the calling
// goroutine scans each batch itself.
//
// A file's findings are kept by a keeper of its own (perFile: within
// maxPerRule), as a [Scanner]'s are, and merged as [Scanner.Report]
// merges them. A batch keeps its buffer until it is merged, so that the
// batches read and not merged, and the findings they hold, are bounded
// by the buffers (workers+1).
type treeScan struct {
	rd      *scanner // reads the tree; with one worker, scans it too
	workers int
	// serial is how many bytes of the tree rd scans itself before it
	// hands batches on (serialBytes)
	serial int
	// cur is the batch being read into rd.buf; seq numbers the batches
	// in the order they are read.
	cur *batch
	seq int
	// read counts the bytes of the batches handed on or scanned.
	read int
	// work hands batches to the scanning goroutines; started counts
	// them; free holds the buffers of the batches merged, and bufs
	// counts the buffers made (at most workers+1).
	work    chan *batch
	started int
	free    chan []byte
	bufs    int
	wg      sync.WaitGroup

	mu      sync.Mutex
	next    int            // the seq of the batch merged next
	pending map[int]*batch // batches scanned out of order
	keep    keeper         // the tree's findings, merged
	// runs, runsHeld and bundled: the paths run of the tree's files
	// (the first maxRuns) and its programs, merged in order, for rule
	// 23 (runs.go)
	runs     []fileRuns
	runsHeld int
	bundled  []bundled
}

// batch is files of a tree read one after another into one buffer.
type batch struct {
	seq   int
	buf   []byte
	files []batchFile
}

// batchFile is one file of a batch: what the audit found of it while it
// was read, and its text, to scan, when it has one.
type batchFile struct {
	keep keeper
	name string
	mode fs.FileMode
	data string // in the batch's buffer
	text bool   // data is to be scanned (content)
	// rule 23: the paths its commands run, and whether it is a program
	runs    []pathRun
	program []bundled
}

// scanTree audits the tree of fsys, scanning its first serial bytes on
// the calling goroutine and the rest up to workers files at a time (see
// treeScan); with exhaustive set, without the prefilter.
func scanTree(fsys fs.FS, exhaustive bool, workers, serial int) (Report, error) {
	return newTreeScan(fsys, exhaustive, workers, serial).run()
}

// newTreeScan returns the audit of the tree of fsys with workers
// scanning goroutines at most, past its first serial bytes.
func newTreeScan(fsys fs.FS, exhaustive bool, workers, serial int) *treeScan {
	t := &treeScan{workers: max(workers, 1), serial: serial, pending: map[int]*batch{}}
	t.rd = &scanner{fsys: fsys, exhaustive: exhaustive, union: lineFilter().NewHits()}
	if t.workers > 1 {
		t.work = make(chan *batch)
		t.free = make(chan []byte, t.workers+1)
	}
	t.rd.makeRoom = t.room
	return t
}

// run walks the tree, reads and scans it, and returns its report once
// every goroutine it started has ended.
func (t *treeScan) run() (Report, error) {
	t.cur = t.newBatch()
	files := 0
	err := fs.WalkDir(t.rd.fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if d.IsDir() {
			return nil
		}
		files++
		if files > maxFiles {
			return tooManyFiles()
		}
		return t.entry(name, d)
	})
	if err == nil && len(t.cur.files) > 0 {
		t.dispatch(false)
	}
	if t.work != nil {
		close(t.work)
		t.wg.Wait()
	}
	if err != nil {
		return Report{}, err
	}
	// Rule 23, once the tree's programs are known.
	reportHeld(t.runs, t.bundled, func(file string, r pathRun, msg string) {
		if t.keep.admit(ruleDirectRun, file, r.line) {
			t.keep.keep(Finding{Rule: ruleDirectRun, Severity: severities[ruleDirectRun], File: file, Line: r.line, Excerpt: r.excerpt, Message: msg})
		}
	})
	sortFindings(t.keep.kept)
	return Report{Findings: t.keep.kept, Omitted: t.keep.omittedCounts()}, nil
}

// entry reads one file of the tree into the current batch, and hands the
// batch on when it is full.
func (t *treeScan) entry(name string, d fs.DirEntry) error {
	t.rd.keep = keeper{perFile: true}
	data, mode, text, err := t.rd.readEntry(name, d)
	if err != nil {
		return err
	}
	t.cur.files = append(t.cur.files, batchFile{keep: t.rd.keep, name: name, mode: mode, data: data, text: text, program: t.rd.bundled})
	t.rd.keep, t.rd.bundled = keeper{}, nil
	if len(t.rd.buf) >= batchBytes || len(t.cur.files) >= maxBatchFiles {
		t.dispatch(true)
	}
	return nil
}

// room is the reading scanner's makeRoom: the files the buffer holds are
// handed on with it, and reading goes on in another buffer.
func (t *treeScan) room(int) {
	if len(t.cur.files) > 0 {
		t.dispatch(true)
	}
}

// newBatch starts a batch in the buffer of a batch merged, or a new one
// while fewer than workers+1 were made; it waits for one otherwise.
func (t *treeScan) newBatch() *batch {
	b := &batch{seq: t.seq}
	t.seq++
	switch {
	case t.work == nil:
		// One worker: the reading scanner's buffer, scanned already.
		t.rd.buf = t.rd.buf[:0]
		return b
	case t.bufs < t.workers+1:
		select {
		case t.rd.buf = <-t.free:
		default:
			t.bufs++
			t.rd.buf = nil
		}
	default:
		t.rd.buf = <-t.free
	}
	return b
}

// dispatch hands the current batch on to be scanned (or, with one
// worker or until t.serial bytes are read, scans it), and starts the
// next when there are more files.
func (t *treeScan) dispatch(more bool) {
	b := t.cur
	b.buf = t.rd.buf
	t.read += len(b.buf)
	if t.work == nil || t.read <= t.serial {
		t.scan(t.rd, b)
	} else {
		select {
		case t.work <- b:
		default:
			if t.started < t.workers {
				t.started++
				t.wg.Go(t.scanBatches)
			}
			t.work <- b
		}
	}
	if more {
		t.cur = t.newBatch()
	}
}

// scanBatches scans batches until there are no more, with a scanner of
// its own.
func (t *treeScan) scanBatches() {
	s := &scanner{exhaustive: t.rd.exhaustive, union: lineFilter().NewHits()}
	for b := range t.work {
		t.scan(s, b)
	}
}

// scan scans the text of a batch's files with s, and merges the batch.
// The keeper of s is left as it was: with one worker, s is the reading
// scanner, which may be reading a file when its buffer is full.
func (t *treeScan) scan(s *scanner, b *batch) {
	reading, bundled := s.keep, s.bundled
	for i := range b.files {
		f := &b.files[i]
		if f.text {
			s.keep, s.bundled, s.runs, s.runsOver = f.keep, nil, nil, false
			s.content(f.name, f.mode, f.data)
			f.keep, f.data = s.keep, ""
			f.program, f.runs = append(f.program, s.bundled...), s.runs
		}
	}
	s.keep, s.bundled, s.runs, s.runsOver = reading, bundled, nil, false
	t.merge(b)
}

// merge merges the findings of b, and of the batches after it that
// were scanned before it, into the tree's, in the order the batches were
// read.
func (t *treeScan) merge(b *batch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending[b.seq] = b
	for {
		b, ok := t.pending[t.next]
		if !ok {
			return
		}
		delete(t.pending, t.next)
		t.next++
		if t.free != nil {
			t.free <- b.buf[:0] // never full: it holds every buffer made
		}
		b.buf = nil
		for _, f := range b.files {
			t.runs = holdRuns(t.runs, &t.runsHeld, f.name, f.runs)
			t.bundled = append(t.bundled, f.program...)
			for _, found := range f.keep.kept {
				if t.keep.capped(found.Rule) {
					t.keep.keep(found)
				}
			}
			t.keep.omitFrom(&f.keep)
		}
	}
}
