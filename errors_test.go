package adaptor_test

import (
	"go/ast"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// This file checks docs/errors.md, the table of the module's errors, and
// the rules of "Errors" in docs/DESIGN-NOTES.md.

// declaredError is an exported sentinel or typed error, as declared.
type declaredError struct {
	pkg  string // the package's folder; "adaptor" for the root
	name string
	// text is a sentinel's errors.New text; alias names the sentinel a
	// sentinel is an alias of ("extract.ErrFormat").
	text, alias string
	// typed is set for a typed error; is lists the sentinels its Is and
	// Unwrap methods name, sorted; typeAlias is set for an alias of
	// another package's type, whose methods are there.
	typed, typeAlias bool
	is               []string
	// valueReceiver is set for a typed error whose Error method has a
	// value receiver.
	valueReceiver bool
}

func (d declaredError) key() string { return d.pkg + "." + d.name }

// pkgName is how the table and this file name a package: its folder,
// "adaptor" for the root.
func pkgName(dir string) string {
	if dir == "." {
		return "adaptor"
	}
	return dir
}

// declaredErrors scans the public packages for exported variables named
// Err... and exported types named ...Error or that have an Error
// method.
func declaredErrors(t *testing.T) map[string]declaredError {
	t.Helper()
	out := map[string]declaredError{}
	for _, p := range publicPackages(t) {
		pkg := pkgName(p.dir)
		typed := map[string]*declaredError{}
		methods := map[string][]*ast.FuncDecl{} // by receiver type
		imports := map[*ast.File]map[string]string{}
		for _, f := range p.files {
			imports[f] = fileImports(f)
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.ValueSpec:
							for i, n := range s.Names {
								if !n.IsExported() || !strings.HasPrefix(n.Name, "Err") || i >= len(s.Values) {
									continue
								}
								e := declaredError{pkg: pkg, name: n.Name}
								switch v := s.Values[i].(type) {
								case *ast.CallExpr:
									if len(v.Args) == 1 {
										if lit, ok := v.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
											e.text, _ = strconv.Unquote(lit.Value)
										}
									}
								case *ast.SelectorExpr:
									e.alias = qualify(v, imports[f])
								}
								out[e.key()] = e
							}
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							e := &declaredError{pkg: pkg, name: s.Name.Name, typed: true, typeAlias: s.Assign.IsValid()}
							typed[s.Name.Name] = e
						}
					}
				case *ast.FuncDecl:
					if d.Recv == nil || len(d.Recv.List) != 1 {
						continue
					}
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						methods[id.Name] = append(methods[id.Name], d)
					}
				}
			}
		}
		for name, e := range typed {
			isError := strings.HasSuffix(name, "Error")
			is := map[string]bool{}
			for _, m := range methods[name] {
				switch m.Name.Name {
				case "Error":
					isError = true
					_, pointer := m.Recv.List[0].Type.(*ast.StarExpr)
					e.valueReceiver = !pointer
				case "Is", "Unwrap":
					ast.Inspect(m.Body, func(n ast.Node) bool {
						switch x := n.(type) {
						case *ast.SelectorExpr:
							if strings.HasPrefix(x.Sel.Name, "Err") {
								if q := qualify(x, importsOf(p, m)); q != "" {
									is[q] = true
								}
							}
							return false
						case *ast.Ident:
							if strings.HasPrefix(x.Name, "Err") && x.IsExported() {
								is[pkg+"."+x.Name] = true
							}
						}
						return true
					})
				}
			}
			if !isError {
				continue
			}
			e.is = slices.Sorted(maps.Keys(is))
			out[e.key()] = *e
		}
	}
	return out
}

// fileImports maps the names a file imports the module's packages under
// to the packages' names in the table.
func fileImports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		var dir string
		switch {
		case path == modulePath:
			dir = "."
		case strings.HasPrefix(path, modulePath+"/"):
			dir = strings.TrimPrefix(path, modulePath+"/")
		default:
			continue
		}
		name := dir[strings.LastIndex(dir, "/")+1:]
		if dir == "." {
			name = "adaptor"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = pkgName(dir)
	}
	return out
}

