package audit

import (
	"fmt"
	"io/fs"
	"strings"
)

// TreeExhaustive is Tree without the prefilter: every expression runs on
// every line. The prefilter's findings must be its findings.
func TreeExhaustive(fsys fs.FS) (Report, error) {
	return scanTree(fsys, true, treeWorkers(), serialBytes)
}

// TreeWorkers is Tree with the files scanned by that many goroutines at
// most from the first (1: the calling goroutine scans them, one after
// the other).
func TreeWorkers(fsys fs.FS, workers int) (Report, error) { return scanTree(fsys, false, workers, 0) }

// TreeWorkersAfter is TreeWorkers with the first serial bytes of the
// tree scanned by the calling goroutine, as Tree does with SerialBytes.
func TreeWorkersAfter(fsys fs.FS, workers, serial int) (Report, error) {
	return scanTree(fsys, false, workers, serial)
}

// SerialBytes is how much of a tree Tree scans on the calling goroutine.
const SerialBytes = serialBytes

// MaxPlaces is how many places that may hide a character a file's
// survey lists.
const MaxPlaces = maxPlaces

// LineConditions returns each line expression's pattern and the
// prefilter's condition for it.
func LineConditions() (patterns, conds []string) {
	for i, e := range lineExprs {
		patterns = append(patterns, e.String())
		conds = append(conds, lineFilter().Condition(i))
	}
	return patterns, conds
}

// Keywords returns the strings the prefilter looks for.
func Keywords() []string { return lineFilter().Strings() }

// FindAnchored returns what findAnchored finds of line expression i in
// t, whether it decides, and what the expression finds over all of t.
func FindAnchored(i int, t string) (got []int, decided bool, want []int) {
	e := lineExprs[i]
	if got, decided = findAnchored(e, t); decided {
		want = e.FindStringIndex(t)
	}
	return got, decided, want
}

// AnchoredRead returns how many bytes the anchored runs of line
// expression i read in t, and whether findAnchored decided.
func AnchoredRead(i int, t string) (read int, decided bool) {
	_, decided, read = findAnchoredRead(lineExprs[i], t)
	return read, decided
}

// AnchoredBudget is how many times a text's length anchored runs may
// read.
const AnchoredBudget = anchoredBudget

// AnchoredMin is the length from which an expression runs anchored.
const AnchoredMin = anchoredMin

// HandCheck is a matcher or a finder written by hand and the
// expression it stands for: Check returns what each of them gives of a
// text.
type HandCheck struct {
	Name, Pattern string
	Check         func(text string) (got, want any)
}

// HandChecks returns every matcher and finder written by hand.
func HandChecks() []HandCheck {
	var cs []HandCheck
	for _, e := range lineExprs {
		e := e
		if e.quick != nil {
			cs = append(cs, HandCheck{"MatchString", e.String(), func(t string) (any, any) { return e.quick(t), e.MatchString(t) }})
		}
		if e.index != nil {
			cs = append(cs, HandCheck{"FindStringIndex", e.String(), func(t string) (any, any) { return e.index(t), e.FindStringIndex(t) }})
		}
	}
	all, some := &scanner{exhaustive: true}, &scanner{}
	return append(cs,
		HandCheck{"the first .env file", dotEnv.String(), func(t string) (any, any) { return firstEnvFile(t), envFile(t) }},
		HandCheck{"MatchString", redefined.String(), func(t string) (any, any) { return matchRedefined(t), redefined.MatchString(t) }},
		HandCheck{"onlyWrapper", wrapperWords.String(), func(t string) (any, any) { return some.onlyWrapper(t), all.onlyWrapper(t) }},
		HandCheck{"decodeSites", decodeSite.String(), func(t string) (any, any) { return some.decodeSites(t), all.decodeSites(t) }},
		HandCheck{"what a payload's decode starts with", decodeArg.String(), func(t string) (any, any) {
			// A necessary condition: it holds where decodeArg matches.
			m := decodeArg.MatchString(t)
			return m && mayDecodeArg(t), m
		}},
		HandCheck{"the payloads decoded", decodeArg.String(), func(t string) (any, any) {
			return some.decodeArgs(t), all.decodeArgs(t)
		}},
		HandCheck{"the hosts aimed at", targetHost.String(), func(t string) (any, any) {
			var got, want []string
			some.targetHosts(t, func(h string) bool { got = append(got, h); return true })
			all.targetHosts(t, func(h string) bool { want = append(want, h); return true })
			return got, want
		}},
		HandCheck{"undoIn", notAsked.String(), func(t string) (any, any) {
			return undoIn(t), notAsked.MatchString(t) || askedAnyway.MatchString(t)
		}},
		HandCheck{"undoIn", askedAnyway.String(), func(t string) (any, any) {
			return undoIn(t), notAsked.MatchString(t) || askedAnyway.MatchString(t)
		}},
		HandCheck{"the asks askedFirst reads", askUser.String(), func(t string) (any, any) {
			asks, _ := askRunSpans(t, 0, len(t), nil, nil)
			var got [][]int
			for n := 0; n < len(asks); n += 2 {
				if a := int(asks[n]); len(got) == 0 || a >= got[len(got)-1][1] {
					got = append(got, []int{a, int(asks[n+1])})
				}
			}
			return got, askUser.FindAllStringIndex(t, -1)
		}},
		HandCheck{"a word of running in a sentence", aboutRunning.String(), func(t string) (any, any) {
			// The sentences asked, each a start and an end: the whole
			// text; from after each end of a sentence or space (., !,
			// ?, a space, a newline) to the text's end; and from each
			// of these bytes at or before the middle one to it, or,
			// when they are even in number, to just after the last of
			// the first half.
			var ends []int
			for k := range len(t) {
				if strings.IndexByte(".!? \n", t[k]) >= 0 {
					ends = append(ends, k)
				}
			}
			mid := 0
			if m := len(ends); m%2 == 1 {
				mid = ends[m/2]
			} else if m > 0 {
				mid = ends[m/2-1] + 1
			}
			sentences := [][2]int{{0, len(t)}}
			for _, k := range ends {
				if k <= mid {
					sentences = append(sentences, [2]int{k, mid})
				}
				sentences = append(sentences, [2]int{k + 1, len(t)})
			}
			_, runs := askRunSpans(t, 0, len(t), nil, nil)
			var got, want [][2]int // the sentences that have one
			for _, c := range sentences {
				lo, hi := c[0], c[1]
				in := false
				for r := 0; r < len(runs); r += 2 {
					in = in || int(runs[r]) >= lo && int(runs[r+1]) <= hi
				}
				if in {
					got = append(got, c)
				}
				if aboutRunning.MatchString(t[lo:hi]) {
					want = append(want, c)
				}
			}
			return got, want
		}},
		HandCheck{"a first end", prerequisite.String(), func(t string) (any, any) {
			return firstEnd(t, 0, len(t), prerequisiteEnd) >= 0, prerequisite.MatchString(t)
		}},
		HandCheck{"a first end, with newlines for spaces", prerequisite.String(), func(t string) (any, any) {
			t = strings.ReplaceAll(t, " ", "\n")
			return firstEnd(t, 0, len(t), prerequisiteEnd) >= 0, prerequisite.MatchString(t)
		}},
		HandCheck{"a first end", archivePassword.String(), func(t string) (any, any) {
			return firstEnd(t, 0, len(t), passwordEnd) >= 0, archivePassword.MatchString(t)
		}},
		HandCheck{"a routable IPv4 address", ipv4.String(), func(t string) (any, any) {
			want := false
			for _, m := range ipv4.FindAllStringSubmatch(t, -1) {
				want = want || routable(m[1:])
			}
			return routableIn(t), want
		}},
	)
}

