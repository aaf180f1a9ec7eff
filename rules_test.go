package adaptor_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// This file checks the rule references of docs/DESIGN-NOTES.md ("Rule
// references"): every reference to a numbered rule of another package's
// doc names a rule that package's doc has.

// packageRules returns, per section heading of the package doc of the
// package in dir ("" before the first heading), the numbers of its
// numbered rules; nil when the package has no doc.
func packageRules(t *testing.T, dir string) map[string][]int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc == nil {
			continue
		}
		rules := map[string][]int{}
		section := ""
		for line := range strings.SplitSeq(f.Doc.Text(), "\n") {
			if h, ok := strings.CutPrefix(line, "# "); ok {
				section = h
				continue
			}
			if m := numberedRule.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				rules[section] = append(rules[section], n)
			}
		}
		return rules
	}
	return nil
}

var numberedRule = regexp.MustCompile(`^\s+(\d+)\. `)

// ruleRef is one reference to a rule of a package's doc.
type ruleRef struct {
	text    string // as written
	pkg     string // as written: a path below the module or its last element
	section string // the heading named, if any
	rules   []int  // one, or the two ends of "rules N to M"
}

// The forms of a reference to another package's rule; each captures the
// package, the section (or "") and the rule numbers.
var ruleRefForms = []*regexp.Regexp{
	// package source, rule 15; package source (# Canonical locations), rules 9 to 15
	regexp.MustCompile(`package ([a-z][\w]*(?:/[\w]+)*)()(?: \(# ([^)]+)\))?, rules? (\d+)(?: (?:to|and) (\d+))?`),
	// rule 8 of internal/agentdir; rule 5 of package policy
	regexp.MustCompile(`rules? (\d+)(?: (?:to|and) (\d+))? of (?:package ([a-z][\w]*(?:/[\w]+)*)|([a-z][\w]*(?:/[\w]+)+))()`),
	// (`go doc ./internal/agents`, rule 9); (internal/launch, rule 8)
	regexp.MustCompile("(?:go doc \\./([\\w/]+)`|\\(([a-z][\\w]*(?:/[\\w]+)+))(?: \\(# ([^)]+)\\))?,? rules? (\\d+)(?: (?:to|and) (\\d+))?"),
}

// ruleRefs returns the references to other packages' rules in text, its
// lines joined (a reference may be broken over two comment lines).
func ruleRefs(text string) []ruleRef {
	joined := lineBreak.ReplaceAllString(text, " ")
	var refs []ruleRef
	for i, form := range ruleRefForms {
		for _, m := range form.FindAllStringSubmatch(joined, -1) {
			var r ruleRef
			var nums []string
			switch i {
			case 0:
				r = ruleRef{pkg: m[1], section: m[3]}
				nums = m[4:6]
			case 1:
				r = ruleRef{pkg: m[3] + m[4]}
				nums = m[1:3]
			case 2:
				r = ruleRef{pkg: m[1] + m[2], section: m[3]}
				nums = m[4:6]
			}
			if r.pkg == "doc" {
				continue // "the package doc, rule N": the package's own
			}
			r.text = m[0]
			for _, s := range nums {
				if n, err := strconv.Atoi(s); err == nil {
					r.rules = append(r.rules, n)
				}
			}
			refs = append(refs, r)
		}
	}
	return refs
}

var lineBreak = regexp.MustCompile(`\s*\n\s*(?://\s*)?`)

