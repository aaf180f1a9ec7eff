package audit

import (
	"io/fs"
	"path"
	"strings"
)

// Rule 23's bounds (see "Running directly" and "Limits" in the package
// doc).
const (
	maxRuns    = 1000        // paths run held of a tree until its programs are known
	maxRunLine = lineOverlap // a line this long or longer is not read: every piece of a long line is
	maxRunPath = 1 << 10     // a longer path is not read
	maxRunNest = 8           // substitutions, $( and (, read inside one another
)

// pathRun is a path that a command of a skill's text runs directly
// (rule 23), held until the audit knows the tree's files.
type pathRun struct {
	line  int
	loose bool // a bare path alone that a verb has run (runVerb)
	// rel is where the path leads from the skill's root, cleaned (it may
	// start with ../, which the Markdown file's folder may resolve).
	rel string
	// written is the path as written, without its quotes, for the
	// message.
	written string
	excerpt string
}

// bundled is a file of the tree that is a program to run (rule 23), and
// the interpreter that runs it ("" when not known, nativeProgram for a
// native program).
type bundled struct {
	name, interp string
	exec         bool // it has an executable bit
}

// nativeProgram is the interpreter of a native program: none.
const nativeProgram = "\x00native"

// runMode is how a command's text may run a path that is bare and
// alone (see "Running directly").
type runMode int

const (
	notRead  runMode = iota // a line rule 23 does not read as a block's
	runSpan                 // inline code: a bare path alone names a file
	runPlain                // a block without an info string: so too, but for a prompt
	runShell                // a shell's block: every command runs
	runVerb                 // inline code after a verb that has it run: so does a bare path alone, when it is executable
)

// blockMode returns how rule 23 reads the lines of a fenced block whose
// info string (after the fence's first three characters) is info.
func blockMode(info string) runMode {
	info = strings.TrimLeft(info, "`~")
	word, _, _ := strings.Cut(strings.TrimSpace(info), " ")
	switch strings.ToLower(strings.Trim(word, "{}.")) {
	case "":
		return runPlain
	case "bash", "sh", "shell", "zsh", "ksh", "dash", "fish", "console", "terminal",
		"shell-session", "sh-session", "shellsession":
		return runShell
	}
	return notRead
}

// startRuns makes the scanner ready for rule 23 on a text file name
// whose content is text: it reads the file's commands line by line,
// with the other rules, and holds the paths they run (at most maxRuns)
// until the tree's programs are known.
func (s *scanner) startRuns(name, text string) {
	s.runsFile = isMarkdown(name) && !strings.HasPrefix(text, "#!") && mayRun(text)
	s.runCont = false
	s.scriptBudget = scriptBudget(text)
}

// mayRun reports whether a Markdown text may hold a command: inline
// code or a fenced block, which need a backtick or ~~~.
func mayRun(text string) bool {
	return strings.IndexByte(text, '`') >= 0 || strings.Contains(text, "~~~")
}

// runsIn applies rule 23 to a line of a Markdown file: it holds the
// paths the line's commands run.
func (s *scanner) runsIn(name string, l line) {
	t := l.clean
	cont := s.runCont
	s.runCont = l.ctx == code && strings.HasSuffix(t, `\`)
	if len(t) >= maxRunLine || s.runsOver {
		return
	}
	switch l.ctx {
	case code:
		if l.block != notRead && strings.IndexByte(t, '/') >= 0 {
			s.commandRuns(name, l, t, 0, l.block, cont)
		}
	case prose:
		for i := 0; ; {
			j := strings.IndexByte(t[i:], '`')
			if j < 0 {
				return
			}
			open := i + j
			n := open
			for n < len(t) && t[n] == '`' {
				n++
			}
			end := closingTicks(t, n, n-open)
			if end < 0 {
				return
			}
			if strings.IndexByte(t[n:end], '/') >= 0 {
				mode := runSpan
				if toRun(t[:open]) {
					mode = runVerb
				}
				s.commandRuns(name, l, t[n:end], n, mode, false)
			}
			i = end + n - open
		}
	}
}