// importsOf returns the imports of the file of p that holds fn.
func importsOf(p publicPackage, fn *ast.FuncDecl) map[string]string {
	for _, f := range p.files {
		if f.Pos() <= fn.Pos() && fn.End() <= f.End() {
			return fileImports(f)
		}
	}
	return nil
}

// qualify names the package-level identifier sel refers to, as the table
// does ("source.ErrIntegrity"), or "" when it is not one of the module's.
func qualify(sel *ast.SelectorExpr, imports map[string]string) string {
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	if pkg, ok := imports[x.Name]; ok {
		return pkg + "." + sel.Sel.Name
	}
	return ""
}

// tableRow is a row of docs/errors.md: its cells, trimmed.
type tableRow struct {
	line  int
	cells []string
}

// errorTable reads the rows of the sentinel and typed-error tables of
// docs/errors.md, by PACKAGE.NAME.
func errorTable(t *testing.T) (sentinels, typed map[string]tableRow) {
	t.Helper()
	b, err := os.ReadFile("docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	sentinels, typed = map[string]tableRow{}, map[string]tableRow{}
	var section map[string]tableRow
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			switch strings.TrimPrefix(line, "## ") {
			case "Sentinels":
				section = sentinels
			case "Typed errors":
				section = typed
			default:
				section = nil
			}
			continue
		case section == nil || !strings.HasPrefix(line, "| `"):
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		if len(cells) < 4 {
			t.Errorf("docs/errors.md:%d: %d cells, want at least 4", i+1, len(cells))
			continue
		}
		key := strings.Trim(cells[0], "`") + "." + strings.Trim(cells[1], "`")
		if _, dup := section[key]; dup {
			t.Errorf("docs/errors.md:%d: %s is listed twice", i+1, key)
		}
		section[key] = tableRow{line: i + 1, cells: cells}
	}
	return sentinels, typed
}

var backquoted = regexp.MustCompile("`([^`]*)`")

