package audit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLazyExprsCompile compiles every expression the rules compile when
// it first runs (lazyExprs, which lazyCompile fills as the package is
// initialised), as compiling them at start did: a wrong pattern fails
// here rather than during an audit. So that none escapes the list, the
// expressions of the prefilter's table are in it, and the package's
// code makes a lazyRegexp nowhere but in lazyCompile.
func TestLazyExprsCompile(t *testing.T) {
	listed := make(map[*lazyRegexp]bool)
	for _, l := range lazyExprs {
		listed[l] = true
		if _, err := regexp.Compile(l.pattern); err != nil {
			t.Errorf("a lazily compiled expression does not compile: %v", err)
		}
	}
	for _, e := range lineExprs {
		if !listed[e.lazyRegexp] {
			t.Errorf("line expression %q is not in lazyExprs", e.String())
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "lazyCompile" {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				var made bool
				switch n := n.(type) {
				case *ast.CompositeLit:
					id, ok := n.Type.(*ast.Ident)
					made = ok && id.Name == "lazyRegexp"
				case *ast.CallExpr:
					fn, ok := n.Fun.(*ast.Ident)
					arg, isIdent := (*ast.Ident)(nil), false
					if len(n.Args) == 1 {
						arg, isIdent = n.Args[0].(*ast.Ident)
					}
					made = ok && fn.Name == "new" && isIdent && arg.Name == "lazyRegexp"
				}
				if made {
					t.Errorf("%s: a lazyRegexp made outside lazyCompile escapes lazyExprs and this test", fset.Position(n.Pos()))
				}
				return true
			})
		}
	}
}