// toRun reports whether the prose before inline code ends with a verb
// that has it run ("Run `scripts/x.sh`.", "then execute: `...`").
func toRun(before string) bool {
	before = strings.TrimRight(before, " \t:")
	i := len(before)
	for i > 0 && wordByte(before[i-1]) {
		i--
	}
	switch strings.ToLower(before[i:]) {
	case "run", "execute", "exec", "invoke", "launch", "call", "start":
		return true
	}
	return false
}

// closingTicks returns the offset in t, from i on, of a run of exactly
// n backticks (the end of inline code that n backticks opened), or -1.
func closingTicks(t string, i, n int) int {
	for {
		j := strings.IndexByte(t[i:], '`')
		if j < 0 {
			return -1
		}
		at := i + j
		e := at
		for e < len(t) && t[e] == '`' {
			e++
		}
		if e-at == n {
			return at
		}
		i = e
	}
}

// commandRuns holds the paths that the command text t, at offset off of
// the line l.clean, runs directly. It reads t as a shell does as far as
// a command's position goes: words, quotes, separators, substitutions
// and the words that run the next one. A line that continues the one
// before (cont: it ended with \) starts at no command's position.
func (s *scanner) commandRuns(name string, l line, t string, off int, mode runMode, cont bool) {
	var (
		cmd      = !cont // the next word is at a command's position
		runner   = false // the word before runs the next (sudo, env, ...)
		redirect = false // the next word is a redirection's target
		cdArg    = false // the next word is cd's folder
		first    = !cont // no word yet
		prompted = false // the text starts with a prompt
		cwd      = ""    // the folder of a cd, relative to the skill's root
		lost     = false // a cd to a folder not read
		// nest[k]: what substitution or subshell k ends with (cmd) and
		// restores (the folder); skip: the rest of a word a
		// substitution was inside of is not read.
		nest [maxRunNest]struct {
			cmd, lost bool
			cwd       string
		}
		depth = 0
		skip  = false
	)
	push := func(after bool) bool {
		if depth == maxRunNest {
			return false
		}
		nest[depth].cmd, nest[depth].cwd, nest[depth].lost = after, cwd, lost
		depth++
		cmd, runner, redirect, cdArg, skip = true, false, false, false, false
		return true
	}
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == ' ' || c == '\t':
			skip = false
			i++
			continue
		case c == '#' && !skip:
			return // a comment
		case c == ';' || c == '&' || c == '|' || c == '`':
			cmd, runner, redirect, cdArg, skip = true, false, false, false, false
			i++
			continue
		case c == '(':
			if !push(false) {
				return
			}
			i++
			continue
		case c == ')':
			cmd, runner, redirect, cdArg = false, false, false, false
			if depth > 0 {
				depth--
				cmd, cwd, lost = nest[depth].cmd, nest[depth].cwd, nest[depth].lost
				skip = i+1 < len(t) && !runWordEnd(t[i+1])
			}
			i++
			continue
		case c == '<' || c == '>':
			redirect, skip = true, false
			i++
			continue
		}
		// A word: up to a separator, a space or a substitution.
		start := i
		sub := false
		for i < len(t) && !runWordEnd(t[i]) {
			switch t[i] {
			case '\\':
				i++
			case '\'', '"':
				q := strings.IndexByte(t[i+1:], t[i])
				if q < 0 {
					i = len(t) - 1
				} else {
					i += 1 + q
				}
			case '$':
				if i+1 < len(t) && t[i+1] == '(' {
					sub = true
				}
			}
			if sub {
				break
			}
			i++
		}
		i = min(i, len(t))
		w := t[start:i]
		if sub {
			// $( inside a word: the word is an assignment (its command
			// is still to come) or the command itself (the word that
			// ends the substitution is then an argument).
			if !push(cmd && (skip || isAssignment(w))) {
				return
			}
			first = false
			i += 2
			continue
		}
		if skip {
			// The rest of a word a substitution was inside of.
			skip = false
			continue
		}
		if w == "" {
			i++
			continue
		}
		switch {
		case redirect:
			redirect = false
		case cdArg:
			cdArg = false
			s.cdRead += len(cwd) + len(w)
			cwd, lost = cdTo(cwd, w)
		case !cmd:
		case first && (w == "$" || w == "%"):
			prompted = true
		case isAssignment(w):
		case runner && (w[0] == '-' || number(w)):
		case runsNext(w):
			runner = true
		default:
			cmd, runner = false, false
			if w == "cd" {
				cdArg = true
				break
			}
			if lost || strings.IndexByte(w, '/') < 0 {
				break
			}
			rest := strings.TrimLeft(t[i:], " \t")
			args := rest != "" && rest[0] != '#'
			command := args || mode == runShell || prompted
			s.holdRun(name, l, w, off+start, command || mode == runVerb, !command && mode == runVerb, cwd)
		}
		first = false
	}
}

