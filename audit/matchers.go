package audit

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The matchers and finders written by hand of the expressions that cost
// the most to confirm, or that run most often, where nearly every line
// is a candidate: each answers, in one pass over the text, whether its
// expression matches it (a matcher, as MatchString does) or where its
// first match is (a finder, as FindStringIndex does: the match the
// expression prefers, with its end), on any text (UTF-8 or not), and
// the expression stays the specification, which TestHandWritten and
// FuzzHandWritten hold each one to. A finder spares the expression's
// second run that a matcher leaves, to place a match it said is there;
// on a dense text most of them say yes. The regexp package confirms
// such an expression with its backtracker, which tries each of the
// alternatives after a `[^\n]*` at every place of the rest of the line;
// these look for the few bytes the alternatives start with instead, and
// read a line once however many of their commands it holds (a search
// that found nothing up to the end of a line or a stretch is not made
// again from a later command in it). An audit without the prefilter
// (the reference its tests compare with) runs the expressions alone.
//
// Case-insensitive matching is the regexp package's: an ASCII letter in
// either case, and k and s also as the Kelvin sign (U+212A) and the long
// s (U+017F), which (?i)\w matches too; \b reads ASCII word characters
// only, and \s is [\t\n\f\r ].

// wordByte reports whether c is an ASCII letter, digit or underscore,
// which \b reads as a word character (a byte of a character outside
// ASCII is not).
func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// boundaryAt reports whether \b holds at offset i of t.
func boundaryAt(t string, i int) bool {
	return (i > 0 && wordByte(t[i-1])) != (i < len(t) && wordByte(t[i]))
}

// spaceByte reports whether c is a character of \s.
func spaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// skipSpace returns the offset of the first byte at or after i that is
// not of \s.
func skipSpace(t string, i int) int {
	for i < len(t) && spaceByte(t[i]) {
		i++
	}
	return i
}

// tokenEnd returns the offset of the first byte of \s at or after i, or
// len(t): the end of the run of \S that starts at i.
func tokenEnd(t string, i int) int {
	for i < len(t) && !spaceByte(t[i]) {
		i++
	}
	return i
}

// foldAt reports whether t holds at i the word w (lower-case ASCII) as
// a case-insensitive expression matches it, and returns where it ends.
func foldAt(t string, i int, w string) (end int, ok bool) {
	for k := 0; k < len(w); k++ {
		if i >= len(t) {
			return 0, false
		}
		c, b := w[k], t[i]
		switch {
		case b == c, 'a' <= c && c <= 'z' && b == c-'a'+'A':
			i++
		case c == 'k' && strings.HasPrefix(t[i:], "\u212a"):
			i += len("\u212a")
		case c == 's' && strings.HasPrefix(t[i:], "\u017f"):
			i += len("\u017f")
		default:
			return 0, false
		}
	}
	return i, true
}

// foldWordAt returns the length of the character of (?i)\w at i of t,
// or 0.
func foldWordAt(t string, i int) int {
	switch {
	case i >= len(t):
		return 0
	case wordByte(t[i]):
		return 1
	case strings.HasPrefix(t[i:], "\u017f"):
		return len("\u017f")
	case strings.HasPrefix(t[i:], "\u212a"):
		return len("\u212a")
	}
	return 0
}

// wordAt returns where one of words (lower-case ASCII), in any case,
// starts at i of t between word boundaries ends, or -1.
func wordAt(t string, i int, words ...string) int {
	if !boundaryAt(t, i) {
		return -1
	}
	for _, w := range words {
		if e, ok := foldAt(t, i, w); ok && boundaryAt(t, e) {
			return e
		}
	}
	return -1
}

// lineEnd returns the offset of the first newline at or after i, or
// len(t): where a `[^\n]*` from i stops.
func lineEnd(t string, i int) int {
	if j := strings.IndexByte(t[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(t)
}

// matchUpload is upload's MatchString: curl with an option that posts a
// file (-d @, --data @, -F name=@, -T, --upload-file, --form name=@)
// later on its line, wget with --post-file, -infile, or nc given a host,
// a port and a file on its standard input.
func matchUpload(t string) bool {
	return curlUpload(t) || wgetPostFile(t) || infile(t) || ncRedirect(t)
}

// curlUpload is upload's first alternative: `\bcurl\b[^\n]*(?:...)`.
// The first curl of a line reaches every place a later one does.
func curlUpload(t string) bool {
	for i := 0; i < len(t); i++ {
		e := -1
		if t[i]|0x20 == 'c' {
			e = wordAt(t, i, "curl")
		}
		if e < 0 {
			continue
		}
		hi := lineEnd(t, e)
		// An option starts at a '-' (after a \s for -d, -F and -T,
		// which may be the newline at hi).
		for q := e; q <= hi+1 && q < len(t); q++ {
			j := strings.IndexByte(t[q:min(len(t), hi+2)], '-')
			if j < 0 {
				break
			}
			q += j
			if q-1 >= e && spaceByte(t[q-1]) && curlShortUpload(t, q) || q < hi && curlLongUpload(t, q) {
				return true
			}
		}
		i = hi
	}
	return false
}

// curlShortUpload reports whether t holds at q, a '-' after a \s, one
// of `-d\s*["']?@`, `-F\s*["']?[\w.-]+=@` and `-T\s`.
func curlShortUpload(t string, q int) bool {
	if q+1 >= len(t) {
		return false
	}
	switch t[q+1] | 0x20 {
	case 'd':
		return atSign(t, skipQuote(t, skipSpace(t, q+2)))
	case 'f':
		return formField(t, skipQuote(t, skipSpace(t, q+2)))
	case 't':
		return q+2 < len(t) && spaceByte(t[q+2])
	}
	return false
}

// curlLongUpload reports whether t holds at q one of
// `--data(?:-binary|-raw|-urlencode)?[=\s]+["']?@`,
// `--upload-file\b` and `--form\s+["']?[\w.-]+=@`.
func curlLongUpload(t string, q int) bool {
	if e, ok := foldAt(t, q, "--data"); ok {
		for _, s := range []string{"-binary", "-raw", "-urlencode"} {
			if f, ok := foldAt(t, e, s); ok {
				e = f
				break
			}
		}
		j := e
		for j < len(t) && (t[j] == '=' || spaceByte(t[j])) {
			j++
		}
		return j > e && atSign(t, skipQuote(t, j))
	}
	if e, ok := foldAt(t, q, "--upload-file"); ok {
		return boundaryAt(t, e)
	}
	if e, ok := foldAt(t, q, "--form"); ok {
		j := skipSpace(t, e)
		return j > e && formField(t, skipQuote(t, j))
	}
	return false
}

// skipQuote returns i past a quotation mark of ["'] at i.
func skipQuote(t string, i int) int {
	if i < len(t) && (t[i] == '"' || t[i] == '\'') {
		return i + 1
	}
	return i
}

// atSign reports whether t holds '@' at i.
func atSign(t string, i int) bool { return i < len(t) && t[i] == '@' }

// formField reports whether t holds at i `[\w.-]+=@`.
func formField(t string, i int) bool {
	j := i
	for j < len(t) {
		if t[j] == '.' || t[j] == '-' {
			j++
		} else if w := foldWordAt(t, j); w > 0 {
			j += w
		} else {
			break
		}
	}
	return j > i && strings.HasPrefix(t[j:], "=@")
}

// wgetPostFile is upload's `\bwget\b[^\n]*--post-file\b`.
func wgetPostFile(t string) bool {
	for i := 0; i < len(t); i++ {
		e := -1
		if t[i]|0x20 == 'w' {
			e = wordAt(t, i, "wget")
		}
		if e < 0 {
			continue
		}
		hi := lineEnd(t, e)
		for q := e; q < hi; q++ {
			j := strings.IndexByte(t[q:hi], '-')
			if j < 0 {
				break
			}
			q += j
			if f, ok := foldAt(t, q, "--post-file"); ok && boundaryAt(t, f) {
				return true
			}
		}
		i = hi
	}
	return false
}

// infile is upload's `-infile\b`.
func infile(t string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(t[i:], '-')
		if j < 0 {
			return false
		}
		i += j
		if e, ok := foldAt(t, i, "-infile"); ok && boundaryAt(t, e) {
			return true
		}
	}
}

// ncRedirect is upload's
// `\b(?:nc|ncat|netcat)\s+(?:-\S+\s+)*\S+\s+\d+\s*<\s*\S`: nc, its
// options (words that start with '-'), a host, a port, and a file
// redirected to its standard input.
func ncRedirect(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i]|0x20 != 'n' || !boundaryAt(t, i) {
			continue
		}
		for _, w := range []string{"nc", "ncat", "netcat"} {
			e, ok := foldAt(t, i, w)
			if !ok || e == len(t) || !spaceByte(t[e]) {
				continue
			}
			// Each word after nc may be the host, while those before
			// it are options.
			for j := skipSpace(t, e); j < len(t); {
				end := tokenEnd(t, j)
				next := skipSpace(t, end)
				if next > end && portRedirect(t, next) {
					return true
				}
				if t[j] != '-' || end-j < 2 || next == end {
					break
				}
				j = next
			}
		}
	}
	return false
}

// portRedirect reports whether t holds at i `\d+\s*<\s*\S`.
func portRedirect(t string, i int) bool {
	j := i
	for j < len(t) && '0' <= t[j] && t[j] <= '9' {
		j++
	}
	if j == i {
		return false
	}
	j = skipSpace(t, j)
	if j == len(t) || t[j] != '<' {
		return false
	}
	j = skipSpace(t, j+1)
	return j < len(t)
}

// findDownloadPipe is downloadExec's first expression's
// FindStringIndex, curl, wget or fetch piped to a shell or an
// interpreter: `\b(?:curl|wget|fetch)\b[^|\n]*\|\s*(?:shell|interpreter)`.
// The pipe is the first after the command on its line.
func findDownloadPipe(t string) []int {
	return pipedAfter(t, &downloadFirst, func(t string, i int) int { return wordAt(t, i, "curl", "wget", "fetch") }, runnerEnd)
}

// downloadFirst holds the first bytes of findDownloadPipe's commands.
var downloadFirst = firstBytes("cwf")

// firstBytes returns the table pipedAfter takes: which bytes are the
// ASCII letters of first, of either case, a newline or a pipe.
func firstBytes(first string) (table [256]bool) {
	for _, c := range []byte(first) {
		table[c], table[c&^0x20] = true, true
	}
	table['\n'], table['|'] = true, true
	return table
}

