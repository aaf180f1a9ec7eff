package adaptor_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

// docPackages are the packages whose doc starts a newcomer off: each
// shows a complete program and names its runnable examples.
var docPackages = []string{".", "skill", "install", "claude", "codex", "gemini", "qwen", "driver", "skillmd"}

// packageDoc returns the package doc of the package in dir and the names
// of the Example functions of its test files.
func packageDoc(t *testing.T, dir string) (doc string, examples []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, "_test.go") {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Example") {
					examples = append(examples, fn.Name.Name)
				}
			}
			continue
		}
		if f.Doc != nil {
			if doc != "" {
				t.Errorf("package %s has a package doc in more than one file (%s too)", dir, name)
			}
			doc = f.Doc.Text()
		}
	}
	if doc == "" {
		t.Fatalf("package %s has no package doc", dir)
	}
	return doc, examples
}

// firstProgram returns the first code block of doc that is a program
// (it starts with "package main"), without its indentation.
func firstProgram(doc string) string {
	var block []string
	in := false
	for line := range strings.SplitSeq(doc, "\n") {
		code, indented := strings.CutPrefix(line, "\t")
		switch {
		case !in && indented && code == "package main":
			in = true
			block = append(block, code)
		case in && (indented || line == ""):
			block = append(block, code)
		case in:
			return strings.TrimSpace(strings.Join(block, "\n")) + "\n"
		}
	}
	if in {
		return strings.TrimSpace(strings.Join(block, "\n")) + "\n"
	}
	return ""
}

// vetProgram writes src as main.go in a new folder, with the extra files
// given, and runs go vet on it inside this module, so its imports of the
// module resolve to this checkout.
func vetProgram(t *testing.T, src string, extra map[string]string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"main.go": src}
	for name, data := range extra {
		files[name] = data
	}
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("go", "vet", filepath.Join(dir, "main.go")).CombinedOutput()
	if err != nil {
		t.Errorf("go vet of the program failed: %v\n%s\nthe program:\n%s", err, out, src)
	}
}

// TestPackageDocsShowAProgram checks that each package doc a newcomer
// reads with go doc starts them off with a complete program that
// compiles, and names every runnable example of its package (go doc
// prints none) and no example that does not exist.
func TestPackageDocsShowAProgram(t *testing.T) {
	exampleName := regexp.MustCompile(`\bExample(?:_\w+|[A-Z]\w*)\b`)
	for _, pkg := range docPackages {
		t.Run(pkg, func(t *testing.T) {
			doc, examples := packageDoc(t, pkg)
			for _, ex := range examples {
				if !strings.Contains(doc, ex) {
					t.Errorf("the package doc of %s does not name its example %s: name every runnable example there", pkg, ex)
				}
			}
			for _, named := range exampleName.FindAllString(doc, -1) {
				if !slices.Contains(examples, named) {
					t.Errorf("the package doc of %s names %s, which is no example of its tests", pkg, named)
				}
			}
			prog := firstProgram(doc)
			if prog == "" {
				t.Fatalf("the package doc of %s has no complete program (a code block starting with \"package main\")", pkg)
			}
			vetProgram(t, prog, nil)
		})
	}
}

// inlineCall matches a call of skill.Inline with a literal SKILL.md, in a
// doc comment or a README.
var inlineCall = regexp.MustCompile(`Inline\("[^"]*", ("(?:[^"\\]|\\.)*")\)`)

// seedInline is the abbreviated Inline line of the seed's package doc of
// package skill, which is fixed word for word; the doc says it is
// abbreviated and shows a complete one.
const seedInline = `"# Greeting\n..."`

// checkSkillMD fails the test when md is not a SKILL.md that agents load.
func checkSkillMD(t *testing.T, where, md string) {
	t.Helper()
	s, err := skillmd.Parse([]byte(md), skillmd.WithMode(skillmd.Lenient))
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		t.Errorf("%s: the skill %q is not one an agent loads: %v", where, md, err)
	}
}

// TestDocAndExampleSkillsAreValid checks that every skill the docs and
// the runnable examples show is one agents load: each skill.Inline with
// a literal SKILL.md in a doc comment or an example, and each literal in
// an example that starts with front matter. Package skillmd's examples,
// and examples named for an invalid skill, show broken files on purpose
// and are left out.
func TestDocAndExampleSkillsAreValid(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		example := strings.HasSuffix(path, "example_test.go") && filepath.Dir(path) != "skillmd"
		if strings.HasSuffix(path, "_test.go") && !example {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, m := range inlineCall.FindAllStringSubmatch(cg.Text(), -1) {
				if m[1] == seedInline && path == filepath.Join("skill", "doc.go") {
					continue
				}
				md, err := strconv.Unquote(m[1])
				if err != nil {
					t.Errorf("%s: %s is not a Go string literal: %v", path, m[1], err)
					continue
				}
				checkSkillMD(t, path, md)
				checked++
			}
		}
		if !example {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var lit *ast.BasicLit
			switch n := n.(type) {
			case *ast.FuncDecl:
				// An example of the refusal shows a broken skill on purpose.
				return !strings.Contains(n.Name.Name, "Invalid")
			case *ast.BinaryExpr:
				return false // a SKILL.md put together at run time
			case *ast.CallExpr:
				if fun, ok := n.Fun.(*ast.SelectorExpr); ok && fun.Sel.Name == "Inline" && len(n.Args) == 2 {
					lit, _ = n.Args[1].(*ast.BasicLit)
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING && (strings.HasPrefix(n.Value, `"---\n`) || strings.HasPrefix(n.Value, "`---\n")) {
					lit = n
				}
			}
			if lit != nil && lit.Kind == token.STRING {
				md, err := strconv.Unquote(lit.Value)
				if err == nil {
					checkSkillMD(t, fset.Position(lit.Pos()).String(), md)
					checked++
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Errorf("checked %d skills, want at least 10: the search finds too little", checked)
	}
}