// quotedNames returns the back-quoted names of a cell, sorted.
func quotedNames(cell string) []string {
	var out []string
	for _, m := range backquoted.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// TestErrorTable checks that docs/errors.md lists every exported sentinel
// and typed error of the public packages, and nothing else; that a
// sentinel's row gives its text (or the sentinel it is an alias of); and
// that a typed error's row names the sentinels its Is and Unwrap methods
// name.
func TestErrorTable(t *testing.T) {
	declared := declaredErrors(t)
	sentinels, typed := errorTable(t)
	nSentinels, nTyped := 0, 0
	for _, key := range slices.Sorted(maps.Keys(declared)) {
		d := declared[key]
		if !d.typed {
			nSentinels++
			row, ok := sentinels[key]
			if !ok {
				t.Errorf("sentinel %s is not in the table of docs/errors.md", key)
				continue
			}
			want := "`" + d.alias + "`"
			if d.alias == "" {
				want = strconv.Quote(d.text)
			}
			if got := row.cells[2]; got != want {
				t.Errorf("docs/errors.md:%d: %s's text = %s, want %s", row.line, key, got, want)
			}
			continue
		}
		nTyped++
		row, ok := typed[key]
		if !ok {
			t.Errorf("typed error %s is not in the table of docs/errors.md", key)
			continue
		}
		if d.typeAlias {
			continue // its methods are those of the type it is an alias of
		}
		if got := quotedNames(row.cells[2]); !slices.Equal(got, d.is) {
			t.Errorf("docs/errors.md:%d: %s is classified by %q, but its Is and Unwrap name %q", row.line, key, got, d.is)
		}
	}
	for key, row := range sentinels {
		if d, ok := declared[key]; !ok || d.typed {
			t.Errorf("docs/errors.md:%d: %s is no exported sentinel of the module", row.line, key)
		}
	}
	for key, row := range typed {
		if d, ok := declared[key]; !ok || !d.typed {
			t.Errorf("docs/errors.md:%d: %s is no exported typed error of the module", row.line, key)
		}
	}
	if nSentinels < 50 || nTyped < 15 {
		t.Errorf("found %d sentinels and %d typed errors, want the module's (more than 50 and 15)", nSentinels, nTyped)
	}
}

// seedPrefix begins the texts of the SDK's own sentinels: the seed fixes
// package skill's, and the root package's follow them.
const seedPrefix = "agentadaptor: "

// TestSentinelTexts checks the rule on sentinels' texts: the kind of
// failure alone, lower case, without a package's name, no trailing
// punctuation, never "failed to"; only the SDK's own (package skill's
// and the root package's) begin with "agentadaptor: ".
func TestSentinelTexts(t *testing.T) {
	sdk := map[string]bool{"adaptor": true, "skill": true}
	for _, d := range declaredErrors(t) {
		if d.typed || d.alias != "" {
			continue
		}
		text := d.text
		if sdk[d.pkg] {
			if !strings.HasPrefix(text, seedPrefix) {
				t.Errorf("%s = %q, want it to begin with %q as the SDK's own errors do", d.key(), text, seedPrefix)
			}
			text = strings.TrimPrefix(text, seedPrefix)
		}
		switch {
		case text == "":
			t.Errorf("%s has no text, or not one errors.New literal", d.key())
		case strings.Contains(text, ": "):
			t.Errorf("%s = %q: a sentinel's text is the kind of failure alone, without a subject or a package's name", d.key(), d.text)
		case strings.ToLower(text[:1]) != text[:1]:
			t.Errorf("%s = %q, want it to begin in lower case", d.key(), d.text)
		case strings.ContainsAny(text[len(text)-1:], ".!?;:"):
			t.Errorf("%s = %q ends with punctuation", d.key(), d.text)
		case strings.Contains(text, "failed to"):
			t.Errorf("%s = %q says \"failed to\"", d.key(), d.text)
		}
	}
}

// carriers are the typed errors that carry another error and add no
// sentinel of their own, and why.
var carriers = map[string]string{
	"search.BackendError":    "it carries the error of the backend that failed, whatever it is",
	"skillmd.Error":          "its Err is its kind, one of the package's sentinels",
	"skill.RequirementError": "it carries what failed for a required skill (skill.ErrRequirement, or a named skill's error, a trust refusal among them) with the chain that led to it",
}

// TestTypedErrorsHaveSentinels checks the rule on typed errors: each has
// a pointer receiver and is classified by a sentinel through its Is or
// Unwrap method, except the carriers.
func TestTypedErrorsHaveSentinels(t *testing.T) {
	for _, d := range declaredErrors(t) {
		if !d.typed || d.typeAlias {
			continue
		}
		if d.valueReceiver {
			t.Errorf("%s: Error has a value receiver; want a pointer, so that errors.As finds one type", d.key())
		}
		_, carrier := carriers[d.key()]
		switch {
		case len(d.is) == 0 && !carrier:
			t.Errorf("%s: no Is or Unwrap method names a sentinel", d.key())
		case len(d.is) > 0 && carrier:
			t.Errorf("%s is listed as a carrier, and its methods name %q", d.key(), d.is)
		}
	}
}

// TestOneSentinelPerText checks what a test can of the rule "one
// sentinel per meaning": no two sentinels of the module have one text
// (the SDK's prefix aside), as two would for one meaning; a package that
// offers another's sentinel declares an alias.
func TestOneSentinelPerText(t *testing.T) {
	byText := map[string][]string{}
	for _, d := range declaredErrors(t) {
		if d.typed || d.alias != "" {
			continue
		}
		text := strings.TrimPrefix(d.text, seedPrefix)
		byText[text] = append(byText[text], d.key())
	}
	for text, keys := range byText {
		if len(keys) > 1 {
			slices.Sort(keys)
			t.Errorf("%s all read %q: one meaning has one sentinel (an alias elsewhere), two meanings two texts", strings.Join(keys, ", "), text)
		}
	}
}

// TestNoAliasOfPublicSentinel checks the rule "one name per meaning": a
// sentinel declared as another's (var ErrX = pkg.ErrY) gives a public
// name to an internal package's sentinel, never a second name to a
// public package's, which callers test for by its own name.
func TestNoAliasOfPublicSentinel(t *testing.T) {
	aliases := 0
	declared := declaredErrors(t)
	for _, key := range slices.Sorted(maps.Keys(declared)) {
		d := declared[key]
		if d.typed || d.alias == "" {
			continue
		}
		aliases++
		if !strings.HasPrefix(d.alias, "internal/") {
			t.Errorf("%s is %s, a second name for a public package's sentinel; callers use %s", key, d.alias, d.alias)
		}
	}
	if aliases == 0 {
		t.Error("found no alias; want the public names of internal packages' sentinels (skill.ErrArchiveFormat)")
	}
}

// productionFiles parses every non-test Go file of the module's
// production code: public and internal packages and the commands, not
// test support (packages named ...test), examples or bench.
func productionFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	return parseModule(t, 0, func(_, name string) bool { return strings.HasSuffix(name, "test") })
}