// runWordEnd reports whether c ends a word of a command (outside
// quotes).
func runWordEnd(c byte) bool {
	switch c {
	case ' ', '\t', ';', '&', '|', '`', '(', ')', '<', '>':
		return true
	}
	return false
}

// isAssignment reports whether the word w is a variable's assignment
// (NAME=value), which a command's position passes over.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || '0' <= name[0] && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !wordByte(name[i]) {
			return false
		}
	}
	return true
}

// number reports whether w is a number or a duration (10, 1.5, 30s),
// as timeout and nice take before the command they run.
func number(w string) bool {
	w = strings.TrimRight(w, "smhd")
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if (w[i] < '0' || w[i] > '9') && w[i] != '.' {
			return false
		}
	}
	return true
}

// runsNext reports whether the word w, at a command's position, runs
// the word after it (with its options) as the command.
func runsNext(w string) bool {
	switch w {
	case "sudo", "doas", "env", "exec", "time", "timeout", "nohup", "nice", "xargs", "command",
		"if", "then", "do", "else", "elif", "while", "until", "!", "{":
		return true
	}
	return false
}

// cdTo returns the folder a command's cd to w leads to, relative to the
// skill's root, from cwd; lost when rule 23 does not read it (an
// absolute path, a variable that does not name the skill, a folder
// whose path is longer than maxRunPath: so cwd is never longer, and
// each cd of a line of many reads a bounded number of bytes).
func cdTo(cwd, w string) (string, bool) {
	p := unquote(w)
	if rest, ok := skillDirPrefix(p); ok {
		if !namesSkill(p) {
			return "", true
		}
		if rest == "" {
			return "", false
		}
		p, cwd = rest, ""
	}
	if p == "" || p[0] == '/' || p[0] == '~' || p[0] == '-' || strings.ContainsAny(p, "$`*?[{\\") {
		return "", true
	}
	if cwd != "" && cwd != "." && plainPath(p) {
		// What path.Join makes of it, without cleaning cwd again (it
		// is clean): a line of many cds is read at a copy's speed.
		cwd = cwd + "/" + strings.TrimSuffix(p, "/")
	} else {
		cwd = path.Join(cwd, p)
	}
	if len(cwd) > maxRunPath {
		return "", true
	}
	return cwd, false
}

// plainPath reports whether the relative path p names a folder that
// path.Clean leaves as it is but for a slash at its end: no empty, .
// or .. name in it.
func plainPath(p string) bool {
	p = strings.TrimSuffix(p, "/")
	for {
		name, rest, more := strings.Cut(p, "/")
		if name == "" || name == "." || name == ".." {
			return false
		}
		if !more {
			return true
		}
		p = rest
	}
}

// unquote returns the word w without its quotes.
func unquote(w string) string {
	if !strings.ContainsAny(w, `"'`) {
		return w
	}
	return strings.NewReplacer(`"`, "", "'", "").Replace(w)
}