// TestRuleReferences checks that every reference in the code and the
// docs to a numbered rule of a package's doc (see ruleRefForms) names a
// package of the module and a rule its doc has; where the doc numbers
// rules in several sections and the number is in more than one, the
// reference must name the section.
func TestRuleReferences(t *testing.T) {
	rulesOf := map[string]map[string][]int{}
	for _, p := range modulePackages(t) {
		if rules := packageRules(t, p); rules != nil {
			rulesOf[p] = rules
		}
	}
	resolve := func(name string) []string {
		if _, ok := rulesOf[name]; ok {
			return []string{name}
		}
		var found []string
		for p := range rulesOf {
			if p == name || strings.HasSuffix(p, "/"+name) || p == "." && name == "adaptor" {
				found = append(found, p)
			}
		}
		slices.Sort(found)
		return found
	}
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || path == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range ruleRefs(string(data)) {
			pkgs := resolve(ref.pkg)
			if len(pkgs) != 1 {
				t.Errorf("%s: %q names package %q, which is %s: write its path below the module", file, ref.text, ref.pkg, describe(pkgs))
				continue
			}
			if msg := checkRuleRef(rulesOf[pkgs[0]], ref); msg != "" {
				t.Errorf("%s: %q: package %s: %s", file, ref.text, pkgs[0], msg)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Errorf("checked %d rule references, want at least 30: the search finds too little", checked)
	}
}

// describe says what a package name resolved to.
func describe(pkgs []string) string {
	if len(pkgs) == 0 {
		return "no package of the module with a package doc"
	}
	return "ambiguous (" + strings.Join(pkgs, ", ") + ")"
}

// checkRuleRef returns what is wrong with ref against the package doc's
// rules, or "".
func checkRuleRef(rules map[string][]int, ref ruleRef) string {
	for _, n := range ref.rules {
		if ref.section != "" {
			if !slices.Contains(rules[ref.section], n) {
				return fmt.Sprintf("no rule %d under # %s in the doc", n, ref.section)
			}
			continue
		}
		var in []string
		for s, nums := range rules {
			if slices.Contains(nums, n) {
				in = append(in, "# "+s)
			}
		}
		switch len(in) {
		case 0:
			return fmt.Sprintf("no rule %d in the doc", n)
		case 1:
		default:
			slices.Sort(in)
			return fmt.Sprintf("rule %d is in %s of the doc: name the section, as \"package PATH (# SECTION), rule N\"", n, strings.Join(in, " and "))
		}
	}
	return ""
}

// TestRuleRefs checks the reading of rule references.
func TestRuleRefs(t *testing.T) {
	tests := []struct {
		text string
		want []ruleRef
	}{
		{"(package source, rule 15)", []ruleRef{{text: "package source, rule 15", pkg: "source", rules: []int{15}}}},
		{"package source (# Canonical locations), rules 9 to\n// 15", []ruleRef{{text: "package source (# Canonical locations), rules 9 to 15", pkg: "source", section: "Canonical locations", rules: []int{9, 15}}}},
		{"(rule 13 of internal/agentdir)", []ruleRef{{text: "rule 13 of internal/agentdir", pkg: "internal/agentdir", rules: []int{13}}}},
		{"rule 5 of package policy", []ruleRef{{text: "rule 5 of package policy", pkg: "policy", rules: []int{5}}}},
		{"(`go doc ./internal/agents`, rule 9)", []ruleRef{{text: "go doc ./internal/agents`, rule 9", pkg: "internal/agents", rules: []int{9}}}},
		{"(internal/launch, rule 8)", []ruleRef{{text: "(internal/launch, rule 8", pkg: "internal/launch", rules: []int{8}}}},
		{"rule 5 of importing; checks rule 3; Trust rule 1; the root package checks rules 7 to 10; (package doc, rules 16 to 21)", nil},
	}
	for _, tt := range tests {
		got := ruleRefs(tt.text)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ruleRefs(%q) = %+v, want %+v", tt.text, got, tt.want)
		}
	}
	rules := map[string][]int{"Errors": {1, 9}, "Canonical locations": {9, 15}}
	for _, tt := range []struct {
		ref  ruleRef
		want bool
	}{
		{ruleRef{rules: []int{15}}, true},
		{ruleRef{rules: []int{9}}, false},
		{ruleRef{section: "Canonical locations", rules: []int{9, 15}}, true},
		{ruleRef{section: "Errors", rules: []int{15}}, false},
		{ruleRef{rules: []int{16}}, false},
	} {
		if got := checkRuleRef(rules, tt.ref) == ""; got != tt.want {
			t.Errorf("checkRuleRef(%v) ok = %v, want %v", tt.ref, got, tt.want)
		}
	}
}
