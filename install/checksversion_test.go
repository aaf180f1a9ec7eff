package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"hash"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// checksDigests records, for each checksVersion, the digests of the code
// that finds a folder source's skill usable (checksDigest). A change to
// that code makes a new digest: record it under a new checksVersion when
// it may find another skill usable or not, so that the stat record's
// verdicts made by the old checks are dropped (rule 16); add it to the
// current version's list when it changes no verdict.
var checksDigests = map[string][]string{
	"1": {"8a0c69dede46b6ef2021af9a308561f9cd1aaba392742026c55ec19bbbe24436", "36191224d1c93fb849b221c7145c5af85e3f2b5ab030d0957a902c347dfc96d1"},
}

// checksFuncs are the functions of this package that check a skill,
// by file.
var checksFuncs = map[string][]string{"install.go": {"specChecker"}, "ops.go": {"checkName"}}

// checksDigest is a digest of the tokens of skillmd's code, of package
// skill's runtime names and of checksFuncs: comments and layout aside.
func checksDigest(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	files, err := filepath.Glob("../skillmd/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../skill/runtime.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\n", filepath.ToSlash(name))
		hashTokens(h, name, src)
	}
	for _, name := range slices.Sorted(maps.Keys(checksFuncs)) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range checksFuncs[name] {
			i := slices.IndexFunc(f.Decls, func(d ast.Decl) bool {
				fd, ok := d.(*ast.FuncDecl)
				return ok && fd.Recv == nil && fd.Name.Name == fn
			})
			if i < 0 {
				t.Fatalf("%s holds no func %s", name, fn)
			}
			d := f.Decls[i]
			fmt.Fprintf(h, "%s %s\n", name, fn)
			hashTokens(h, name, src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashTokens writes the tokens of src to h, comments left out.
func hashTokens(h hash.Hash, name string, src []byte) {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(name, -1, len(src)), src, nil, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		fmt.Fprintf(h, "%d %q\n", tok, lit)
	}
}

// TestChecksVersion checks that checksVersion changes with the checks
// that find a source's skill usable: the digest of their code is one
// recorded for it.
func TestChecksVersion(t *testing.T) {
	got := checksDigest(t)
	if want := checksDigests[checksVersion]; !slices.Contains(want, got) {
		t.Errorf("the checks' code has digest %s, but checksVersion %q records %q: when the checks change, bump checksVersion and record the new digest under it in checksDigests (or, for a change that changes no verdict, add it to the version's list)", got, checksVersion, want)
	}
}