// skillDirPrefix returns p after one variable that may stand for the
// skill's folder ($NAME, ${NAME}, ${NAME:-...}, {NAME}; not one of
// machineVars) and the slash after it, and whether p starts so; a lone
// variable is the folder itself (rest "").
func skillDirPrefix(p string) (rest string, ok bool) {
	var end int
	switch {
	case strings.HasPrefix(p, "${"):
		end = strings.IndexByte(p, '}') + 1
		if end == 0 {
			return "", false
		}
		name, _, _ := strings.Cut(p[2:end-1], ":")
		if machineVar(name) {
			return "", false
		}
	case strings.HasPrefix(p, "$"), strings.HasPrefix(p, "{"):
		end = 1
		for end < len(p) && wordByte(p[end]) {
			end++
		}
		if end == 1 || machineVar(p[1:end]) {
			return "", false
		}
		if p[0] == '{' {
			if end == len(p) || p[end] != '}' {
				return "", false
			}
			end++
		}
	default:
		return "", false
	}
	if end == len(p) {
		return "", true
	}
	if p[end] != '/' {
		return "", false
	}
	return p[end+1:], true
}

// namesSkill reports whether the variable p starts with names the
// skill's folder: its name holds "skill" or is baseDir, in any case.
func namesSkill(p string) bool {
	name := strings.TrimLeft(p, "${")
	end := 0
	for end < len(name) && wordByte(name[end]) {
		end++
	}
	name = strings.ToLower(name[:end])
	return strings.Contains(name, "skill") || name == "basedir"
}

// machineVar reports whether the variable name stands for a folder of
// the machine, not of the skill.
func machineVar(name string) bool {
	switch name {
	case "HOME", "USERPROFILE", "TMPDIR", "TMP", "TEMP", "PWD", "OLDPWD":
		return true
	}
	return false
}

// holdRun holds the path w, which a command of line l runs at offset
// at of l.clean (command: w bare is a command, with arguments, in a
// shell's block, after a prompt or a verb, and not a mention; loose:
// only the verb makes it one, and it runs only an executable file),
// when it may be the skill's (see "Running directly").
func (s *scanner) holdRun(name string, l line, w string, at int, command, loose bool, cwd string) {
	// The file's name is written as it is (quotes only after it), so
	// that a line that runs a program holds the program's name.
	last := w[strings.LastIndexByte(w, '/')+1:]
	if strings.ContainsAny(strings.TrimRight(last, `"'`), `"'`) {
		return
	}
	p := unquote(w)
	rest := p
	switch {
	case strings.HasPrefix(p, "./"):
		rest, loose = p[2:], false
	case p[0] == '$' || p[0] == '{':
		r, ok := skillDirPrefix(p)
		if !ok || !namesSkill(p) {
			return
		}
		rest, loose = r, false
	case !command:
		return
	}
	if rest == "" || len(rest) > maxRunPath || rest[0] == '/' || rest[0] == '~' ||
		strings.Contains(rest, "://") || strings.ContainsAny(rest, "$`*?[{}\\") {
		return
	}
	if base := path.Base(rest); base == "." || base == ".." {
		return
	}
	rel := path.Join(cwd, rest)
	if len(s.runs) == maxRuns {
		s.runsOver = true // no more are held of the file
		return
	}
	s.runs = append(s.runs, pathRun{
		line:    l.n,
		loose:   loose,
		rel:     strings.Clone(rel),
		written: strings.Clone(p),
		excerpt: excerptAt(l.clean, at),
	})
}

// bundle notes the file name, of mode and whose first bytes are head,
// when it is a program to run (rule 23).
func (s *scanner) bundle(name string, mode fs.FileMode, head string) {
	interp, program := scriptInterpreter(name, head)
	if programKind(head) != "" {
		interp, program = nativeProgram, true
	}
	if program || mode&0o111 != 0 {
		// Copied: head is the buffer the next file is read into.
		s.bundled = append(s.bundled, bundled{name, strings.Clone(interp), mode&0o111 != 0})
	}
}

// interpreters are the programs a finding of rule 23 may name, by a
// script's extension.
var interpreters = map[string]string{
	".sh": "bash", ".bash": "bash", ".zsh": "zsh",
	".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node",
	".ts": "", ".rb": "ruby", ".pl": "perl", ".php": "php", ".lua": "lua",
	".ps1": "pwsh", ".psm1": "", ".bat": "", ".cmd": "",
}

