package audit

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled when it first runs, not
// as the package is initialised: a program that links the audit and
// audits nothing (agentskills list, --help) compiles none of the rules'
// expressions, and an audit compiles only those that its text asks to
// run, which the prefilter leaves few of in ordinary text. Its methods
// are the regexp package's that the rules call. It is safe for
// concurrent use.
type lazyRegexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

// regexp returns the compiled expression.
func (l *lazyRegexp) regexp() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}

// String returns the pattern, without compiling it.
func (l *lazyRegexp) String() string { return l.pattern }

func (l *lazyRegexp) MatchString(s string) bool { return l.regexp().MatchString(s) }

func (l *lazyRegexp) FindStringIndex(s string) []int { return l.regexp().FindStringIndex(s) }

func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.regexp().FindStringSubmatch(s) }

func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.regexp().FindStringSubmatchIndex(s)
}

func (l *lazyRegexp) FindAllString(s string, n int) []string { return l.regexp().FindAllString(s, n) }

func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.regexp().FindAllStringIndex(s, n)
}

func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.regexp().FindAllStringSubmatch(s, n)
}

func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.regexp().FindAllStringSubmatchIndex(s, n)
}

func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.regexp().ReplaceAllString(src, repl)
}

func (l *lazyRegexp) Split(s string, n int) []string { return l.regexp().Split(s, n) }

// lazyCompile returns the expression of pattern, which it compiles when
// the expression first runs, and adds it to lazyExprs. Every lazyRegexp
// is made by it, in a package-level declaration (never while an audit
// runs: lazyExprs is not locked).
func lazyCompile(pattern string) *lazyRegexp {
	l := &lazyRegexp{pattern: pattern}
	lazyExprs = append(lazyExprs, l)
	return l
}

// lazyExprs are the expressions lazyCompile made, in the order of the
// package's initialisation: a test compiles them all, as compiling them
// at start did, so that a wrong pattern fails the tests rather than an
// audit.
var lazyExprs []*lazyRegexp