// pipedAfter returns the first match in t of the shape
// `CMD[^|\n]*\|\s*RUNNER`, or nil: a command (what at finds at i: the
// end of its match, else -1, asked only where first (firstBytes) holds
// t[i] and t[i] is no newline or pipe) and,
// after it on its line, the first pipe into what into matches at the
// first byte past the pipe's spaces (into returns where that match
// ends, else -1). The match starts at the first command since the last
// pipe or newline: a later one before the same pipe reaches it no
// sooner. A command's match may span a newline, which is passed over
// with it, and which ends the stretch of a command before it.
func pipedAfter(t string, first *[256]bool, at func(t string, i int) int, into func(t string, p int, st pipeState) (int, pipeState)) []int {
	loc, _ := pipedAfterState(t, first, at, into)
	return loc
}

// pipedAfterState is pipedAfter, which also returns what into learnt.
func pipedAfterState(t string, first *[256]bool, at func(t string, i int) int, into func(t string, p int, st pipeState) (int, pipeState)) ([]int, pipeState) {
	start := -1      // the first command since the last pipe or newline
	var st pipeState // what into learnt of the pipes before (runnerEnd)
	for i := 0; i < len(t); i++ {
		// first holds the newline and the pipe too: one look a byte
		// passes over the rest.
		c := t[i]
		if !first[c] {
			continue
		}
		switch {
		case c == '\n':
			start = -1
		case c == '|':
			if start >= 0 {
				var e int
				if e, st = into(t, skipSpace(t, i+1), st); e >= 0 {
					return []int{start, e}, st
				}
			}
			start = -1
		default:
			if e := at(t, i); e >= 0 {
				if start < 0 || strings.IndexByte(t[i:e], '\n') >= 0 {
					start = i
				}
				i = e - 1
			}
		}
	}
	return nil, st
}

// runnerEnd returns where shell or interpreter (patterns.go) matches at
// p of t ends, or -1: of their matches there, the one the expression
// prefers, trying a shell before an interpreter, sudo and more of its
// options before fewer, a path's last directory before an earlier one
// and `env ` before none.
//
// st is what runnerEnd learnt at the pipes before on the line, which
// it returns updated with what it learns here (pipeState).
func runnerEnd(t string, p int, st pipeState) (int, pipeState) {
	if p == len(t) {
		return -1, st
	}
	tried := &st.tried
	sudo, ok := sudoEnd(t, p)
	if ok {
		// `(?:-\S+\s+)*`: each option a whole word and the spaces after
		// it.
		var buf [8]int
		qs := append(buf[:0], sudo)
		known := false
		for q := sudo; q < len(t) && t[q] == '-'; {
			end := tokenEnd(t, q)
			next := skipSpace(t, end)
			if end-q < 2 || next == end {
				break
			}
			if tried[0] <= next && next <= tried[1] {
				known = true
				break
			}
			qs = append(qs, next)
			q = next
		}
		for k := len(qs) - 1; k >= 0; k-- {
			if e := st.pathEnd(t, qs[k], shellKind); e >= 0 {
				return e, st
			}
		}
		if !known || tried[1] == 0 {
			tried[1] = qs[len(qs)-1]
		}
		tried[0] = sudo
	}
	if e := st.pathEnd(t, p, shellKind); e >= 0 {
		return e, st
	}
	if ok {
		if e := st.pathEnd(t, sudo, interpreterKind); e >= 0 {
			return e, st
		}
	}
	return st.pathEnd(t, p, interpreterKind), st
}

// sudoEnd returns where `sudo\s+` at p of t ends.
func sudoEnd(t string, p int) (int, bool) {
	if e, ok := foldAt(t, p, "sudo"); ok && e < len(t) && spaceByte(t[e]) {
		return skipSpace(t, e), true
	}
	return 0, false
}

// pipeState is what runnerEnd learns at a pipe of a line and hands to
// the next pipe's, so that a line of many pipes is read once, not once
// a pipe.
type pipeState struct {
	// tried holds the first and the last word of sudo's options where a
	// shell was looked for in vain after each (tried[1] is 0 when none
	// was), so that a line of pipes into sudo, each inside an option of
	// the one before ("|sudo -a|sudo -a|..."), is read once: a word
	// there starts the same run of options as there, to the same end.
	tried [2]int
	// A run of bytes of no \s, [from, to), and in it, by the kind of
	// runner (shellKind, interpreterKind; known tells which are), the
	// last slash after which that runner matches, or -1: pathEnd at any
	// q of the run is then known without reading the rest of the run
	// again, so that a line of pipes without spaces ("curl|curl|...")
	// is read once.
	from, to int
	known    [2]bool
	slash    [2]int
	// read counts the bytes pathEnd read to learn the runs: at most
	// three times each run's length, once to its end and once back for
	// each kind (TestPipesReadOnce).
	read int
}

// The kinds of runner pathEnd looks for, and their matchers.
const (
	shellKind = iota
	interpreterKind
)

var runnerEnds = [2]func(t string, n int) int{shellEnd, interpreterEnd}

// pathEnd returns where `(?:\S*/)?` and then the runner of kind (its
// matcher's end, else -1) match at q of t end, or -1: after the word's
// last slash first, then after each one before, then at q. Where the
// runner matches after a slash depends on the slash alone, so the first
// slash from the word's end that it matches after is the run's last
// such slash when that is at or after q, and none otherwise: it is
// found once for the run and kept in st.
func (st *pipeState) pathEnd(t string, q int, kind int) int {
	end := runnerEnds[kind]
	if q < st.from || q >= st.to {
		st.from, st.to, st.known = q, tokenEnd(t, q), [2]bool{}
		st.read += st.to - st.from
	}
	if !st.known[kind] {
		st.slash[kind] = -1
		n := st.to
		for ; n > st.from; n-- {
			if t[n-1] == '/' && end(t, n) >= 0 {
				st.slash[kind] = n - 1
				break
			}
		}
		st.known[kind] = true
		st.read += st.to - n
	}
	if s := st.slash[kind]; s >= q {
		return end(t, s+1)
	}
	return end(t, q)
}

// shellEnd returns where `(?:env\s+)?(?:ba|z|k|da|fi|c|tc)?sh\b`
// matches at n of t ends, with `env ` before it first, or -1.
func shellEnd(t string, n int) int {
	if e, ok := foldAt(t, n, "env"); ok && e < len(t) && spaceByte(t[e]) {
		if f := shellWordEnd(t, skipSpace(t, e)); f >= 0 {
			return f
		}
	}
	return shellWordEnd(t, n)
}

// shellWordEnd returns where `(?:ba|z|k|da|fi|c|tc)?sh\b` matches at n
// of t ends, or -1 (at most one of the names matches at n).
func shellWordEnd(t string, n int) int {
	for _, w := range []string{"bash", "zsh", "ksh", "dash", "fish", "csh", "tcsh", "sh"} {
		if e, ok := foldAt(t, n, w); ok && boundaryAt(t, e) {
			return e
		}
	}
	return -1
}

// interpreterEnd returns where
// `(?:python[0-9.]*|perl|ruby|node|php)\s*(?:-\s*)?(?:$|[;&)|]|-[^cme\s])`
// matches at n of t ends, with `-\s*` first, or -1.
func interpreterEnd(t string, n int) int {
	e, ok := foldAt(t, n, "python")
	if ok {
		for e < len(t) && ('0' <= t[e] && t[e] <= '9' || t[e] == '.') {
			e++
		}
	} else {
		for _, w := range []string{"perl", "ruby", "node", "php"} {
			if e, ok = foldAt(t, n, w); ok {
				break
			}
		}
	}
	if !ok {
		return -1
	}
	x := skipSpace(t, e)
	if x < len(t) && t[x] == '-' {
		if f := stdinEnd(t, skipSpace(t, x+1)); f >= 0 {
			return f
		}
	}
	return stdinEnd(t, x)
}

// stdinEnd returns where `(?:$|[;&)|]|-[^cme\s])` matches at x of t
// ends, or -1: what follows an interpreter that reads its program from
// stdin.
func stdinEnd(t string, x int) int {
	if x == len(t) {
		return x
	}
	switch t[x] {
	case ';', '&', ')', '|':
		return x + 1
	case '-':
		if x+1 < len(t) && strings.IndexByte("cmeCME", t[x+1]) < 0 && !spaceByte(t[x+1]) {
			_, w := utf8.DecodeRuneInString(t[x+1:])
			return x + 1 + w
		}
	}
	return -1
}

// matchEnvPipe is envDump's `[|;&(]\s*(?:env|printenv|set)\s*(?:\||\))`
// (start "|;&("), `\$\(\s*...` (start "$(") and `^...` (start "").
func matchEnvPipe(start string) func(string) bool {
	var opens [256]bool
	for _, c := range []byte(start) {
		opens[c] = true
	}
	return func(t string) bool {
		if start == "" {
			return envPipedAt(t, 0)
		}
		for i := 0; i < len(t); i++ {
			if start == "$(" {
				j := strings.Index(t[i:], "$(")
				if j < 0 {
					return false
				}
				i += j
				if envPipedAt(t, skipSpace(t, i+2)) {
					return true
				}
				continue
			}
			if opens[t[i]] && envPipedAt(t, skipSpace(t, i+1)) {
				return true
			}
		}
		return false
	}
}

// envPipedAt reports whether t holds at j
// `(?:env|printenv|set)\s*(?:\||\))`.
func envPipedAt(t string, j int) bool {
	// Each word starts with e, p or s, or the long s (U+017F).
	if j == len(t) {
		return false
	}
	if c := t[j] | 0x20; c != 'e' && c != 'p' && c != 's' && t[j] != 0xc5 {
		return false
	}
	for _, w := range []string{"env", "printenv", "set"} {
		if e, ok := foldAt(t, j, w); ok {
			k := skipSpace(t, e)
			return k < len(t) && (t[k] == '|' || t[k] == ')')
		}
	}
	return false
}

