package audit

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// maxHeld bounds the findings a [Scanner] holds for the files it was
// given: past it the Scanner drops them, and reports [ErrNotKept].
const maxHeld = 5000

// maxHeldRuns bounds the paths run that a [Scanner] holds for rule 23,
// apart from maxHeld, of the SKILL.md files and of the other files
// each: past it the Scanner holds no more of them, and its reports miss
// only rule 23's findings of the paths it did not hold.
const maxHeldRuns = 10 * maxRuns

// ErrNotKept: a [Scanner] was given more findings than it holds (5,000
// of all its files, kept within the caps of "Limits" in the package doc
// file by file), and dropped them; the caller audits the written tree
// with [Tree] instead. No honest tree comes near: the 1,439 skills of
// "Measured" have about 500 findings in all.
var ErrNotKept = errors.New("too many findings to keep while the tree was written")

// Scanner audits a tree from its entries as a program that writes the
// tree (an extraction, a copy) produces them, so that the audit reads
// the bytes on their way to the disk instead of reading the written
// tree again. Its report is the one [Tree] returns for the tree written
// from the same entries: the same findings, in the same order, under the
// same caps and limits. The rules of a Scanner:
//
//  1. Give it every entry of the tree that is not a folder, once, by its
//     slash-separated path: a regular file with [Scanner.File], a
//     symbolic link with [Scanner.Link], anything else with
//     [Scanner.Special]. A folder needs no entry; an entry left out of
//     the written tree must not be given. A link written as a copy of
//     its target is a regular file, with the target's bytes.
//  2. Entries may come in any order, and from several goroutines at
//     once: each file is audited alone as its writer is closed, and
//     [Scanner.Report] applies the caps in the order [Tree] comes to
//     the files (the order [fs.WalkDir] walks them), so the report
//     does not depend on the order the entries came in.
//  3. A file's bytes are audited as [Tree] reads them: of a file over 8
//     MiB only the first 8 KiB is held; of any other the whole content,
//     once, until its writer is closed. A Scanner fed by n goroutines
//     holds at most n files at once.
//  4. A file's findings are held, within the caps, until the report is
//     made: at most 100 of a rule in one file, and 5,000 in all; past
//     that the Scanner drops what it holds and its report fails with
//     [ErrNotKept]. The paths that rule 23 holds of each file until the
//     tree's programs are known (the first 1,000 of a file) count
//     apart: at most 10,000 of the SKILL.md files and 10,000 of the
//     others, in the order the files came; past that the Scanner drops
//     the paths alone, and a report misses the rule 23 findings of
//     those paths. So a report differs from [Tree]'s, and depends on the
//     order of the entries, only for a tree whose files run more than
//     10,000 paths.
//  5. [Scanner.Report] reports on the whole tree or on one of its
//     folders (a skill inside a repository), with the paths of the
//     findings relative to it, as [Tree] of that folder would, including
//     its limits (10,000 files and 64 MiB read, [ErrTooLarge]) and rule
//     20's SKILL.md at that folder's root.
//
// A Scanner is safe for concurrent use; call Report once every file's
// writer is closed.
type Scanner struct {
	mu    sync.Mutex
	files []streamed
	held  int  // findings held in files
	over  bool // held went past maxHeld: files holds no findings
	// runs and skillRuns: the paths run held of files other than a
	// SKILL.md, and of SKILL.md files, each at most maxHeldRuns.
	runs, skillRuns int
	pool            sync.Pool
}

// streamed is one entry of a Scanner's tree, audited alone.
type streamed struct {
	name string
	read int64 // the bytes Tree reads of it (its total limit)
	// skillMD is rule 20's message for a SKILL.md over maxSkillMD, of
	// whichever folder it is the SKILL.md of; "" when it is not over.
	skillMD string
	found   []Finding // kept under maxPerRule, in the order found
	omitted Omitted   // past maxPerRule
	// runs are the paths its commands run (rule 23, at most maxRuns),
	// and program its interpreter when it is a program to run.
	runs    []pathRun
	program *bundled
}

// NewScanner returns a Scanner of an empty tree.
func NewScanner() *Scanner {
	s := &Scanner{}
	s.pool.New = func() any { return &scanner{union: lineFilter().NewHits()} }
	return s
}

// File returns the writer of the content of the regular file name, of
// mode (only the executable bits count: rule 17) and of size bytes when
// known (-1 when not: it only sizes a buffer). Write the file's bytes to
// it in order as they are written, and Close it once the file is
// complete: Close audits the file and never fails. A writer that is not
// closed (the writing failed) leaves the file out.
func (s *Scanner) File(name string, mode fs.FileMode, size int64) io.WriteCloser {
	w := &fileWriter{s: s, name: name, mode: mode}
	if size > 0 {
		w.b.Grow(int(min(size, maxFileBytes+1)))
	}
	return w
}

// Link gives the Scanner the symbolic link name, to target: rule 19.
func (s *Scanner) Link(name, target string) {
	s.entry(name, 0, Finding{Rule: ruleSymlink, Message: linkMessage(target, true)})
}

// Special gives the Scanner the entry name that is neither a regular
// file, nor a folder nor a symbolic link, of mode (a device, a pipe, a
// socket): rule 19.
func (s *Scanner) Special(name string, mode fs.FileMode) {
	s.entry(name, 0, Finding{Rule: ruleSymlink, Message: specialMessage(mode)})
}

// entry holds an entry whose only finding is f, and of which the audit
// reads read bytes.
func (s *Scanner) entry(name string, read int64, f Finding) {
	f.Severity, f.File = severities[f.Rule], name
	s.hold(streamed{name: name, read: read, found: []Finding{f}})
}

