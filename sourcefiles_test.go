package adaptor_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// parseModule parses every non-test Go file of the module, run from its
// root, by slash path, except in folders skip names (given the folder's
// slash path and name). Folders no package of the module's API or
// production code lives in are always skipped: hidden ones, those
// starting with "_", testdata, examples and bench (a module of its own).
func parseModule(t *testing.T, mode parser.Mode, skip func(dir, name string) bool) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			slash := filepath.ToSlash(p)
			switch {
			case p == ".":
				return nil
			case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata",
				slash == "examples", slash == "bench", skip(slash, name):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(p)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found %d production files, want the module's (run the test from the module root)", len(out))
	}
	return fset, out
}