// findKeyRead is secretStore's FindStringIndex of
// `\b(?:cat|cp|scp|base64|xxd|head|tail|get-content|gc|tar|zip|rsync|open|read_text|readfile)\b[^\n|;]*\.ssh[/\\](?:id_[a-z0-9_]+(?:[^.\w]|$)|\*)`:
// a private key (or every file of ~/.ssh) read by a command. The match
// starts at the first command of the first stretch of a line without
// `\n|;` that holds a key after it (a later command of the stretch
// reaches no farther), and `[^\n|;]*` takes the stretch's last key.
func findKeyRead(t string) []int {
	for i := 0; i < len(t); i++ {
		e := wordAt(t, i, "cat", "cp", "scp", "base64", "xxd", "head", "tail", "get-content", "gc", "tar", "zip", "rsync", "open", "read_text", "readfile")
		if e < 0 {
			continue
		}
		hi := len(t)
		if j := strings.IndexAny(t[e:], "\n|;"); j >= 0 {
			hi = e + j
		}
		end := -1
		for q := e; q < hi; q++ {
			j := strings.IndexByte(t[q:hi], '.')
			if j < 0 {
				break
			}
			q += j
			if f, ok := foldAt(t, q, ".ssh"); ok && f < len(t) && (t[f] == '/' || t[f] == '\\') {
				if k := privateKeyEnd(t, f+1); k >= 0 {
					end = k
				}
			}
		}
		if end >= 0 {
			return []int{i, end}
		}
		i = hi
	}
	return nil
}

// privateKeyEnd returns where `id_[a-z0-9_]+(?:[^.\w]|$)` or `\*`
// matches at i of t ends, case-insensitively, or -1. The letters run as
// far as they go: a dot after them stops the match, and so would a
// shorter run, which a word character follows.
func privateKeyEnd(t string, i int) int {
	if i < len(t) && t[i] == '*' {
		return i + 1
	}
	e, ok := foldAt(t, i, "id_")
	if !ok {
		return -1
	}
	j := e
	for w := foldWordAt(t, j); w > 0; w = foldWordAt(t, j) {
		j += w
	}
	switch {
	case j == e:
		return -1
	case j == len(t):
		return j
	case t[j] == '.':
		return -1
	}
	_, w := utf8.DecodeRuneInString(t[j:])
	return j + w
}

// firstEnvFile returns what credentialMatch's loop over the matches of
// dotEnv in t returns: the first match (the matches do not overlap)
// whose suffix is not a template's (envTemplate), or nil.
func firstEnvFile(t string) []int {
	for pos, from := 0, 0; ; {
		k := strings.Index(t[from:], ".env")
		if k < 0 {
			return nil
		}
		k += from
		from = k + 1
		// The match starts at the text's start, or at the character
		// before ".env", which no match before has taken.
		start := k
		if k > 0 {
			if k == pos {
				continue
			}
			r, w := utf8.DecodeLastRuneInString(t[pos:k])
			if r < utf8.RuneSelf && (wordByte(byte(r)) || r == '.' || r == '$' || r == '-') {
				continue
			}
			start = k - w
		}
		e := k + len(".env")
		suffix := ""
		if e < len(t) && t[e] == '.' {
			j := e + 1
			for j < len(t) && ('a' <= t[j] && t[j] <= 'z' || 'A' <= t[j] && t[j] <= 'Z') {
				j++
			}
			if j == e+1 {
				continue
			}
			suffix, e = t[e+1:j], j
		}
		if e < len(t) {
			r, w := utf8.DecodeRuneInString(t[e:])
			if r < utf8.RuneSelf && (wordByte(byte(r)) || r == '.' || r == '-') {
				continue
			}
			e += w
		}
		if suffix != "" && envTemplate(suffix) {
			pos, from = e, e
			continue
		}
		return []int{start, e}
	}
}

// credentialPaths are credentialPath's matches, in its order, '/'
// standing for [/\\]; each but those marked ends at a word boundary.
var credentialPaths = []struct {
	path  string
	bound bool
}{
	{"~/.ssh", true}, {"$home/.ssh", true}, {"${home}/.ssh", true}, {"%userprofile%/.ssh", true}, {"$env:userprofile/.ssh", true},
	{".ssh/id_", false}, {".aws/credentials", true}, {".aws/config", true}, {".config/gcloud", true},
	{"application_default_credentials.json", false}, {"~/.azure", true}, {"$home/.azure", true}, {".kube/config", true},
	{"~/.netrc", true}, {"$home/.netrc", true}, {".git-credentials", true}, {".docker/config.json", false},
	{"~/.npmrc", true}, {"~/.pypirc", true}, {"$home/.npmrc", true}, {"$home/.pypirc", true},
}

// findCredentialPath is credentialPath's FindStringIndex: the first
// place where one of credentialPaths is, and the first of them there.
func findCredentialPath(t string) []int {
	for i := 0; i < len(t); i++ {
		for _, k := range credentialPathsAt[t[i]] {
			p := credentialPaths[k]
			if e, ok := pathAt(t, i, p.path); ok && (!p.bound || boundaryAt(t, e)) {
				return []int{i, e}
			}
		}
	}
	return nil
}

// credentialPathsAt holds, by the byte a text holds, the indexes of the
// credentialPaths that start with it (in either case), in their order.
var credentialPathsAt = func() (at [256][]int) {
	for k, p := range credentialPaths {
		c := p.path[0]
		at[c] = append(at[c], k)
		if 'a' <= c && c <= 'z' {
			at[c-'a'+'A'] = append(at[c-'a'+'A'], k)
		}
	}
	return at
}()

// pathAt is foldAt for a path whose '/' matches a slash or a
// backslash.
func pathAt(t string, i int, path string) (end int, ok bool) {
	for len(path) > 0 {
		dir, rest, slash := strings.Cut(path, "/")
		if i, ok = foldAt(t, i, dir); !ok {
			return 0, false
		}
		if slash {
			if i == len(t) || t[i] != '/' && t[i] != '\\' {
				return 0, false
			}
			i++
		}
		path = rest
	}
	return i, true
}

// wrapped is onlyWrapper's expression written by hand: rest, with wrapperWords'
// matches taken out, holds only characters of wrapperTrim. No match
// starts at such a character, so rest is read from its start: each
// other character must start a match, and what the match covers is
// passed over.
func wrapped(rest string) bool {
	for i := 0; i < len(rest); {
		switch {
		case strings.IndexByte(wrapperTrim, rest[i]) >= 0:
			i++
		case rest[i] == '#' && strings.IndexByte(rest[i:], '\n') < 0:
			return true
		default:
			e := wordAt(rest, i, wrapperWordList...)
			if e < 0 {
				return false
			}
			i = e
		}
	}
	return true
}

// wrapperWordList are the words of wrapperWords, in its order.
var wrapperWordList = []string{"exec", "eval", "base64", "decode", "iex", "invoke-expression", "text.encoding", "utf8",
	"unicode", "ascii", "getstring", "convert", "system", "bash", "zsh", "sh", "python3", "python", "-c"}

// countDecodeSites returns len(decodeSite.FindAllStringIndex(t, -1)):
// how many places of t decode base64, the matches not overlapping.
func countDecodeSites(t string) int {
	n := 0
	for i := 0; i < len(t); {
		if e := decodeSiteAt(t, i); e >= 0 {
			n, i = n+1, e
			continue
		}
		i++
	}
	return n
}

// decodeSiteAt returns where decodeSite's match at i of t ends, or -1.
func decodeSiteAt(t string, i int) int {
	if c := t[i] | 0x20; c != 'b' && c != 'f' {
		return -1
	}
	for _, w := range []string{"b64decode", "frombase64string"} {
		if e, ok := foldAt(t, i, w); ok {
			if e = skipSpace(t, e); e < len(t) && t[e] == '(' {
				return e + 1
			}
		}
	}
	return base64DecodeAt(t, i)
}

// base64DecodeAt returns where `\bbase64\s+(?:-[a-z]*d\b|--decode)`
// matches at i of t ends (its longest match), or -1.
func base64DecodeAt(t string, i int) int {
	e, ok := foldAt(t, i, "base64")
	if !ok || !boundaryAt(t, i) {
		return -1
	}
	j := skipSpace(t, e)
	if j == e || j == len(t) || t[j] != '-' {
		return -1
	}
	// `-[a-z]*d\b`: the last d of the letters after '-' with a boundary
	// after it (a letter is a word character; the Kelvin sign and the
	// long s, which (?i)[a-z] matches, are not).
	end := -1
	for k := j + 1; ; {
		w := foldWordAt(t, k)
		if w == 0 || w == 1 && !('a' <= t[k]|0x20 && t[k]|0x20 <= 'z') {
			break
		}
		if t[k]|0x20 == 'd' && boundaryAt(t, k+1) {
			end = k + 1
		}
		k += w
	}
	if end >= 0 {
		return end
	}
	if e, ok := foldAt(t, j, "--decode"); ok {
		return e
	}
	return -1
}

// routableIn reports whether one of the matches of ipv4 in t (which do
// not overlap) is an address routable takes.
func routableIn(t string) bool {
	for pos := 0; pos < len(t); {
		start, end, parts := nextIPv4(t, pos)
		if start < 0 {
			return false
		}
		if routable(parts[:]) {
			return true
		}
		pos = end
	}
	return false
}

// nextIPv4 returns ipv4's first match in t at or after pos (searched as
// the regexp package searches from there), its end, and its four
// numbers; start is -1 when there is none.
func nextIPv4(t string, pos int) (start, end int, parts [4]string) {
	for d := pos; d < len(t); d++ {
		if t[d] < '0' || t[d] > '9' {
			continue
		}
		// The number starts after a character of [^\w.], or at the
		// text's start (^).
		start = 0
		if d > 0 {
			if d == pos {
				continue
			}
			r, w := utf8.DecodeLastRuneInString(t[pos:d])
			if r < utf8.RuneSelf && (wordByte(byte(r)) || r == '.') {
				continue
			}
			start = d - w
		}
		j, ok := d, true
		for k := range 4 {
			n := j
			for n < len(t) && n-j < 4 && '0' <= t[n] && t[n] <= '9' {
				n++
			}
			if n == j || n-j > 3 || k < 3 && (n == len(t) || t[n] != '.') {
				ok = false
				break
			}
			parts[k] = t[j:n]
			j = n + 1
		}
		if !ok {
			continue
		}
		end = j - 1
		if end < len(t) {
			r, w := utf8.DecodeRuneInString(t[end:])
			if r < utf8.RuneSelf && (wordByte(byte(r)) || r == '.') {
				continue
			}
			end += w
		}
		return start, end, parts
	}
	return -1, -1, parts
}

// targetHosts calls yield with the host of each match of targetHost in
// t (the group that matched), in order, the matches not overlapping,
// until yield returns false.
func targetHosts(t string, yield func(host string) bool) {
	targetHostsRead(t, yield)
}

// targetHostsRead is targetHosts; it returns how many bytes its nc
// commands read, which the rest of a stretch looked at in vain bounds
// (ncState).
func targetHostsRead(t string, yield func(host string) bool) int {
	nc := ncState{searched: -1}
	for s := 0; s < len(t); s++ {
		host, end := targetAt(t, s, &nc)
		if end < 0 {
			continue
		}
		if !yield(host) {
			break
		}
		s = end - 1
	}
	return nc.read
}

