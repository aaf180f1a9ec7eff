package adaptor_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// This file checks the rules of docs/DESIGN-NOTES.md ("Options").

// publicPackage is the production code of one public package of the
// module: its folder, relative to the module root, and its files.
type publicPackage struct {
	dir   string
	files []*ast.File
}

// publicPackages parses every public package of the module (not under
// internal/, cmd/, examples/ or bench/, which are no API), without
// their tests.
func publicPackages(t *testing.T) []publicPackage {
	t.Helper()
	_, files := parseModule(t, parser.ParseComments, func(dir, name string) bool {
		return name == "internal" || dir == "cmd"
	})
	byDir := map[string]*publicPackage{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		f := files[p]
		dir := path.Dir(p)
		if byDir[dir] == nil {
			byDir[dir] = &publicPackage{dir: dir}
		}
		byDir[dir].files = append(byDir[dir].files, f)
	}
	var out []publicPackage
	for _, dir := range slices.Sorted(func(yield func(string) bool) {
		for d := range byDir {
			if !yield(d) {
				return
			}
		}
	}) {
		out = append(out, *byDir[dir])
	}
	if len(out) < 10 {
		t.Fatalf("found %d public packages, want the module's (run the test from the module root)", len(out))
	}
	return out
}

// types returns the package's type declarations.
func (p publicPackage) types() []*ast.TypeSpec {
	var out []*ast.TypeSpec
	for _, f := range p.files {
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					out = append(out, spec.(*ast.TypeSpec))
				}
			}
		}
	}
	return out
}

// optionTypes returns the package's exported types named ...Option.
func (p publicPackage) optionTypes() map[string]*ast.TypeSpec {
	out := map[string]*ast.TypeSpec{}
	for _, ts := range p.types() {
		if ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Option") {
			out[ts.Name.Name] = ts
		}
	}
	return out
}

// TestOptionsSayTheirDefault checks rule 1: every exported function that
// returns an option says its default.
func TestOptionsSayTheirDefault(t *testing.T) {
	count := 0
	for _, p := range publicPackages(t) {
		types := p.optionTypes()
		for _, f := range p.files {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || !fd.Name.IsExported() || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
					continue
				}
				id, ok := fd.Type.Results.List[0].Type.(*ast.Ident)
				if !ok || types[id.Name] == nil {
					continue
				}
				count++
				if !strings.Contains(strings.ToLower(fd.Doc.Text()), "default") {
					t.Errorf("%s: %s returns a %s, and its doc does not say its default", p.dir, fd.Name.Name, id.Name)
				}
			}
		}
	}
	if count < 30 {
		t.Errorf("found %d options, want every one of the module's (more than 30)", count)
	}
}

// TestOptionTypes checks rules 2 and 4: an option type is a function
// over a pointer to an unexported config; in the root package it is an
// interface whose methods are unexported.
func TestOptionTypes(t *testing.T) {
	seen := 0
	for _, p := range publicPackages(t) {
		for name, ts := range p.optionTypes() {
			seen++
			switch typ := ts.Type.(type) {
			case *ast.FuncType:
				if !overUnexportedConfig(typ) {
					t.Errorf("%s: %s is not func(*config) over an unexported config", p.dir, name)
				}
			case *ast.InterfaceType:
				if p.dir != "." {
					t.Errorf("%s: %s is an interface; only the root package's options are (rule 4)", p.dir, name)
				}
				for _, m := range typ.Methods.List {
					for _, n := range m.Names {
						if n.IsExported() {
							t.Errorf("%s: %s has the exported method %s, so others can implement it", p.dir, name, n.Name)
						}
					}
				}
			default:
				t.Errorf("%s: %s is neither a function type nor an interface", p.dir, name)
			}
		}
	}
	if seen < 8 {
		t.Errorf("found %d option types, want every one of the module's (more than 8)", seen)
	}
}

// overUnexportedConfig reports whether f is func(*config), config an
// unexported type, with no result.
func overUnexportedConfig(f *ast.FuncType) bool {
	params := f.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 || f.Results != nil && len(f.Results.List) > 0 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && !id.IsExported()
}