// stringLit returns the value of a string literal, or of a sum of them.
func stringLit(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := stringLit(x.X)
		b, ok2 := stringLit(x.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return stringLit(x.X)
	}
	return "", false
}

// sentinelName names the sentinel e refers to as the table does
// ("source.ErrNotFound"), or "" when e is none: ErrX or errX of the
// package in dir, or pkg.ErrX of a package the file imports.
func sentinelName(e ast.Expr, dir string, imports map[string]string) string {
	var pkg, name string
	switch x := e.(type) {
	case *ast.Ident:
		pkg, name = pkgName(dir), x.Name
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return ""
		}
		pkg, name = imports[id.Name], x.Sel.Name
		if pkg == "" {
			pkg = id.Name // another module's package
		}
	default:
		return ""
	}
	if len(name) > 3 && (strings.HasPrefix(name, "Err") || strings.HasPrefix(name, "err")) && name[3] >= 'A' && name[3] <= 'Z' {
		return pkg + "." + name
	}
	return ""
}

// subjectAfterSentinel matches a message format that puts a subject
// after the sentinel: a value heading the message, alone or after a noun
// or two ("%w: %s: ...", "%w: skill %s in %s: ...", "%w: download %q",
// "%w %q: ..."), or as the subject of its sentence ("%w: %s holds no
// skill").
var subjectAfterSentinel = regexp.MustCompile(`^%w:? (?:(?:[a-z][a-zA-Z'-]* ){0,2}` + verb + `(?: (?:from|in|at) ` + verb + `)*(?:: |$| \()|` + verb + `(?:'s)? [a-z])`)

// verb is a formatting verb that prints a value as text.
const verb = `%[-+# 0-9.]*[sqv]`

// TestSubjectAfterSentinelPattern pins what subjectAfterSentinel takes
// for a subject after the sentinel, and what for a detail.
func TestSubjectAfterSentinelPattern(t *testing.T) {
	tests := []struct {
		format string
		want   bool
	}{
		{"%w: %s: %w", true},
		{"%w: %q", true},
		{"%w %q: %s", true},
		{"%w: skill %s in %s: %s", true},
		{"%w: download %s: larger than %d bytes", true},
		{"%w: %s holds no skill", true},
		{"%w: %s's skills folder: %w", true},
		{"%w: %s (check the repository)", true},
		{"%s: %w: %s", false},
		{"%w: the query is empty: say what to look for", false},
		{"%w: signed by key %s; want key %s", false},
		{"%w: statement type %q; want %q", false},
		{"%w: more than %d files", false},
		{"%w (%w); %s", false},
	}
	for _, tt := range tests {
		if got := subjectAfterSentinel.MatchString(tt.format); got != tt.want {
			t.Errorf("subjectAfterSentinel.MatchString(%q) = %v, want %v", tt.format, got, tt.want)
		}
	}
}

// isDetail reports whether e is a detail by its name: an error (err,
// someErr, x.Err, x.Unwrap()) or a message (msg, x.Reason,
// redactErr(...)). A message that wraps a sentinel and then one of those
// ("%w: %v", "%w: %s (check ...)") writes a detail, not a subject.
func isDetail(e ast.Expr) bool {
	var name string
	switch x := e.(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	case *ast.CallExpr:
		switch fn := x.Fun.(type) {
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		case *ast.Ident:
			name = fn.Name
		}
	}
	low := strings.ToLower(name)
	return strings.HasSuffix(low, "err") || strings.HasSuffix(low, "error") ||
		slices.Contains([]string{"msg", "message", "reason", "problem", "detail", "unwrap", "cause"}, low)
}