// targetAt returns the host of targetHost's match at s of t and where
// the match ends, or -1: a URL's host, a /dev/tcp path's, a socat
// address's, or the host an nc command is given with a port.
func targetAt(t string, s int, nc *ncState) (host string, end int) {
	switch c := t[s] | 0x20; {
	case t[s] == '/':
		return devHost(t, s)
	case c == 'h' || c == 'f' || c == 'w':
		return urlHost(t, s)
	case c == 't':
		return socatHost(t, s)
	case c == 'n':
		return nc.host(t, s)
	}
	return "", -1
}

// urlHost is targetHost's
// `(?:https?|ftp|wss?)://(?:[^@/\s]*@)?([^/\s:"'<>)\]]+)`.
func urlHost(t string, s int) (string, int) {
	e := -1
	for _, w := range []string{"http", "ftp", "ws"} {
		if f, ok := foldAt(t, s, w); ok {
			e = f
			if w != "ftp" {
				if g, ok := foldAt(t, f, "s"); ok && strings.HasPrefix(t[g:], "://") {
					e = g
				}
			}
			break
		}
	}
	if e < 0 || !strings.HasPrefix(t[e:], "://") {
		return "", -1
	}
	u := e + len("://")
	// The user's part, up to an '@' before any '/' or space, when a
	// host follows it.
	at := u
	for at < len(t) && t[at] != '@' && t[at] != '/' && !spaceByte(t[at]) {
		at++
	}
	if at < len(t) && t[at] == '@' {
		if h := hostEnd(t, at+1); h > at+1 {
			return t[at+1 : h], h
		}
	}
	if h := hostEnd(t, u); h > u {
		return t[u:h], h
	}
	return "", -1
}

// hostEnd returns where a run of `[^/\s:"'<>)\]]` from i of t ends.
func hostEnd(t string, i int) int {
	for i < len(t) && !spaceByte(t[i]) && strings.IndexByte(`/:"'<>)]`, t[i]) < 0 {
		i++
	}
	return i
}

// devHost is targetHost's `/dev/(?:tcp|udp)/([^/\s]+)/`.
func devHost(t string, s int) (string, int) {
	e, ok := foldAt(t, s, "/dev/tcp/")
	if !ok {
		if e, ok = foldAt(t, s, "/dev/udp/"); !ok {
			return "", -1
		}
	}
	h := e
	for h < len(t) && t[h] != '/' && !spaceByte(t[h]) {
		h++
	}
	if h == e || h == len(t) || t[h] != '/' {
		return "", -1
	}
	return t[e:h], h + 1
}

// socatHost is targetHost's `\btcp[46]?(?:-connect)?:([^:,\s]+):\d`.
func socatHost(t string, s int) (string, int) {
	e, ok := foldAt(t, s, "tcp")
	if !ok || !boundaryAt(t, s) {
		return "", -1
	}
	if e < len(t) && (t[e] == '4' || t[e] == '6') {
		e++
	}
	if f, ok := foldAt(t, e, "-connect"); ok {
		e = f
	}
	if e == len(t) || t[e] != ':' {
		return "", -1
	}
	h := e + 1
	for h < len(t) && t[h] != ':' && t[h] != ',' && !spaceByte(t[h]) {
		h++
	}
	if h == e+1 || h+1 >= len(t) || t[h] != ':' || t[h+1] < '0' || t[h+1] > '9' {
		return "", -1
	}
	return t[e+1 : h], h + 2
}

// ncState is what the nc commands of a text learn: the end of the
// stretch without `\n|;` the last one looked at in vain, and how many
// bytes they read.
type ncState struct {
	// searched: an nc command before it found no host in the rest of
	// its stretch, which is all any nc command after it (and before
	// searched) would look at.
	searched int
	read     int
}

// host is targetHost's
// `\b(?:nc|ncat|netcat)\b[^\n|;]*?\s(host)\s+\d{1,5}\b` at s of t: the
// first word of the command after a space that is a host name or an
// IPv4 address (the whole word, which a space follows) and is followed
// by a port.
func (st *ncState) host(t string, s int) (string, int) {
	if s < st.searched {
		return "", -1
	}
	e := wordAt(t, s, "nc", "ncat", "netcat")
	if e < 0 {
		return "", -1
	}
	for p := e; p < len(t); p++ {
		st.read++
		c := t[p]
		if c == '|' || c == ';' {
			st.searched = p
			return "", -1
		}
		if !spaceByte(c) {
			continue
		}
		g := p + 1
		te := tokenEnd(t, g)
		st.read += te - g
		if te < len(t) && hostWord(t[g:te]) {
			d := skipSpace(t, te)
			n := d
			for n < len(t) && '0' <= t[n] && t[n] <= '9' {
				n++
			}
			if n > d && n-d <= 5 && (n == len(t) || !wordByte(t[n])) {
				return t[g:te], n
			}
		}
		if c == '\n' {
			st.searched = p
			return "", -1
		}
	}
	st.searched = len(t)
	return "", -1
}

// hostWord reports whether the whole of w is
// `[A-Za-z0-9][\w.-]*\.[A-Za-z]{2,}` or `\d{1,3}(?:\.\d{1,3}){3}`, case
// insensitive.
func hostWord(w string) bool {
	if ipv4Word(w) {
		return true
	}
	if w == "" || w[0] == '_' || foldWordAt(w, 0) == 0 {
		return false
	}
	dot := strings.LastIndexByte(w, '.')
	if dot < 1 {
		return false
	}
	letters := 0
	for i := dot + 1; i < len(w); {
		n := foldWordAt(w, i)
		if n == 0 || n == 1 && !('a' <= w[i]|0x20 && w[i]|0x20 <= 'z') {
			return false
		}
		letters, i = letters+1, i+n
	}
	for i := 0; i < dot; {
		n := foldWordAt(w, i)
		if n == 0 && w[i] != '.' && w[i] != '-' {
			return false
		}
		i += max(n, 1)
	}
	return letters >= 2
}

// ipv4Word reports whether the whole of w is `\d{1,3}(?:\.\d{1,3}){3}`.
func ipv4Word(w string) bool {
	dots, digits := 0, 0
	for i := 0; i < len(w); i++ {
		switch {
		case w[i] == '.' && digits > 0:
			dots, digits = dots+1, 0
		case '0' <= w[i] && w[i] <= '9' && digits < 3:
			digits++
		default:
			return false
		}
	}
	return dots == 3 && digits > 0
}

// matchProgramURL is programURL's MatchString: a URL whose path (or a
// part of it) ends in a program's or an archive's extension, then the
// URL's end, a query or a fragment.
func matchProgramURL(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i] | 0x20
		if c != 'h' && c != 'f' {
			continue
		}
		u := -1
		if e, ok := foldAt(t, i, "http"); ok {
			if f, ok := foldAt(t, e, "s"); ok && strings.HasPrefix(t[f:], "://") {
				u = f + len("://")
			} else if strings.HasPrefix(t[e:], "://") {
				u = e + len("://")
			}
		} else if e, ok := foldAt(t, i, "ftp"); ok && strings.HasPrefix(t[e:], "://") {
			u = e + len("://")
		}
		if u < 0 {
			continue
		}
		r := u
		for r < len(t) && !spaceByte(t[r]) && strings.IndexByte(`)"'<>]`, t[r]) < 0 {
			r++
		}
		for k := u + 1; k < r; k++ {
			if t[k] != '.' {
				continue
			}
			for _, ext := range []string{"exe", "msi", "dmg", "pkg", "zip", "7z", "rar", "scr", "bat", "cmd", "ps1", "appimage", "jar", "vbs"} {
				if x, ok := foldAt(t, k+1, ext); ok && (x == len(t) || spaceByte(t[x]) || strings.IndexByte(`)"'<>],;.!?#`, t[x]) >= 0) {
					return true
				}
			}
		}
		// A URL that starts later in the same run ends at r too, and
		// holds none of the extensions this one lacks.
		i = r - 1
	}
	return false
}

// findBase64Pipe is obfuscatedExec's first expression's
// FindStringIndex, base64 decoded and piped to a shell or an
// interpreter:
// `\bbase64\s+(?:-[a-z]*d\b|--decode)[^|\n]*\|\s*(?:shell|interpreter)`.
// A decode's \s+ may span a newline, which is passed over with it
// (pipedAfter).
func findBase64Pipe(t string) []int {
	return pipedAfter(t, &base64First, base64DecodeAt, runnerEnd)
}

// base64First holds the first byte of a base64 decode.
var base64First = firstBytes("b")

// findWebPipe is downloadExec's FindStringIndex of
// `\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(?:iex|invoke-expression)\b`.
func findWebPipe(t string) []int {
	return pipedAfter(t, &webFirst, func(t string, i int) int {
		return wordAt(t, i, "iwr", "irm", "invoke-webrequest", "invoke-restmethod")
	}, func(t string, p int, st pipeState) (int, pipeState) {
		return wordAt(t, p, "iex", "invoke-expression"), st
	})
}

// webFirst holds the first byte of findWebPipe's downloads.
var webFirst = firstBytes("i")

// matchIexDownload is downloadExec's `\b(?:iex|invoke-expression)\b`
// followed, past spaces and opening parentheses, by a download: iwr,
// irm, Invoke-WebRequest, Invoke-RestMethod, curl, wget or a new
// Net.WebClient.
func matchIexDownload(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i]|0x20 != 'i' {
			continue
		}
		e := wordAt(t, i, "iex", "invoke-expression")
		if e < 0 {
			continue
		}
		j := e
		for j < len(t) && (spaceByte(t[j]) || t[j] == '(') {
			j++
		}
		for _, w := range []string{"iwr", "irm", "invoke-webrequest", "invoke-restmethod", "curl", "wget"} {
			if _, ok := foldAt(t, j, w); ok {
				return true
			}
		}
		if f, ok := foldAt(t, j, "new-object"); ok {
			if g := skipSpace(t, f); g > f {
				if h, ok := foldAt(t, g, "system."); ok {
					g = h
				}
				if _, ok := foldAt(t, g, "net.webclient"); ok {
					return true
				}
			}
		}
	}
	return false
}