// TestOperationsTakeRequests checks rule 6 on install.Installer: every
// exported method is an operation, except those the rule names as none
// (noOps), which take no context; an operation takes its context first,
// and then nothing or one request struct named ...Request, each of whose
// fields has a doc.
func TestOperationsTakeRequests(t *testing.T) {
	noOps := []string{"Root", "Origin"}
	notes, err := os.ReadFile(filepath.Join("docs", "DESIGN-NOTES.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rule, _ := strings.Cut(string(notes), "\n6. ")
	rule, _, _ = strings.Cut(rule, "\n\n")
	for _, name := range noOps {
		if !strings.Contains(rule, "`"+name+"`") {
			t.Errorf("DESIGN-NOTES.md, rule 6, does not name %s, which the test lets take no context", name)
		}
	}
	var pkg publicPackage
	for _, p := range publicPackages(t) {
		if p.dir == "install" {
			pkg = p
		}
	}
	requests := map[string]*ast.StructType{}
	for _, ts := range pkg.types() {
		if st, ok := ts.Type.(*ast.StructType); ok && strings.HasSuffix(ts.Name.Name, "Request") {
			requests[ts.Name.Name] = st
		}
	}
	ops := 0
	for _, f := range pkg.files {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() || !isInstaller(fd.Recv) {
				continue
			}
			var params []ast.Expr
			for _, field := range fd.Type.Params.List {
				for range max(1, len(field.Names)) {
					params = append(params, field.Type)
				}
			}
			takesCtx := false
			if len(params) > 0 {
				sel, ok := params[0].(*ast.SelectorExpr)
				takesCtx = ok && sel.Sel.Name == "Context"
			}
			if slices.Contains(noOps, fd.Name.Name) {
				if takesCtx {
					t.Errorf("install: Installer.%s takes a context, but rule 6 names it as no operation", fd.Name.Name)
				}
				continue
			}
			if !takesCtx {
				t.Errorf("install: Installer.%s takes no context first; every exported method but %v is an operation (rule 6)", fd.Name.Name, noOps)
				continue
			}
			ops++
			if len(params) == 1 {
				continue
			}
			id, ok := params[1].(*ast.Ident)
			if len(params) != 2 || !ok || requests[id.Name] == nil {
				t.Errorf("install: %s takes %d inputs besides its context, want one ...Request struct (rule 6)", fd.Name.Name, len(params)-1)
			}
		}
	}
	if ops < 10 {
		t.Errorf("found %d operations of install.Installer, want every one (more than 10)", ops)
	}
	for name, st := range requests {
		for _, field := range st.Fields.List {
			for _, n := range field.Names {
				if n.IsExported() && field.Doc.Text() == "" {
					t.Errorf("install: %s.%s has no doc", name, n.Name)
				}
			}
		}
	}
}

// isInstaller reports whether a method's receiver is *Installer or
// Installer.
func isInstaller(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.Name == "Installer"
}

// TestDriverConfigsSayTheirDefaults checks rule 5: every field of a
// driver's Config says its default.
func TestDriverConfigsSayTheirDefaults(t *testing.T) {
	drivers := 0
	for _, p := range publicPackages(t) {
		for _, ts := range p.types() {
			st, ok := ts.Type.(*ast.StructType)
			if !ok || ts.Name.Name != "Config" {
				continue
			}
			drivers++
			for _, field := range st.Fields.List {
				for _, n := range field.Names {
					if n.IsExported() && !strings.Contains(strings.ToLower(field.Doc.Text()), "default") {
						t.Errorf("%s: Config.%s does not say its default", p.dir, n.Name)
					}
				}
			}
		}
	}
	if drivers < 2 {
		t.Errorf("found %d driver Configs, want claude's and codex's at least", drivers)
	}
}

// TestNilOptionsAreIgnored checks rule 3 on the public entry points that
// take options (package oci's own test covers oci).
func TestNilOptionsAreIgnored(t *testing.T) {
	dir := t.TempDir()
	skillDir := filepath.Join(dir, "greet")
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := cachetest.SkillMD("greet", "Greets.", "Say hello.")
	if err := os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	cacheRoot := cachetest.Root(t)
	tests := []struct {
		name string
		call func() error
	}{
		{"adaptor.New, Agent.Run and Agent.Thread", func() error {
			m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cacheRoot))
			a := adaptor.New(&drivertest.Driver{}, nil, adaptor.WithSkillMaterializer(m))
			if _, err := a.Run(t.Context(), "hi", nil); err != nil {
				return err
			}
			_, err := a.Thread("k", nil).Run(t.Context(), "hi")
			return err
		}},
		{"skill.NewCache", func() error { skill.NewCache(nil, skill.WithSkillCacheRoot(cacheRoot)); return nil }},
		{"skill.NewDefaultSkillMaterializer", func() error {
			skill.NewDefaultSkillMaterializer(nil, skill.WithSkillCacheRoot(cacheRoot))
			return nil
		}},
		{"skill.Archive", func() error { skill.Archive("k", skill.ArchiveBytes(nil), nil); return nil }},
		{"skill.ArchiveURL", func() error { skill.ArchiveURL("http://127.0.0.1:1/", nil); return nil }},
		{"skill.LocalSkillsFromDir", func() error { _, err := skill.LocalSkillsFromDir(dir, nil); return err }},
		{"skillmd.Parse", func() error { _, err := skillmd.Parse([]byte(md), nil); return err }},
		{"install.New", func() error {
			env := install.Env{Home: t.TempDir(), Project: t.TempDir()}
			in := install.New(env, nil, install.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cacheRoot))), install.WithLockDir(t.TempDir()))
			_, err := in.List(t.Context(), install.ListRequest{})
			if err != nil {
				return err
			}
			in.Remove(t.Context(), install.RemoveRequest{Names: []string{"greet"}}) // not installed: an error, not a panic
			return nil
		}},
		{"git.New", func() error { _, err := git.New(nil); return err }},
		{"github.New", func() error { _, err := github.New(nil); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s with a nil option panicked: %v", tt.name, r)
				}
			}()
			if err := tt.call(); err != nil {
				t.Errorf("%s with a nil option = %v, want no error", tt.name, err)
			}
		})
	}
}