// fileKinds are the sentinels that name the kind of a file the caller
// wrote: an error about a place in it reads as a compiler's does, after
// the sentinel ("invalid policy file: FILE:LINE: WHAT").
var fileKinds = map[string]bool{"policy.ErrInvalid": true, "search.ErrInvalidConfig": true, "install.ErrInvalidLock": true, "eval.ErrInvalidSuite": true}

// filePlace matches a format that writes FILE: or FILE:LINE: after the
// sentinel.
var filePlace = regexp.MustCompile(`^%w: ` + verb + `(?::%d)?: `)

// sentinelFirst lists the messages that begin with a sentinel and a value
// after it although that value is no subject, by FILE: FORMAT, and why.
var sentinelFirst = map[string]string{
	"source/git/commitsig.go: %w: cannot read %s: %w": "the value says which allowed signers file, the policy's or git's; the subject, the commit, is the caller's",
	"trust/refused.go: %v: %s":                        "a RefusedError's list of refusals, one a line, each SKILL from SOURCE: REASON; the sentinel heads the list, as it heads install's list of skills left out",
	"install/source.go: %w: %s":                       "the value is a detail that names its subjects itself: a list of the skills left out, one a line, each SKILL in SOURCE: PROBLEM; or notHere's \"no file or folder PATH here\"",
}

// TestMessagesSubjectFirst checks what a test can of the rule on
// messages, SUBJECT: SENTINEL: DETAIL: no fmt.Errorf of production code
// wraps a sentinel first and writes a subject after it, nor does a
// fmt.Sprintf that writes one first with %v (an Error method's text). Two kinds of
// message do by rule: the SDK's own, whose seed prefix ("agentadaptor:
// ") begins the message, and an error about a place in a file, after the
// sentinel that names the file's kind.
func TestMessagesSubjectFirst(t *testing.T) {
	sdk := map[string]bool{}
	for _, d := range declaredErrors(t) {
		if strings.HasPrefix(d.text, seedPrefix) {
			sdk[d.key()] = true
		}
	}
	fset, files := productionFiles(t)
	used := map[string]bool{}
	n := 0
	for _, path := range slices.Sorted(maps.Keys(files)) {
		dir := filepath.ToSlash(filepath.Dir(path))
		imports := fileImports(files[path])
		ast.Inspect(files[path], func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Errorf" && sel.Sel.Name != "Sprintf" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "fmt" {
				return true
			}
			format, ok := stringLit(call.Args[0])
			written := format
			if sel.Sel.Name == "Sprintf" {
				// An Error method's text: the sentinel is written with %v.
				rest, cut := strings.CutPrefix(format, "%v: ")
				format, ok = "%w: "+rest, ok && cut
			} else {
				n++
			}
			if !ok || len(call.Args) < 3 || isDetail(call.Args[2]) || !subjectAfterSentinel.MatchString(format) {
				return true
			}
			sentinel := sentinelName(call.Args[1], dir, imports)
			switch {
			case sentinel == "", sdk[sentinel], fileKinds[sentinel] && filePlace.MatchString(format):
				return true
			}
			key := path + ": " + written
			if _, ok := sentinelFirst[key]; ok {
				used[key] = true
				return true
			}
			t.Errorf("%s: fmt.%s(%q, %s, ...) writes the sentinel before the subject; want SUBJECT: SENTINEL: DETAIL (docs/DESIGN-NOTES.md, Errors)", fset.Position(call.Pos()), sel.Sel.Name, written, sentinel)
			return true
		})
	}
	for key := range sentinelFirst {
		if !used[key] {
			t.Errorf("sentinelFirst lists %q, which no production code writes any more", key)
		}
	}
	if n < 300 {
		t.Errorf("found %d calls of fmt.Errorf, want the module's (more than 300)", n)
	}
}