// matchNcShell is reverseShell's
// `\b(?:nc|ncat|netcat)\b[^\n;|]*\s-[a-z]*[ec]\s+\S*sh\b`: nc given
// -e or -c (alone or among other options) and a shell to run.
func matchNcShell(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i]|0x20 != 'n' {
			continue
		}
		e := wordAt(t, i, "nc", "ncat", "netcat")
		if e < 0 {
			continue
		}
		hi := len(t)
		if j := strings.IndexAny(t[e:], "\n;|"); j >= 0 {
			hi = e + j
		}
		for p := e; p <= hi && p+1 < len(t); p++ {
			if !spaceByte(t[p]) || t[p+1] != '-' {
				continue
			}
			// The option's letters ([a-z] matches the Kelvin sign and the
			// long s too), the last e or c, and a space.
			k, last := p+2, byte(0)
			for w := foldWordAt(t, k); w > 0 && (w > 1 || 'a' <= t[k]|0x20 && t[k]|0x20 <= 'z'); w = foldWordAt(t, k) {
				last, k = t[k]|0x20, k+w
			}
			if last != 'e' && last != 'c' || k == len(t) || !spaceByte(t[k]) {
				continue
			}
			x := skipSpace(t, k)
			te := tokenEnd(t, x)
			for j := x; j < te; j++ {
				if f, ok := foldAt(t, j, "sh"); ok && boundaryAt(t, f) {
					return true
				}
			}
		}
		i = hi
	}
	return false
}

// matchPlaceholder is placeholder's MatchString: a host that
// documentation of an attack names (attacker.com, evil-host,
// ATTACKER_IP, $LHOST, <attacker-ip>, ://evil/).
func matchPlaceholder(t string) bool {
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '$':
			if e, ok := foldAt(t, i+1, "lhost"); ok && boundaryAt(t, e) {
				return true
			}
			if e, ok := foldAt(t, i+1, "attacker"); ok && boundaryAfterWord(t, e) {
				return true
			}
		case c == '<':
			for _, w := range []string{"attacker", "your"} {
				if e, ok := foldAt(t, i+1, w); ok && strings.IndexByte(t[e:], '>') >= 0 {
					return true
				}
			}
		case c == ':':
			if !strings.HasPrefix(t[i:], "://") {
				continue
			}
			for _, w := range []string{"attacker", "evil"} {
				if e, ok := foldAt(t, i+3, w); ok && (e == len(t) || t[e] == '/' || t[e] == ':') {
					return true
				}
			}
		case c|0x20 == 'a' || c|0x20 == 'e' || c|0x20 == 'm' || c|0x20 == 'y' || c|0x20 == 'l':
			if placeholderNameAt(t, i) || placeholderWordAt(t, i) {
				return true
			}
		}
	}
	return false
}

// boundaryAfterWord reports whether `\w*\b` matches at e of t: a word
// boundary at e or after some of the word characters that follow it.
func boundaryAfterWord(t string, e int) bool {
	for {
		if boundaryAt(t, e) {
			return true
		}
		w := foldWordAt(t, e)
		if w == 0 {
			return false
		}
		e += w
	}
}

// placeholderNameAt reports whether placeholder's
// `(?:^|[^\w.-])(?:attacker|evil|malicious|example)(?:\.[a-z]{2,}\b|[-_](?:ip|host|server|domain)\b)`
// matches with the name at i of t.
func placeholderNameAt(t string, i int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(t[:i])
		if r == '.' || r == '-' || r < utf8.RuneSelf && wordByte(byte(r)) || r == '\u017f' || r == '\u212a' {
			return false
		}
	}
	for _, w := range []string{"attacker", "evil", "malicious", "example"} {
		e, ok := foldAt(t, i, w)
		if !ok {
			continue
		}
		if e < len(t) && t[e] == '.' {
			// Two or more letters, and a word boundary after some of
			// them from the second on.
			n, j := 0, e+1
			for w := foldWordAt(t, j); w > 0 && (w > 1 || 'a' <= t[j]|0x20 && t[j]|0x20 <= 'z'); w = foldWordAt(t, j) {
				n, j = n+1, j+w
				if n >= 2 && boundaryAt(t, j) {
					return true
				}
			}
		}
		if e < len(t) && (t[e] == '-' || t[e] == '_') {
			for _, s := range []string{"ip", "host", "server", "domain"} {
				if f, ok := foldAt(t, e+1, s); ok && boundaryAt(t, f) {
					return true
				}
			}
		}
	}
	return false
}

// placeholderWordAt reports whether placeholder's
// `\b(?:attacker|your|lhost|evil)[_-]?(?:ip|host|server)\b` matches at i
// of t.
func placeholderWordAt(t string, i int) bool {
	if !boundaryAt(t, i) {
		return false
	}
	for _, w := range []string{"attacker", "your", "lhost", "evil"} {
		e, ok := foldAt(t, i, w)
		if !ok {
			continue
		}
		if e < len(t) && (t[e] == '_' || t[e] == '-') {
			e++
		}
		for _, s := range []string{"ip", "host", "server"} {
			if f, ok := foldAt(t, e, s); ok && boundaryAt(t, f) {
				return true
			}
		}
	}
	return false
}

// findNearPath is secretStore's FindStringIndex of
// `(?:from)[^\n]{0,60}[/\\](?:to)\b`, for words (lower-case ASCII, a
// space or a dot among them) that start with a byte of firsts in either
// case, from and to in the expression's order of preference: the first
// place where a word of from starts a match, and there the first such
// word's end. Each place reads at most 61 characters ahead.
func findNearPath(t, firsts string, from, to []string) []int {
	for i := 0; i < len(t); i++ {
		if strings.IndexByte(firsts, t[i]|0x20) < 0 {
			continue
		}
		for _, w := range from {
			if e, ok := foldAt(t, i, w); ok {
				if f := nearPathEnd(t, e, to); f >= 0 {
					return []int{i, f}
				}
			}
		}
	}
	return nil
}

// nearPathEnd returns where `[^\n]{0,60}[/\\](?:to)\b` matched at e of
// t ends, or -1. `[^\n]{0,60}` is greedy: of the slashes and
// backslashes that end at most 60 characters (runes, or bytes that are
// not UTF-8) of the line from e, the last that a word of to follows (the
// first of them that does, and a word boundary after it) is the match's.
func nearPathEnd(t string, e int, to []string) int {
	end := -1
	for p, n := e, 0; p < len(t) && n <= 60 && t[p] != '\n'; n++ {
		if t[p] == '/' || t[p] == '\\' {
			for _, x := range to {
				if f, ok := foldAt(t, p+1, x); ok && boundaryAt(t, f) {
					end = f
					break
				}
			}
		}
		_, w := utf8.DecodeRuneInString(t[p:])
		p += w
	}
	return end
}

// findBrowserStore is secretStore's first expression's FindStringIndex:
// a browser's saved passwords, cookies or keys.
func findBrowserStore(t string) []int {
	return findNearPath(t, "cebovfup", []string{"chrome", "chromium", "edge", "brave", "opera", "vivaldi", "firefox", "user data", "profiles", "profile"},
		[]string{"login data", "cookies", "web data", "local state"})
}

// findFirefoxStore is secretStore's second expression's
// FindStringIndex: Firefox's saved passwords, cookies or keys.
func findFirefoxStore(t string) []int {
	return findNearPath(t, "fmp", []string{"firefox", "mozilla", "profiles", "profile"}, []string{"key4.db", "logins.json", "cookies.sqlite"})
}

// mayDecodeArg reports whether t holds what each match of decodeArg
// starts with: b64decode or FromBase64String and an opening
// parenthesis, or echo or printf after a word boundary and before a
// space. Without it, rule 7's inert decode has no payload to read.
func mayDecodeArg(t string) bool {
	for i := 0; i < len(t); i++ {
		if decodeArgStart(t, i) {
			return true
		}
	}
	return false
}

// decodeArgStart reports whether t holds at i what a match of decodeArg
// starting there starts with (see mayDecodeArg).
func decodeArgStart(t string, i int) bool {
	switch t[i] | 0x20 {
	case 'b', 'f':
		for _, w := range []string{"b64decode", "frombase64string"} {
			if e, ok := foldAt(t, i, w); ok {
				if e = skipSpace(t, e); e < len(t) && t[e] == '(' {
					return true
				}
			}
		}
	case 'e', 'p':
		if !boundaryAt(t, i) {
			return false
		}
		for _, w := range []string{"echo", "printf"} {
			if e, ok := foldAt(t, i, w); ok && e < len(t) && spaceByte(t[e]) {
				return true
			}
		}
	}
	return false
}

// decodeArgs is decodeArg's FindAllStringSubmatchIndex(t, -1): its
// match is looked for at each place decodeArgStart allows, from the
// first on and past each match (its matches are never empty), and
// decodeArgAt reads it there as the expression prefers it.
func decodeArgs(t string) [][]int {
	var all [][]int
	for i := 0; i < len(t); i++ {
		if !decodeArgStart(t, i) {
			continue
		}
		m := decodeArgAt(t, i)
		if m == nil {
			continue
		}
		all = append(all, m)
		i = m[1] - 1
	}
	return all
}