// scriptInterpreter returns the program that runs the file name whose first
// bytes are head: the one its #! line names (after env and its options)
// when this package knows it, else the one of its extension ("" when
// neither), and whether the file is a script by either.
func scriptInterpreter(name, head string) (string, bool) {
	ext, byName := interpreters[strings.ToLower(path.Ext(name))]
	if !strings.HasPrefix(head, "#!") {
		return ext, byName
	}
	first, _, _ := strings.Cut(head[2:min(len(head), 256)], "\n")
	words := strings.Fields(first)
	for len(words) > 0 {
		prog := path.Base(words[0])
		words = words[1:]
		if prog == "env" {
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
			continue
		}
		switch prog {
		case "bash", "sh", "zsh", "ksh", "dash", "fish", "python", "python3", "node", "ruby", "perl", "php", "lua", "pwsh", "deno", "bun":
			return prog, true
		}
		break
	}
	return ext, true
}

// programs are the programs of a tree (rule 23): the interpreter of
// each, by its path from the skill's root.
type programs map[string]bundled

// programsOf returns the programs of bundled, whose names are relative
// to the skill's root.
func programsOf(bundled []bundled) programs {
	ps := make(programs, len(bundled))
	for _, b := range bundled {
		ps[b.name] = b
	}
	return ps
}

// resolve returns the message of a finding of rule 23 when the path
// written, which leads to rel from the skill's root, leads to a program
// of ps (an executable one when the run is loose), from the skill's
// root or from the folder of the Markdown file file (its path from the
// root).
func (ps programs) resolve(rel, file, written string, loose bool) (string, bool) {
	for _, p := range [2]string{rel, path.Join(path.Dir(file), rel)} {
		if !fs.ValidPath(p) || p == "." {
			continue
		}
		if b, ok := ps[p]; ok && (b.exec || !loose) {
			return runMessage(written, b.interp), true
		}
	}
	return "", false
}

// reportRuns reports, through report, each path of runs (those held of
// one file, whose path from the skill's root is rel, in order) that
// leads to one of ps: one finding of a line at most.
func reportRuns(runs []pathRun, rel string, ps programs, report func(pathRun, string)) {
	last := 0
	for _, r := range runs {
		if r.line == last {
			continue
		}
		if msg, ok := ps.resolve(r.rel, rel, r.written, r.loose); ok {
			report(r, msg)
			last = r.line
		}
	}
}

// runMessage says what rule 23 found of the path written, a program
// that interp runs ("" when not known).
func runMessage(written, interp string) string {
	shown := written
	if strings.ContainsAny(shown, " $") {
		shown = `"` + shown + `"`
	}
	shown = truncate(escape(shown), 60)
	why := "runs " + shown + " by its path, which fails where the skill is mounted read-only and noexec (an image volume): "
	switch interp {
	case "":
		return why + "run it through its interpreter (bash scripts/x.sh, python3 scripts/x.py)"
	case nativeProgram:
		return why + "a native program cannot run there; install it from its source instead"
	}
	return why + "write " + interp + " " + shown
}

// fileRuns are the paths a file's commands run (rule 23), held until
// the tree's programs are known.
type fileRuns struct {
	name string
	runs []pathRun
}

// holdRuns adds to held the runs of the file name, as far as the first
// maxRuns of a tree go, and returns it. The runs of the skill's
// SKILL.md are held whatever the files before it hold, and count
// against no other file's.
func holdRuns(held []fileRuns, total *int, name string, runs []pathRun) []fileRuns {
	if name == "SKILL.md" {
		if len(runs) > 0 {
			held = append(held, fileRuns{name, runs})
		}
		return held
	}
	if n := min(len(runs), maxRuns-*total); n > 0 {
		held = append(held, fileRuns{name, runs[:n]})
		*total += n
	}
	return held
}

// reportHeld reports, through report, what rule 23 finds of the runs
// held of a tree, whose programs are bundled (names from the skill's
// root, as the files' are), in the order the files were read.
func reportHeld(held []fileRuns, bundled []bundled, report func(file string, r pathRun, msg string)) {
	if len(held) == 0 || len(bundled) == 0 {
		return
	}
	ps := programsOf(bundled)
	for _, f := range held {
		reportRuns(f.runs, f.name, ps, func(r pathRun, msg string) { report(f.name, r, msg) })
	}
}