// hold holds the audit of one file.
func (s *Scanner) hold(e streamed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Rule 23's paths past maxHeldRuns are dropped, and they alone.
	held := &s.runs
	if path.Base(e.name) == "SKILL.md" {
		held = &s.skillRuns
	}
	e.runs = e.runs[:min(len(e.runs), maxHeldRuns-*held)]
	*held += len(e.runs)
	n := len(e.found)
	if e.skillMD != "" {
		n++
	}
	if !s.over && s.held+n > maxHeld {
		s.over = true
		for i := range s.files {
			s.files[i].found, s.files[i].skillMD, s.files[i].runs = nil, "", nil
		}
	}
	if s.over {
		e.found, e.skillMD, e.runs = nil, "", nil
	} else {
		s.held += n
	}
	s.files = append(s.files, e)
}

// fileWriter holds a file's bytes as a [Scanner] audits them.
type fileWriter struct {
	s    *Scanner
	name string
	mode fs.FileMode
	n    int64           // bytes written
	b    strings.Builder // the content, or its first sniffBytes once n > maxFileBytes
	big  bool            // n > maxFileBytes
}

func (w *fileWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if !w.big && w.n > maxFileBytes {
		// Only the first bytes tell a program; let the rest go.
		head := w.b.String()
		head = head[:min(len(head), sniffBytes)]
		w.b = strings.Builder{}
		w.b.WriteString(head)
		w.big = true
	}
	if w.big {
		if room := sniffBytes - w.b.Len(); room > 0 {
			w.b.Write(p[:min(len(p), room)])
		}
		return len(p), nil
	}
	return w.b.Write(p)
}

// Close audits the file, as [Tree] does a regular file (scanner.entry).
func (w *fileWriter) Close() error {
	if w.s == nil {
		return nil
	}
	s := w.s
	w.s = nil
	sc := s.pool.Get().(*scanner)
	defer s.pool.Put(sc)
	sc.keep = keeper{perFile: true}
	e := streamed{name: w.name}
	data := w.b.String()
	w.b = strings.Builder{}
	if w.big {
		sc.add(ruleLargeFile, w.name, 0, span{}, largeMessage(w.n))
		sc.bundle(w.name, w.mode, data)
		sc.sniff(w.name, data)
	} else {
		if path.Base(w.name) == "SKILL.md" && len(data) > maxSkillMD {
			e.skillMD = skillMDMessage(len(data))
		}
		sc.content(w.name, w.mode, data)
	}
	e.read = int64(len(data))
	e.found, e.omitted = sc.keep.kept, sc.keep.omittedCounts()
	e.runs = sc.runs
	if len(sc.bundled) > 0 {
		e.program = &sc.bundled[0]
	}
	sc.keep, sc.runs, sc.runsOver, sc.bundled = keeper{}, nil, false, nil // runsOver: no more held of the file
	s.hold(e)
	return nil
}

// Report returns the report of the folder dir of the tree ("." for the
// whole tree), with paths relative to it: what [Tree] returns for that
// folder of the tree written from the entries given (rule 5), or its
// error ([ErrTooLarge]); or [ErrNotKept] when the Scanner dropped its
// findings (rule 4).
func (s *Scanner) Report(dir string) (Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over {
		return Report{}, ErrNotKept
	}
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	type file struct {
		rel string
		e   *streamed
	}
	var files []file
	for i := range s.files {
		if rel, ok := strings.CutPrefix(s.files[i].name, prefix); ok {
			files = append(files, file{rel, &s.files[i]})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return walkOrder(a.rel, b.rel) })
	var k keeper
	take := func(f Finding, rel string) {
		if k.capped(f.Rule) {
			f.File = rel
			k.keep(f)
		}
	}
	var total int64
	for n, f := range files {
		if n+1 > maxFiles {
			return Report{}, tooManyFiles()
		}
		if total += f.e.read; total > maxTotalBytes {
			return Report{}, tooManyBytes()
		}
		if f.rel == "SKILL.md" && f.e.skillMD != "" {
			take(Finding{Rule: ruleLargeFile, Severity: severities[ruleLargeFile], Message: f.e.skillMD}, f.rel)
		}
		for _, found := range f.e.found {
			take(found, f.rel)
		}
		k.omit(f.e.omitted)
	}
	// Rule 23, once the tree's files are known, as Tree reports it:
	// after every other rule, in the order of the files.
	var bundled []bundled
	var held []fileRuns
	runs := 0
	for _, f := range files {
		if f.e.program != nil {
			bundled = append(bundled, *f.e.program)
			bundled[len(bundled)-1].name = f.rel
		}
		held = holdRuns(held, &runs, f.rel, f.e.runs)
	}
	reportHeld(held, bundled, func(file string, r pathRun, msg string) {
		take(Finding{Rule: ruleDirectRun, Severity: severities[ruleDirectRun], Line: r.line, Excerpt: r.excerpt, Message: msg}, file)
	})
	sortFindings(k.kept)
	return Report{Findings: k.kept, Omitted: k.omittedCounts()}, nil
}

// walkOrder compares two paths of a tree in the order [fs.WalkDir] comes
// to them: element by element, each folder's names sorted.
func walkOrder(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			switch {
			case a[i] == '/':
				return -1
			case b[i] == '/':
				return 1
			}
			return cmp.Compare(a[i], b[i])
		}
	}
	return cmp.Compare(len(a), len(b))
}