// decodeArgAt returns decodeArg's match at i of t, where decodeArgStart
// holds, with its groups' places (-1 for a group not matched), or nil.
//
// Of b64decode( or FromBase64String(, the argument is a literal (with
// b before it: tried first) or a name: the literal runs to the first
// quotation mark or newline, the name as far as its word characters
// go, as anything shorter would leave the closing parenthesis unmet.
//
// Of echo or printf, the words that start with a dash and are followed
// by spaces are its options, all of them: taking fewer puts a dash in
// the word echoed, which then ends before a space that no pipe
// follows, or at the same pipe. The word echoed, after a quotation
// mark (taken first), runs as far as it can, and a quotation mark may
// close it; then spaces, a pipe, spaces and base64's decode.
func decodeArgAt(t string, i int) []int {
	if c := t[i] | 0x20; c == 'b' || c == 'f' {
		j := -1
		for _, w := range []string{"b64decode", "frombase64string"} {
			if e, ok := foldAt(t, i, w); ok {
				if e = skipSpace(t, e); e < len(t) && t[e] == '(' {
					j = skipSpace(t, e+1)
				}
				break
			}
		}
		if j < 0 || j == len(t) {
			return nil
		}
		quote := func(k int) bool { return k < len(t) && (t[k] == '"' || t[k] == '\'') }
		lit := -1
		switch {
		case t[j]|0x20 == 'b' && quote(j+1):
			lit = j + 2
		case quote(j):
			lit = j + 1
		}
		if lit >= 0 {
			k := lit
			for k < len(t) && t[k] != '"' && t[k] != '\'' && t[k] != '\n' {
				k++
			}
			if quote(k) {
				if x := skipSpace(t, k+1); x < len(t) && t[x] == ')' {
					return []int{i, x + 1, lit, k, -1, -1, -1, -1}
				}
			}
			// Nor is b a name: the quotation mark after it is no
			// closing parenthesis.
			return nil
		}
		k := j
		for first := true; ; first = false {
			w := foldWordAt(t, k)
			if w == 0 || first && '0' <= t[k] && t[k] <= '9' {
				break
			}
			k += w
		}
		if k == j {
			return nil
		}
		if x := skipSpace(t, k); x < len(t) && t[x] == ')' {
			return []int{i, x + 1, -1, -1, j, k, -1, -1}
		}
		return nil
	}
	e := -1
	for _, w := range []string{"echo", "printf"} {
		if f, ok := foldAt(t, i, w); ok {
			e = f
			break
		}
	}
	if e < 0 || !boundaryAt(t, i) {
		return nil
	}
	q := skipSpace(t, e)
	if q == e {
		return nil
	}
	// The options: a dash, letters (of (?i)[a-z]) and spaces.
	for q < len(t) && t[q] == '-' {
		k := q + 1
		for {
			if w := foldWordAt(t, k); w > 1 || w == 1 && 'a' <= t[k]|0x20 && t[k]|0x20 <= 'z' {
				k += w
				continue
			}
			break
		}
		next := skipSpace(t, k)
		if k == q+1 || next == k {
			break
		}
		q = next
	}
	start := q
	if q < len(t) && (t[q] == '"' || t[q] == '\'') {
		start = q + 1
	}
	end := start
	for end < len(t) && !spaceByte(t[end]) && strings.IndexByte("\"'|;$`", t[end]) < 0 {
		end++
	}
	x := end
	if x < len(t) && (t[x] == '"' || t[x] == '\'') {
		x++
	}
	if x = skipSpace(t, x); x == len(t) || t[x] != '|' {
		return nil
	}
	if f := base64DecodeAt(t, skipSpace(t, x+1)); f >= 0 {
		return []int{i, f, -1, -1, -1, -1, start, end}
	}
	return nil
}

// matchEncodedCommand is encodedCommand's MatchString: PowerShell
// (`\b(?:powershell|pwsh)(?:\.exe)?\b`) and later on its line an encoded
// command, `\s-(?:e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}`. The
// first PowerShell of a line reaches farthest, to its newline (which
// `\s` matches), so each line asks only its first.
func matchEncodedCommand(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i] | 0x20; c != 'p' || !boundaryAt(t, i) {
			continue
		}
		e := -1
		for _, w := range []string{"powershell", "pwsh"} {
			if f, ok := foldAt(t, i, w); ok {
				e = f
				break
			}
		}
		if e < 0 {
			continue
		}
		if !boundaryAt(t, e) {
			if f, ok := foldAt(t, e, ".exe"); ok && boundaryAt(t, f) {
				e = f
			} else {
				continue
			}
		}
		end := lineEnd(t, e)
		for p := e; p <= end && p+1 < len(t); p++ {
			if spaceByte(t[p]) && t[p+1] == '-' && encodedArg(t, p+2) {
				return true
			}
		}
		i = end
	}
	return false
}

// encodedArg reports whether t holds at i what follows the dash of
// PowerShell's encoded command: `(?:e|ec|enc|encodedcommand)\s+` and 16
// characters of `[A-Za-z0-9+/=]` (whose letters are the Kelvin sign and
// the long s too).
func encodedArg(t string, i int) bool {
	for _, w := range []string{"e", "ec", "enc", "encodedcommand"} {
		e, ok := foldAt(t, i, w)
		if !ok || e == len(t) || !spaceByte(t[e]) {
			continue
		}
		n := 0
		for p := skipSpace(t, e); p < len(t) && n < 16; n++ {
			if c := t[p]; wordByte(c) && c != '_' || c == '+' || c == '/' || c == '=' {
				p++
			} else if w := foldWordAt(t, p); w > 1 {
				p += w
			} else {
				break
			}
		}
		if n == 16 {
			return true
		}
	}
	return false
}

// matchPrintenvPipe is envDump's `\bprintenv\b[^\n]*\|\s*(?:curl|wget|nc)`:
// printenv piped later on its line to a command that sends.
func matchPrintenvPipe(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i]|0x20 != 'p' {
			continue
		}
		e := wordAt(t, i, "printenv")
		if e < 0 {
			continue
		}
		end := lineEnd(t, e)
		for p := e; p < end; p++ {
			if t[p] != '|' {
				continue
			}
			q := skipSpace(t, p+1)
			for _, w := range []string{"curl", "wget", "nc"} {
				if _, ok := foldAt(t, q, w); ok {
					return true
				}
			}
		}
		i = end
	}
	return false
}

// matchEvalDecode is obfuscatedExec's
// `\b(?:eval|exec|(?:ba|z)?sh\s+-c)\s*["']?\$\([^)\n]*\bbase64\s+(?:-[a-z]*d\b|--decode)`:
// eval, exec or a shell's -c given a command substitution that decodes
// base64 before it closes or its line ends.
func matchEvalDecode(t string) bool {
	ok, _ := matchEvalDecodeRead(t)
	return ok
}

// matchEvalDecodeRead is matchEvalDecode; it also returns how many
// bytes the command substitutions' scans read: a substitution that
// opens before the ')' or newline where the last scan stopped in vain
// stops there too, with no decode before it, and is not read again.
func matchEvalDecodeRead(t string) (bool, int) {
	stop, read := -1, 0
	for i := 0; i < len(t); i++ {
		if c := t[i] | 0x20; c != 'e' && c != 'b' && c != 'z' && c != 's' && t[i] != 0xc5 || !boundaryAt(t, i) {
			continue
		}
		e := -1
		for _, w := range []string{"eval", "exec"} {
			if f, ok := foldAt(t, i, w); ok {
				e = f
			}
		}
		for _, w := range []string{"bash", "zsh", "sh"} {
			if f, ok := foldAt(t, i, w); ok {
				if g := skipSpace(t, f); g > f {
					if h, ok := foldAt(t, g, "-c"); ok {
						e = h
					}
				}
			}
		}
		if e < 0 {
			continue
		}
		j := skipSpace(t, e)
		if j < len(t) && (t[j] == '"' || t[j] == '\'') {
			j++
		}
		if j < stop || !strings.HasPrefix(t[j:], "$(") {
			continue
		}
		q := j + 2
		for ; q < len(t) && t[q] != ')' && t[q] != '\n'; q++ {
			read++
			if t[q]|0x20 == 'b' && base64DecodeAt(t, q) >= 0 {
				return true, read
			}
		}
		stop = q
	}
	return false, read
}

// findArchiveHome is secretStore's FindStringIndex of
// `\b(?:tar|zip|cp\s+-r|rsync|copy-item)\b[^\n|;]*(?:~|\$home)[/\\]\.(?:ssh|aws|gnupg)\b`:
// a home folder's keys archived or copied whole. The match starts at
// the first command of the first stretch of a line without `\n|;` that
// holds such a folder after it, and `[^\n|;]*` takes the stretch's last
// folder.
func findArchiveHome(t string) []int {
	for i := 0; i < len(t); i++ {
		if c := t[i] | 0x20; c != 't' && c != 'z' && c != 'c' && c != 'r' || !boundaryAt(t, i) {
			continue
		}
		e := -1
		for _, w := range []string{"tar", "zip", "rsync", "copy-item"} {
			if f, ok := foldAt(t, i, w); ok && boundaryAt(t, f) {
				e = f
			}
		}
		if f, ok := foldAt(t, i, "cp"); ok {
			if g := skipSpace(t, f); g > f {
				if h, ok := foldAt(t, g, "-r"); ok && boundaryAt(t, h) {
					e = h
				}
			}
		}
		if e < 0 {
			continue
		}
		hi := len(t)
		if j := strings.IndexAny(t[e:], "\n|;"); j >= 0 {
			hi = e + j
		}
		for q := hi - 1; q >= e; q-- {
			f := -1
			if t[q] == '~' {
				f = q + 1
			} else if g, ok := foldAt(t, q, "$home"); ok {
				f = g
			}
			if f < 0 || f+1 >= len(t) || t[f] != '/' && t[f] != '\\' || t[f+1] != '.' {
				continue
			}
			for _, w := range []string{"ssh", "aws", "gnupg"} {
				if g, ok := foldAt(t, f+2, w); ok && boundaryAt(t, g) {
					return []int{i, g}
				}
			}
		}
		// A later command of the stretch finds no more, but for a
		// `cp\s+-r` whose \s+ runs over the newline that ends it, which
		// starts a stretch of the lines after.
		i = hi - 1
		if hi < len(t) && t[hi] == '\n' {
			if k := spacesBefore(t, hi, e) - len("cp"); k >= e {
				if _, ok := foldAt(t, k, "cp"); ok && boundaryAt(t, k) {
					i = k - 1
				}
			}
		}
	}
	return nil
}

// findDevSocket is reverseShell's FindStringIndex of
// `/dev/(?:tcp|udp)/[^/\s]+/\d+`: a socket that bash opens as a file.
func findDevSocket(t string) []int {
	for i := 0; ; i++ {
		j := strings.IndexByte(t[i:], '/')
		if j < 0 {
			return nil
		}
		i += j
		e, ok := foldAt(t, i, "/dev/")
		if !ok {
			continue
		}
		f, ok := foldAt(t, e, "tcp/")
		if !ok {
			if f, ok = foldAt(t, e, "udp/"); !ok {
				continue
			}
		}
		h := f
		for h < len(t) && t[h] != '/' && !spaceByte(t[h]) {
			h++
		}
		if h == f || h == len(t) || t[h] != '/' {
			continue
		}
		d := h + 1
		for d < len(t) && '0' <= t[d] && t[d] <= '9' {
			d++
		}
		if d > h+1 {
			return []int{i, d}
		}
	}
}

// findOverride is override's first expression's FindStringIndex,
// `\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+|my\s+)*(?:previous|prior|above|earlier|preceding|original|system|safety)\s+(?:instructions|prompts?|rules|guidelines|directives|messages|context)\b`:
// an instruction to ignore the ones before. Its words are read one
// after another: no word of one part starts another part's word, so a
// phrase reads one way, and the first place it starts is the match.
func findOverride(t string) []int {
	for i := 0; i < len(t); i++ {
		switch t[i] | 0x20 {
		case 'i', 'd', 'f', 'o', 'b':
		default:
			continue
		}
		if !boundaryAt(t, i) {
			continue
		}
		if e := overrideAt(t, i); e >= 0 {
			return []int{i, e}
		}
	}
	return nil
}

