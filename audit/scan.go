package audit

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
)

// The audit's limits, as the package doc's "Limits" says.
const (
	maxFiles      = 10000
	maxTotalBytes = 64 << 20
	maxFileBytes  = 8 << 20
	maxSkillMD    = 1 << 20
	sniffBytes    = 8 << 10
	maxLineBytes  = 64 << 10
	maxExcerpt    = 160
)

// scanner holds one audit's state.
type scanner struct {
	fsys  fs.FS
	total int64
	keep  keeper
	// exhaustive runs every expression on every line, without the
	// prefilter, and searches each line for the places that may hide a
	// character rather than read them from a survey's list (text): the
	// reference the tests hold the prefilter to.
	exhaustive bool
	union      *prefilter.Hits   // the strings of a few lines together
	filter     *prefilter.Filter // lineFilter(), once asked (see lf)
	free       []*prefilter.Hits // Hits of lines that left the window
	blank      *prefilter.Hits   // the Hits of every empty line (blankHits)
	buf        []byte            // what read reads files into (nil until it reads)
	// makeRoom, when set, is what room does first (treeScan.room).
	makeRoom func(n int)
	// win, texts, batch: text's window of lines and the texts and Hits
	// of the lines it scans at a time, which every file reuses
	win   []line
	texts []string
	batch []*prefilter.Hits
	// asked is what confirmFast gathers of a window of lines;
	// freeFacts and freeNear are what rules 5 and 6 learnt of lines
	// that left the window (recycleNear); seamBuf, seamEnds, spans and
	// spans2 what a seam is read with; scriptBudget, what is left of
	// the file's (confirm.go); factsLearnt and seamsRead, how many
	// times confirmFast learnt a line's confirmFacts and read a seam
	// (for tests).
	asked                  confirmWindow
	freeFacts              []*confirmFacts
	freeNear               []*[nearExprs]reach
	seamBuf                []byte
	seamEnds               []int
	spans, spans2          []int32
	scriptBudget           int
	factsLearnt, seamsRead int
	// quiet finds the lines text passes over (quiet.go), and linesRead
	// counts the lines (and pieces) it reads (for tests).
	quiet     quiet
	linesRead int
	// places is what text lists in the places of a file that mayHide
	// finds (survey), which every file reuses.
	places []int32
	// file is the text file being read; layout, its sample reports,
	// tables and prose (patterns.go), is read from it when a rule
	// first needs it, once per file.
	file   string
	layout *layout
	// rule 23 (runs.go): whether the file is read for it, whether its
	// last line continues on the next, whether its paths run are past
	// maxRuns, the paths run held of it, the programs found, and the
	// bytes its cds joined (for tests)
	runsFile, runCont, runsOver bool
	runs                        []pathRun
	bundled                     []bundled
	cdRead                      int
	locs                        []int // what find's locations are cut from (see loc)
}

// add reports a match of rule to the keeper, which keeps it or counts it
// (caps.go). The excerpt is written only for a finding kept; the excerpt
// and the message are copied, so that a finding holds no part of the
// buffer a file was read into (see read).
func (s *scanner) add(rule, file string, line int, ex span, msg string) {
	if s.keep.admit(rule, file, line) {
		s.keep.keep(Finding{Rule: rule, Severity: severities[rule], File: file, Line: line, Excerpt: strings.Clone(excerptAt(ex.line, ex.at)), Message: strings.Clone(msg)})
	}
}

// addf is add with the message written by msg, only for a finding
// kept: a text dense with hidden characters finds tens of thousands
// that the caps omit.
func (s *scanner) addf(rule, file string, line int, ex span, msg func() string) {
	if s.keep.admit(rule, file, line) {
		s.keep.keep(Finding{Rule: rule, Severity: severities[rule], File: file, Line: line, Excerpt: strings.Clone(excerptAt(ex.line, ex.at)), Message: strings.Clone(msg())})
	}
}

// span is where an excerpt is taken: a line, or a part of it, and the
// byte offset of the match in it. The zero span makes no excerpt.
type span struct {
	line string
	at   int
}

// severities is each rule's severity, by ID.
var severities = func() map[string]Severity {
	m := map[string]Severity{}
	for _, r := range allRules() {
		m[r.ID] = r.Severity
	}
	return m
}()

// sortFindings sorts a report's findings by file, line and rule. The
// keeper keeps one finding of a rule on a line, so no two are alike.
func sortFindings(f []Finding) {
	slices.SortFunc(f, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			strings.Compare(a.Rule, b.Rule), strings.Compare(a.Excerpt, b.Excerpt))
	})
}

