package prefilter

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// tablesExprs are expressions whose tables hold what the text must
// quote and mark: quotes, backquotes, backslashes, spaces and the words
// of the format in strings, strings outside ASCII, a newline, word
// boundaries, an expression with no condition and one that matches
// nothing.
var tablesExprs = append([]string{
	`(?i)"curl" \| sh|\x60eval\x60|c:\\windows\\`,
	`(?i)\b(?:and|or|true|false)\b AND \bnewline\b`,
	`(?i)\bstraße\b|clé\s+privée|\x{212a}ey`,
	`(?i)end\s*\nbegin`,
	`(?i)x*`,
	`[^\x00-\x{10FFFF}]`,
	`\bcase\b|(?:^|[^\w.$-])\.env\b`,
}, exprs...)

// TestLoad checks that Load builds from the tables what New built.
func TestLoad(t *testing.T) {
	var res []*regexp.Regexp
	for _, e := range tablesExprs {
		res = append(res, regexp.MustCompile(e))
	}
	want, err := New(res)
	if err != nil {
		t.Fatal(err)
	}
	tables := want.Tables()
	got, err := Load(tablesExprs, tables)
	if err != nil {
		t.Fatalf("Load(New().Tables()) = %v\n%s", err, tables)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load(New().Tables()) is not New's filter:\n%s\nagain:\n%s", tables, got.Tables())
	}
	for i := range res {
		if got.Condition(i) != want.Condition(i) {
			t.Errorf("Condition(%d) = %s after Load, want %s", i, got.Condition(i), want.Condition(i))
		}
	}
}

// TestLoadRefuses checks that Load refuses tables of other expressions,
// in another format, or cut short.
func TestLoadRefuses(t *testing.T) {
	res := []string{`(?i)\bcurl\b`, `(?i)wget\s+-O`}
	f, err := New([]*regexp.Regexp{regexp.MustCompile(res[0]), regexp.MustCompile(res[1])})
	if err != nil {
		t.Fatal(err)
	}
	tables := f.Tables()
	other := []string{res[0], `(?i)wget\s+-q`}
	for name, tc := range map[string]struct {
		res    []string
		tables string
	}{
		"other expressions": {other, tables},
		"fewer expressions": {res[:1], tables},
		"another format":    {res, strings.Replace(tables, tablesHeader, "prefilter tables 0", 1)},
		"cut short":         {res, tables[:strings.LastIndex(tables, "local")]},
		"a key missing":     {res, strings.Replace(tables, "stops", "", 1)},
		"an unclosed list":  {res, strings.Replace(tables, `cond (`, `cond ((`, 1)},
		"a bad string":      {res, strings.Replace(tables, `"wget"`, `"wget`, 1)},
		"empty":             {res, ""},
	} {
		if len(tc.res) == len(res) && tc.res[1] == res[1] && tc.tables == tables {
			t.Fatalf("%s: the tables are New's", name)
		}
		if _, err := Load(tc.res, tc.tables); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
}

// FuzzLoad checks that Load fails, and does not panic, on text that is
// not tables, and that what it builds from text it takes writes its
// tables again.
func FuzzLoad(f *testing.F) {
	var res []*regexp.Regexp
	for _, e := range tablesExprs {
		res = append(res, regexp.MustCompile(e))
	}
	want, err := New(res)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(want.Tables())
	f.Add(tablesHeader + "\n")
	f.Fuzz(func(t *testing.T, tables string) {
		got, err := Load(tablesExprs, tables)
		if err != nil {
			return
		}
		again, err := Load(tablesExprs, got.Tables())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("Load(%q).Tables() = %q, which Load reads as another filter (%v)", tables, got.Tables(), err)
		}
	})
}