// overrideAt returns where findOverride's phrase starting at i of t
// ends, or -1.
func overrideAt(t string, i int) int {
	e := wordsAt(t, i, "ignore", "disregard", "forget", "override", "bypass")
	if e < 0 {
		return -1
	}
	j := skipSpace(t, e)
	if j == e {
		return -1
	}
	// The words between, each followed by spaces, as many as there are.
	for {
		f := wordsAt(t, j, "all", "any", "the", "your", "of", "my")
		if f < 0 {
			break
		}
		g := skipSpace(t, f)
		if g == f {
			break
		}
		j = g
	}
	f := wordsAt(t, j, "previous", "prior", "above", "earlier", "preceding", "original", "system", "safety")
	if f < 0 {
		return -1
	}
	g := skipSpace(t, f)
	if g == f {
		return -1
	}
	for _, w := range []string{"instructions", "prompts", "prompt", "rules", "guidelines", "directives", "messages", "context"} {
		if h, ok := foldAt(t, g, w); ok && boundaryAt(t, h) {
			return h
		}
	}
	return -1
}

// wordsAt returns where the first of words (lower-case ASCII) that t
// holds at i, in any case, ends, or -1.
func wordsAt(t string, i int, words ...string) int {
	for _, w := range words {
		if e, ok := foldAt(t, i, w); ok {
			return e
		}
	}
	return -1
}

// findConceal is conceal's first expression's FindStringIndex,
// `\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|inform|notify|reveal|disclose)\s+`
// then what is not told (`(?:(?:this|that|it|anything|any\s+of\s+this|these\s+steps)\s+)?`),
// `(?:to\s+)?(?:the\s+)?user` and how the sentence goes on: an
// instruction to keep something from the user. As findOverride, it
// reads words one after another: no word of a part starts another
// word the place allows, so a phrase reads one way.
func findConceal(t string) []int {
	for i := 0; i < len(t); i++ {
		if c := t[i] | 0x20; c != 'd' && c != 'n' || !boundaryAt(t, i) {
			continue
		}
		if e := concealAt(t, i); e >= 0 {
			return []int{i, e}
		}
	}
	return nil
}

// concealAt returns where findConceal's phrase starting at i of t ends,
// or -1.
func concealAt(t string, i int) int {
	e := -1
	if f, ok := foldAt(t, i, "do"); ok {
		if g := skipSpace(t, f); g > f {
			if h, ok := foldAt(t, g, "not"); ok {
				e = h
			}
		}
	}
	if f, ok := foldAt(t, i, "don"); e < 0 && ok {
		if f < len(t) && t[f] == '\'' {
			f++
		}
		if g, ok := foldAt(t, f, "t"); ok {
			e = g
		}
	}
	if f, ok := foldAt(t, i, "never"); e < 0 && ok {
		e = f
	}
	if e < 0 {
		return -1
	}
	// spaced returns where spaces after the first of words at j end, or
	// -1.
	spaced := func(j int, words ...string) int {
		f := wordsAt(t, j, words...)
		if f < 0 {
			return -1
		}
		if g := skipSpace(t, f); g > f {
			return g
		}
		return -1
	}
	j := skipSpace(t, e)
	if j == e {
		return -1
	}
	if j = spaced(j, "tell", "mention", "inform", "notify", "reveal", "disclose"); j < 0 {
		return -1
	}
	// What is not told, each word and its spaces.
	k := spaced(j, "this", "that", "it", "anything")
	if k < 0 {
		if k = spaced(j, "any"); k >= 0 {
			if k = spaced(k, "of"); k >= 0 {
				k = spaced(k, "this")
			}
		}
	}
	if k < 0 {
		if k = spaced(j, "these"); k >= 0 {
			k = spaced(k, "steps")
		}
	}
	if k >= 0 {
		j = k
	}
	if k := spaced(j, "to"); k >= 0 {
		j = k
	}
	if k := spaced(j, "the"); k >= 0 {
		j = k
	}
	u, ok := foldAt(t, j, "user")
	if !ok {
		return -1
	}
	// `\s*(?:$|[.,;:!)\]-])`, or `\s+` and a word of what follows.
	k = skipSpace(t, u)
	if k == len(t) {
		return k
	}
	if strings.IndexByte(".,;:!)]-", t[k]) >= 0 {
		return k + 1
	}
	if k == u {
		return -1
	}
	// The words after user need no boundary after them; those after
	// about do.
	if f := wordsAt(t, k, "that", "what", "you", "anything"); f >= 0 {
		return f
	}
	k = spaced(k, "about")
	if k < 0 {
		return -1
	}
	for _, w := range []string{"this", "it", "these", "that"} {
		if f, ok := foldAt(t, k, w); ok && boundaryAt(t, f) {
			return f
		}
	}
	if k = spaced(k, "the"); k < 0 {
		return -1
	}
	for _, w := range []string{"command", "script", "download", "upload", "request", "file", "step", "installation"} {
		if f, ok := foldAt(t, k, w); ok {
			if g, ok := foldAt(t, f, "s"); ok && boundaryAt(t, g) {
				return g
			}
			if boundaryAt(t, f) {
				return f
			}
		}
	}
	return -1
}

// findWallet is secretStore's FindStringIndex of
// `\bwallet\.dat\b|[/\\]exodus[/\\]|\bexodus\.wallet\b|\.electrum[/\\]wallets|\bnkbihfbeogaeaoehlefnkodbefgpgknn\b|\bkeystore[/\\]utc--`:
// a wallet's file or folder. Its alternatives start with different
// characters, so at most one matches at a place; the first place where
// one does is the match.
func findWallet(t string) []int {
	for i := 0; i < len(t); i++ {
		var e int
		switch t[i] {
		case 'w', 'W':
			e = wordAt(t, i, "wallet.dat")
		case '/', '\\':
			if f, ok := foldAt(t, i+1, "exodus"); ok && f < len(t) && (t[f] == '/' || t[f] == '\\') {
				e = f + 1
			} else {
				e = -1
			}
		case 'e', 'E':
			e = wordAt(t, i, "exodus.wallet")
		case '.':
			e = -1
			if f, ok := pathAt(t, i, ".electrum/wallets"); ok {
				e = f
			}
		case 'n', 'N':
			e = wordAt(t, i, "nkbihfbeogaeaoehlefnkodbefgpgknn")
		case 'k', 'K', 0xe2:
			// k, or the Kelvin sign's first byte.
			e = -1
			if f, ok := pathAt(t, i, "keystore/utc--"); ok && boundaryAt(t, i) {
				e = f
			}
		default:
			continue
		}
		if e >= 0 {
			return []int{i, e}
		}
	}
	return nil
}

// seqAt returns where a phrase of parts, each a word or a few (as
// "your|the", tried in that order), with `\s+` between them, matched at
// i of t in any case, ends, or -1. No word of a part starts with a
// space, so the spaces between them are all the spaces there.
func seqAt(t string, i int, parts ...string) int {
	for k, p := range parts {
		if k > 0 {
			j := skipSpace(t, i)
			if j == i {
				return -1
			}
			i = j
		}
		e := -1
		for more := true; more; {
			var w string
			w, p, more = strings.Cut(p, "|")
			if f, ok := foldAt(t, i, w); ok {
				e = f
				break
			}
		}
		if e < 0 {
			return -1
		}
		i = e
	}
	return i
}

// findNewPrompt is override's FindStringIndex of
// `\b(?:your|the\s+following\s+is\s+(?:your|the))\s+new\s+system\s+prompt\b|\bnew\s+system\s+prompt\s*:`:
// a new system prompt given. Its alternatives start with different
// letters.
func findNewPrompt(t string) []int {
	for i := 0; i < len(t); i++ {
		e := -1
		switch t[i] | 0x20 {
		case 'y':
			e = seqAt(t, i, "your", "new", "system", "prompt")
		case 't':
			e = seqAt(t, i, "the", "following", "is", "your|the", "new", "system", "prompt")
		case 'n':
			if f := seqAt(t, i, "new", "system", "prompt"); f >= 0 {
				if g := skipSpace(t, f); g < len(t) && t[g] == ':' && boundaryAt(t, i) {
					return []int{i, g + 1}
				}
			}
			continue
		default:
			continue
		}
		if e >= 0 && boundaryAt(t, i) && boundaryAt(t, e) {
			return []int{i, e}
		}
	}
	return nil
}

// findNowInMode is override's FindStringIndex of
// `\byou\s+are\s+now\s+in\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode\b`.
func findNowInMode(t string) []int {
	for i := 0; i < len(t); i++ {
		if t[i]|0x20 != 'y' || !boundaryAt(t, i) {
			continue
		}
		if e := seqAt(t, i, "you", "are", "now", "in", "developer|dan|god|jailbreak|unrestricted", "mode"); e >= 0 && boundaryAt(t, e) {
			return []int{i, e}
		}
	}
	return nil
}

// findKeychain is secretStore's FindStringIndex of
// `\bsecurity\s+(?:dump-keychain|find-(?:generic|internet)-password\b[^\n|;]*\s-[a-z]*[wg][a-z]*\b)`:
// the keychain dumped, or a password printed from it (-w, -g). Of a
// find-...-password, `[^\n|;]*` takes the stretch's last option that
// prints, whose space may be the newline that ends the stretch.
func findKeychain(t string) []int {
	// searched: a find-...-password before it found no option in the
	// stretch up to it, nor will one after it in the stretch.
	searched := -1
	for i := 0; i < len(t); i++ {
		if c := t[i]; c|0x20 != 's' && c != 0xc5 || !boundaryAt(t, i) {
			continue
		}
		e, ok := foldAt(t, i, "security")
		if !ok {
			continue
		}
		j := skipSpace(t, e)
		if j == e {
			continue
		}
		if f, ok := foldAt(t, j, "dump-keychain"); ok {
			return []int{i, f}
		}
		f := seqAt(t, j, "find-")
		if f < 0 {
			continue
		}
		if g := seqAt(t, f, "generic|internet"); g >= 0 {
			f = seqAt(t, g, "-password")
		} else {
			f = -1
		}
		if f < 0 || !boundaryAt(t, f) || f < searched {
			continue
		}
		hi := len(t)
		if k := strings.IndexAny(t[f:], "\n|;"); k >= 0 {
			hi = f + k
		}
		for p := min(hi, len(t)-1); p >= f; p-- {
			if end := printOptionEnd(t, p); end >= 0 {
				return []int{i, end}
			}
		}
		searched = hi
	}
	return nil
}