// readEntry audits what of a file of the tree needs no reading of its
// text (a link, a special file, a file over 8 MiB, a SKILL.md over 1
// MiB) and reads the text of the rest, which it returns for content
// (text is set; the text itself may be empty).
func (s *scanner) readEntry(name string, d fs.DirEntry) (data string, mode fs.FileMode, text bool, err error) {
	if d.Type()&fs.ModeSymlink != 0 {
		target, err := fs.ReadLink(s.fsys, name)
		s.add(ruleSymlink, name, 0, span{}, linkMessage(target, err == nil))
		return "", 0, false, nil
	}
	if !d.Type().IsRegular() {
		s.add(ruleSymlink, name, 0, span{}, specialMessage(d.Type()))
		return "", 0, false, nil
	}
	info, err := d.Info()
	if err != nil {
		return "", 0, false, fmt.Errorf("read %s: %w", name, err)
	}
	if info.Size() > maxFileBytes {
		s.add(ruleLargeFile, name, 0, span{}, largeMessage(info.Size()))
		return "", 0, false, s.sniffOnly(name, info)
	}
	data, err = s.read(name, info.Size(), maxFileBytes)
	if err != nil {
		return "", 0, false, err
	}
	if name == "SKILL.md" && len(data) > maxSkillMD {
		s.add(ruleLargeFile, name, 0, span{}, skillMDMessage(len(data)))
	}
	return data, info.Mode(), true, nil
}

// tooManyFiles is the error of a tree of more than maxFiles files.
func tooManyFiles() error { return fmt.Errorf("%w: more than %d files", ErrTooLarge, maxFiles) }

// tooManyBytes is the error of a tree of more than maxTotalBytes read.
func tooManyBytes() error {
	return fmt.Errorf("%w: more than %d MiB of files", ErrTooLarge, maxTotalBytes>>20)
}

// linkMessage says what rule 19 found of a link to target, which is
// known when ok.
func linkMessage(target string, ok bool) string {
	if !ok {
		return "a symbolic link"
	}
	return "a symbolic link to " + escape(target)
}

// specialMessage says what rule 19 found of a file of type typ.
func specialMessage(typ fs.FileMode) string {
	return fmt.Sprintf("a special file (%s)", typ.Type())
}

// largeMessage says what rule 20 found of a file of size bytes, over
// maxFileBytes.
func largeMessage(size int64) string {
	return fmt.Sprintf("%d bytes, over the 8 MiB any file of a skill may have; not scanned", size)
}

// skillMDMessage says what rule 20 found of a SKILL.md of size bytes,
// over maxSkillMD.
func skillMDMessage(size int) string {
	return fmt.Sprintf("%d bytes, over the 1 MiB a SKILL.md may have", size)
}

