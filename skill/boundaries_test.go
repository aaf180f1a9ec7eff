package skill

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// TestImportBoundaries checks the package boundaries this package's API
// exists for: install, the command-line tool and the sources use the
// cache through this package and internal/skillcache alone (which apply
// a Cache's limits), never the store or the extractor themselves, and the
// extractor depends on nothing of the module. Every file of a package counts,
// whatever its build constraints; test files do not.
func TestImportBoundaries(t *testing.T) {
	const module = "github.com/agentadaptor/agentadaptor/"
	tests := []struct {
		dir    string
		refuse []string // import paths, or prefixes ending in "/"
	}{
		{"../install", []string{module + "internal/cache", module + "internal/extract"}},
		{"../cmd/agentskills", []string{module + "internal/extract", module + "internal/cache"}},
		{"../internal/extract", []string{module}},
		{"../source/oci", []string{module + "internal/extract"}},
		{"../source/git", []string{module + "internal/extract"}},
		{"../source/github", []string{module + "internal/extract"}},
	}
	for _, tt := range tests {
		files, err := filepath.Glob(filepath.Join(tt.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("Glob(%s) = %d files, %v", tt.dir, len(files), err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				p, _ := strconv.Unquote(spec.Path.Value)
				for _, r := range tt.refuse {
					if p == r || (strings.HasSuffix(r, "/") && strings.HasPrefix(p, r)) {
						t.Errorf("%s imports %s, which %s must not", filepath.ToSlash(file), p, tt.dir)
					}
				}
			}
		}
	}
}

// TestOneVocabulary checks that the extractor speaks this package's
// words: its limits have the names of the fields of Limits, and Format is
// this package's type alone.
func TestOneVocabulary(t *testing.T) {
	limits := reflect.TypeFor[Limits]()
	opts := reflect.TypeFor[extract.Options]()
	for i := range opts.NumField() {
		f := opts.Field(i)
		if _, ok := limits.FieldByName(f.Name); strings.HasPrefix(f.Name, "Max") && !ok {
			t.Errorf("extract.Options.%s is a limit that Limits does not name", f.Name)
		}
	}
	for i := range limits.NumField() {
		if name := limits.Field(i).Name; name != "MaxArchiveSize" { // read before extraction
			if _, ok := opts.FieldByName(name); !ok {
				t.Errorf("Limits.%s has no field of that name in extract.Options", name)
			}
		}
	}
	names := []struct {
		name     string
		internal extract.Limit
	}{
		{LimitArchiveSize, extract.LimitArchiveSize},
		{LimitFileSize, extract.LimitFileSize},
		{LimitTotalSize, extract.LimitTotalSize},
		{LimitArchiveEntries, extract.LimitEntries},
	}
	for _, n := range names {
		if _, ok := limits.FieldByName(n.name); !ok || n.name != string(n.internal) {
			t.Errorf("limit name %q: a field of Limits = %v, extract's name %q", n.name, ok, n.internal)
		}
	}
	files, _ := filepath.Glob("../internal/extract/*.go")
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if name := s.(*ast.TypeSpec).Name.Name; name == "Format" {
						t.Errorf("%s declares a second Format type; use skill.Format's values", filepath.ToSlash(file))
					}
				}
			}
		}
	}
}

// TestOneDefaultRoot: the default root the drivers' launch code uses
// without a Cache (internal/cache's) is the one NewCache resolves, set by
// the variable SkillCacheRootEnv names.
func TestOneDefaultRoot(t *testing.T) {
	if SkillCacheRootEnv != cache.RootEnv {
		t.Errorf("SkillCacheRootEnv = %q, internal/cache reads %q", SkillCacheRootEnv, cache.RootEnv)
	}
	t.Setenv(SkillCacheRootEnv, t.TempDir())
	if got, want := NewCache().Root(), cache.DefaultRoot(); got != want {
		t.Errorf("NewCache().Root() = %q, cache.DefaultRoot() = %q", got, want)
	}
}