// TreeOneKeeper is the reference Tree is held to: the files read and
// scanned one after the other, in the order fs.WalkDir walks them, every
// finding given to one keeper, which applies the caps as it goes, and
// rule 23's once every file has been read.
func TreeOneKeeper(fsys fs.FS) (Report, error) {
	s := &scanner{fsys: fsys, union: lineFilter().NewHits()}
	var runs []fileRuns
	held := 0
	files := 0
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if d.IsDir() {
			return nil
		}
		if files++; files > maxFiles {
			return tooManyFiles()
		}
		s.buf = s.buf[:0]
		data, mode, text, err := s.readEntry(name, d)
		if err == nil && text {
			s.runs, s.runsOver = nil, false
			s.content(name, mode, data)
			runs = holdRuns(runs, &held, name, s.runs)
		}
		return err
	})
	if err != nil {
		return Report{}, err
	}
	reportHeld(runs, s.bundled, func(file string, r pathRun, msg string) {
		if s.keep.admit(ruleDirectRun, file, r.line) {
			s.keep.keep(Finding{Rule: ruleDirectRun, Severity: severities[ruleDirectRun], File: file, Line: r.line, Excerpt: r.excerpt, Message: msg})
		}
	})
	sortFindings(s.keep.kept)
	return Report{Findings: s.keep.kept, Omitted: s.keep.omittedCounts()}, nil
}

// LinesRead returns how many lines (and pieces of long lines) the audit
// reads one at a time in a text file name whose content is text.
func LinesRead(name, text string) int {
	s := &scanner{union: lineFilter().NewHits(), keep: keeper{perFile: true}}
	s.content(name, 0o644, text)
	return s.linesRead
}

// MaxWait is the longest wait between the searches for the next line
// that is not quiet, in batches of lines.
const MaxWait = maxWait

// QuietSearches returns how many lines the audit reads one at a time in
// a text file name whose content is text, and how many searches for the
// next line that is not quiet it makes.
func QuietSearches(name, text string) (lines, searches int) {
	s := &scanner{union: lineFilter().NewHits(), keep: keeper{perFile: true}}
	s.content(name, 0o644, text)
	return s.linesRead, s.quiet.searches
}

// Quiet reports whether a line of a Markdown file that rule 23 reads, in
// a file that may fold and hide, is quiet: it holds none of the
// prefilter's strings and no mark.
func Quiet(l string) bool {
	var q quiet
	hides := newHideCursor(l, surveyText(l, nil, maxPlaces))
	q.start(l, lineFilter(), true, true, true, &hides)
	return q.passTo(0) == len(l)
}