// read reads at most limit bytes of a file that says it has size bytes,
// counting them against the audit's total. It reads into the scanner's
// buffer, after what it holds (the files before in the same batch; see
// treeScan), in room that the buffer has or that read makes: a file is
// held once, not in a buffer grown by doubling nor copied after, and
// reading a tree allocates nothing a file (4 MiB of text would be 4 MiB
// for the garbage collector, a cycle or two of a short process). The
// text it returns is in that buffer, valid until the buffer is reused:
// what the audit keeps of a file (a finding's excerpt and message) add
// copies.
func (s *scanner) read(name string, size, limit int64) (string, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	if n := int(min(max(size, 0), limit)) + 1; cap(s.buf)-len(s.buf) < n {
		s.room(n)
	}
	start := len(s.buf)
	b, r := s.buf, io.LimitReader(f, limit+1)
	for {
		if len(b) == cap(b) {
			// The file grew. The buffer's bytes before start may be the
			// text of files before, which their strings still hold
			// where they are.
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
	}
	s.buf = b
	data := unsafe.String(unsafe.SliceData(b[start:]), len(b)-start)
	if int64(len(data)) > limit {
		if limit == maxFileBytes {
			s.add(ruleLargeFile, name, 0, span{}, "grew past 8 MiB while it was read; not scanned")
			data = ""
		} else {
			data = data[:limit]
		}
	}
	s.total += int64(len(data))
	if s.total > maxTotalBytes {
		return "", tooManyBytes()
	}
	return data, nil
}

// room makes room for n bytes at the end of the scanner's buffer:
// makeRoom first (a tree's scan hands the files the buffer holds on
// with it, and gives the scanner another: treeScan.room), then, when the
// buffer still lacks the room, a new buffer of n bytes or of a batch's
// (64 KiB), whichever is larger.
func (s *scanner) room(n int) {
	if s.makeRoom != nil {
		s.makeRoom(n)
	}
	if cap(s.buf)-len(s.buf) < n {
		s.buf = make([]byte, 0, max(n, batchBytes))
	}
}

// sniffOnly tells a program from other content by a file's first bytes.
func (s *scanner) sniffOnly(name string, info fs.FileInfo) error {
	head, err := s.read(name, info.Size(), sniffBytes)
	if err != nil {
		return err
	}
	s.bundle(name, info.Mode(), head)
	s.sniff(name, head)
	return nil
}

// sniff reports a file not scanned, whose first bytes are head, when it
// is a program.
func (s *scanner) sniff(name, head string) {
	if kind := programKind(head); kind != "" {
		s.add(ruleExecutableBinary, name, 0, span{}, "a native program ("+kind+")")
	}
}

// content audits a file's bytes.
func (s *scanner) content(name string, mode fs.FileMode, data string) {
	s.bundle(name, mode, data)
	if kind := programKind(data); kind != "" {
		s.add(ruleExecutableBinary, name, 0, span{}, "a native program ("+kind+")")
		return
	}
	valid, named := isText(data), textName(name, data)
	if !valid && !named {
		s.add(ruleBinaryFile, name, 0, span{}, "not text; not scanned")
		return
	}
	if named {
		if i := strings.IndexByte(data, 0); i >= 0 {
			n := 1 + strings.Count(data[:i], "\n")
			s.add(ruleMalformedText, name, n, lineAt(data, i),
				"a NUL byte in a text file: a viewer shows other text than a shell or a model reads")
		}
	}
	if mode&0o111 != 0 && !strings.HasPrefix(data, "#!") {
		s.add(ruleExecBit, name, 0, span{}, fmt.Sprintf("executable (%s) but not a script with #!", mode.Perm()))
	}
	if !valid || named && strings.IndexByte(data, 0) >= 0 {
		// A file that says it is text is read as text: a NUL or an
		// invalid byte must not turn the audit off.
		data = textOf(data, !valid)
	}
	s.text(name, data)
}

// textOf returns data as the rules read a file that says it is text: a
// NUL as a space (it separates words, as for a shell or a model that
// skips it) and, when fix is set, each run of invalid UTF-8 as one U+FFFD
// (as strings.ToValidUTF8 writes it). The string is allocated once, at
// its size.
func textOf(data string, fix bool) string {
	var b strings.Builder
	for pass := range 2 {
		size := 0
		for i := 0; i < len(data); {
			r, w := utf8.DecodeRuneInString(data[i:])
			switch {
			case fix && r == utf8.RuneError && w == 1:
				for i < len(data) {
					if r, w := utf8.DecodeRuneInString(data[i:]); r != utf8.RuneError || w != 1 {
						break
					}
					i++
				}
				size += utf8.RuneLen(utf8.RuneError)
				if pass == 1 {
					b.WriteRune(utf8.RuneError)
				}
				continue
			case r == 0:
				size++
				if pass == 1 {
					b.WriteByte(' ')
				}
			default:
				size += w
				if pass == 1 {
					b.WriteString(data[i : i+w])
				}
			}
			i += w
		}
		if pass == 0 {
			b.Grow(size)
		}
	}
	return b.String()
}

// textName reports whether a file says it is text: by its name (Markdown,
// plain text, a script, a configuration or page format) or by a #! line.
func textName(name string, data string) bool {
	if strings.HasPrefix(data, "#!") {
		return true
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".txt", ".rst",
		".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl",
		".ps1", ".psm1", ".bat", ".cmd", ".php", ".lua",
		".yaml", ".yml", ".json", ".toml", ".html", ".htm":
		return true
	}
	return false
}

// lineAt returns the part of the line of data holding byte offset i that
// an excerpt of it needs (at most 1 KiB each side), and i's offset in it.
func lineAt(data string, i int) span {
	start := strings.LastIndexByte(data[:i], '\n') + 1
	end := len(data)
	if e := strings.IndexByte(data[i:], '\n'); e >= 0 {
		end = i + e
	}
	start, end = max(start, i-1024), min(end, i+1024)
	return span{data[start:end], i - start}
}

// programKind names the native program format data starts with, or "".
func programKind(data string) string {
	head := []byte(data[:min(len(data), 0x40)])
	switch {
	case strings.HasPrefix(data, "\x7fELF"):
		return "ELF"
	case len(head) >= 4 && slices.Contains([]uint32{0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe}, binary.BigEndian.Uint32(head)):
		return "Mach-O"
	case len(head) >= 8 && binary.BigEndian.Uint32(head) == 0xcafebabe && binary.BigEndian.Uint32(head[4:]) < 32:
		return "Mach-O universal"
	case len(head) >= 0x40 && head[0] == 'M' && head[1] == 'Z':
		off := int(binary.LittleEndian.Uint32(head[0x3c:]))
		if off >= 0x40 && off+4 <= len(data) && data[off:off+4] == "PE\x00\x00" {
			return "PE"
		}
	}
	return ""
}

// isText reports whether a file's first bytes are UTF-8 text with no NUL.
func isText(data string) bool {
	head := data[:min(len(data), sniffBytes)]
	if strings.IndexByte(head, 0) >= 0 {
		return false
	}
	// A rune cut at the end of the sniffed bytes is not invalid.
	for i := 0; i < utf8.UTFMax && len(head) > 0 && len(head) < len(data); i++ {
		if utf8.ValidString(head) {
			return true
		}
		head = head[:len(head)-1]
	}
	return utf8.ValidString(head)
}

// isMarkdown reports whether a file is read as Markdown: prose with code
// blocks and HTML comments.
func isMarkdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".txt", ".rst", "":
		return true
	}
	return false
}