// printOptionEnd returns where `\s-[a-z]*[wg][a-z]*\b` matched at p of t
// ends, or -1: of the letters after the dash (in any case, and the
// Kelvin sign and the long s, which are no word characters of \b), the
// expression takes the last w or g it can, and then as many of the
// letters after it as leave a word boundary.
func printOptionEnd(t string, p int) int {
	if !spaceByte(t[p]) || p+1 >= len(t) || t[p+1] != '-' {
		return -1
	}
	// ends[k] is where the first k letters end; wg[k] whether the
	// letter k is a w or a g.
	ends, wg := []int{p + 2}, []bool{}
	for q := p + 2; q < len(t); {
		w := 0
		switch c := t[q]; {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			w = 1
		case strings.HasPrefix(t[q:], "\u212a"):
			w = len("\u212a")
		case strings.HasPrefix(t[q:], "\u017f"):
			w = len("\u017f")
		}
		if w == 0 {
			break
		}
		wg = append(wg, w == 1 && (t[q]|0x20 == 'w' || t[q]|0x20 == 'g'))
		q += w
		ends = append(ends, q)
	}
	// The last boundary after a w or a g: every w or g before it
	// reaches it, and the expression takes the last that does.
	for b := len(wg); b > 0; b-- {
		if boundaryAt(t, ends[b]) {
			if slices.Contains(wg[:b], true) {
				return ends[b]
			}
			break
		}
	}
	return -1
}

// findEnvSearch is secretStore's FindStringIndex of
// `\bfind\b[^\n]*-i?name\s+["']?\.env\b|\b(?:r?glob)\([^)\n]*\.env\b|\bget-childitem\b[^\n]*-(?:filter|include)\s+["']?\.env\b`:
// .env files looked for. Its alternatives start with different words,
// and the run of any character before the name takes the last name it
// can.
func findEnvSearch(t string) []int {
	// Each alternative's search before reached the end of a line or of
	// glob's argument, up to which one starting later finds nothing.
	var searched [3]int
	for i := 0; i < len(t); i++ {
		switch t[i] | 0x20 {
		case 'f', 'g', 'r':
		default:
			continue
		}
		if !boundaryAt(t, i) {
			continue
		}
		if e := wordAt(t, i, "find"); e >= 0 {
			if i >= searched[0] {
				hi := lineEnd(t, e)
				if end := lastEnvName(t, e, hi, "-iname|-name"); end >= 0 {
					return []int{i, end}
				}
				searched[0] = hi
			}
			continue
		}
		if e := seqAt(t, i, "rglob(|glob("); e >= 0 {
			if i >= searched[1] {
				hi := e
				for hi < len(t) && t[hi] != ')' && t[hi] != '\n' {
					hi++
				}
				for q := hi - 4; q >= e; q-- {
					if f, ok := foldAt(t, q, ".env"); ok && boundaryAt(t, f) {
						return []int{i, f}
					}
				}
				searched[1] = hi
			}
			continue
		}
		if e := wordAt(t, i, "get-childitem"); e >= 0 && i >= searched[2] {
			hi := lineEnd(t, e)
			if end := lastEnvName(t, e, hi, "-filter|-include"); end >= 0 {
				return []int{i, end}
			}
			searched[2] = hi
		}
	}
	return nil
}

// lastEnvName returns where the last match in t[from:hi] (its start
// there; it may end past hi) of `OPTION\s+["']?\.env\b` ends, or -1,
// option being the words of opts.
func lastEnvName(t string, from, hi int, opts string) int {
	for q := hi - 1; q >= from; q-- {
		if t[q] != '-' {
			continue
		}
		e := seqAt(t, q, opts)
		if e < 0 {
			continue
		}
		j := skipSpace(t, e)
		if j == e {
			continue
		}
		if j < len(t) && (t[j] == '"' || t[j] == '\'') {
			j++
		}
		if f, ok := foldAt(t, j, ".env"); ok && boundaryAt(t, f) {
			return f
		}
	}
	return -1
}

// findShellDownload is downloadExec's FindStringIndex of
// `\b(?:(?:ba|z)?sh|python[0-9.]*|perl|ruby|node)\s+-c\s+["']?\$\(\s*(?:curl|wget)\b`:
// a shell or an interpreter given a download's output as its program.
func findShellDownload(t string) []int {
	for i := 0; i < len(t); i++ {
		switch t[i] | 0x20 {
		case 'b', 'z', 's', 'p', 'r', 'n':
		default:
			if t[i] != 0xc5 {
				continue
			}
		}
		if !boundaryAt(t, i) {
			continue
		}
		e := seqAt(t, i, "bash|zsh|sh|perl|ruby|node")
		if e < 0 {
			if e = seqAt(t, i, "python"); e >= 0 {
				for e < len(t) && ('0' <= t[e] && t[e] <= '9' || t[e] == '.') {
					e++
				}
			}
		}
		if e < 0 {
			continue
		}
		e = seqAt(t, e, "", "-c", "")
		if e < 0 {
			continue
		}
		if e < len(t) && (t[e] == '"' || t[e] == '\'') {
			e++
		}
		if !strings.HasPrefix(t[e:], "$(") {
			continue
		}
		if f := wordAt(t, skipSpace(t, e+2), "curl", "wget"); f >= 0 {
			return []int{i, f}
		}
	}
	return nil
}

// findExecDecode is obfuscatedExec's FindStringIndex of
// `\bexec\s*\([^\n]*b64decode\b`: the line's last b64decode after it.
func findExecDecode(t string) []int {
	for i := 0; i < len(t); i++ {
		if t[i]|0x20 != 'e' || !boundaryAt(t, i) {
			continue
		}
		e, ok := foldAt(t, i, "exec")
		if !ok {
			continue
		}
		if e = skipSpace(t, e); e == len(t) || t[e] != '(' {
			continue
		}
		hi := lineEnd(t, e+1)
		for q := hi - len("b64decode"); q > e; q-- {
			if f, ok := foldAt(t, q, "b64decode"); ok && boundaryAt(t, f) {
				return []int{i, f}
			}
		}
		// A later exec( on the line finds no more, but for an exec that
		// ends the line: its \s* runs over the newline, and its
		// b64decode is on a line after.
		i = hi - 1
		if k := spacesBefore(t, hi, e+1) - len("exec"); k > e {
			if _, ok := foldAt(t, k, "exec"); ok && boundaryAt(t, k) {
				i = k - 1
			}
		}
	}
	return nil
}

// spacesBefore returns where the run of bytes of \s that ends at hi
// (hi itself not counted) starts, looking back no further than lo.
func spacesBefore(t string, hi, lo int) int {
	for hi > lo && spaceByte(t[hi-1]) {
		hi--
	}
	return hi
}

// findSocatExec is reverseShell's FindStringIndex of
// `\bsocat\b[^\n]*\b(?:exec|system):`: the line's last exec: or
// system: after socat.
func findSocatExec(t string) []int {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c|0x20 != 's' && c != 0xc5 {
			continue
		}
		e := wordAt(t, i, "socat")
		if e < 0 {
			continue
		}
		hi := lineEnd(t, e)
		for q := hi - len("exec:"); q >= e; q-- {
			if !boundaryAt(t, q) {
				continue
			}
			if f := seqAt(t, q, "exec:|system:"); f >= 0 {
				return []int{i, f}
			}
		}
		// A later socat on the line finds no more.
		i = hi
	}
	return nil
}

// matchRedefined is redefined's MatchString,
// `\bdef\s+b64decode\b|(?:b64decode|frombase64string)\s*=[^=]|\bfunction\s+\S*frombase64string`:
// b64decode or FromBase64String given another meaning.
func matchRedefined(t string) bool {
	for i := 0; i < len(t); i++ {
		switch t[i] | 0x20 {
		case 'd':
			if e := seqAt(t, i, "def", "b64decode"); e >= 0 && boundaryAt(t, i) && boundaryAt(t, e) {
				return true
			}
		case 'b', 'f':
			e := seqAt(t, i, "b64decode|frombase64string")
			if e >= 0 {
				if j := skipSpace(t, e); j+1 < len(t) && t[j] == '=' && t[j+1] != '=' {
					return true
				}
			}
			if e = seqAt(t, i, "function", ""); e >= 0 && boundaryAt(t, i) {
				for k, end := e, tokenEnd(t, e); k < end; k++ {
					if _, ok := foldAt(t, k, "frombase64string"); ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// findPipURL is downloadExec's FindStringIndex of
// `\b(?:pip[0-9.]*|pipx|uv\s+pip|uv\s+tool)\s+install\b[^\n]*?\s(?:git\+)?(?:https?|ssh)://`:
// a package installed from a URL. The first space after install (the
// newline that ends the line included) that a URL follows ends the
// match; where the rest of a line after an install has none, a later
// install whose rest is a part of it is passed over (one whose spaces
// run on to the next line is not).
func findPipURL(t string) []int {
	// The rest of a line searched in vain: from searched[0] to the
	// newline (or the end) at searched[1].
	searched := [2]int{-1, -1}
	for i := 0; i < len(t); i++ {
		if c := t[i] | 0x20; c != 'p' && c != 'u' || !boundaryAt(t, i) {
			continue
		}
		e := -1
		if f, ok := foldAt(t, i, "pip"); ok {
			for f < len(t) && ('0' <= t[f] && t[f] <= '9' || t[f] == '.') {
				f++
			}
			if e = seqAt(t, f, "", "install"); e < 0 {
				e = seqAt(t, i, "pipx", "install")
			}
		} else {
			e = seqAt(t, i, "uv", "pip|tool", "install")
		}
		if e < 0 || !boundaryAt(t, e) {
			continue
		}
		nl := lineEnd(t, e)
		if nl == searched[1] && e >= searched[0] {
			continue
		}
		for p := e; p <= nl && p < len(t); p++ {
			if !spaceByte(t[p]) {
				continue
			}
			q := p + 1
			if f, ok := foldAt(t, q, "git+"); ok {
				if g := wordsAt(t, f, "https://", "http://", "ssh://"); g >= 0 {
					return []int{i, g}
				}
			}
			if g := wordsAt(t, q, "https://", "http://", "ssh://"); g >= 0 {
				return []int{i, g}
			}
		}
		if nl != searched[1] || e < searched[0] {
			searched = [2]int{e, nl}
		}
	}
	return nil
}
