// Package skilltest makes the skills and agents the tests of the SDK
// use, in the root package and in package trust alike: a SKILL.md, a
// skill folder, an agent on a recording driver, and the 200 mixed skills
// of the resolve benchmarks.
package skilltest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// SkillMD is the SKILL.md of a skill named name.
func SkillMD(name string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\n# %s\n", name, name, name)
}

// Dir makes a skill folder named name under a new temp folder.
func Dir(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(SkillMD(name)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// NewAgent returns an agent on a recording driver, with a private cache.
func NewAgent(t testing.TB, opts ...adaptor.Option) (*adaptor.Agent, *drivertest.Driver) {
	rec := &drivertest.Driver{RequireSkillMD: true}
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	return adaptor.New(rec, append([]adaptor.Option{adaptor.WithSkillMaterializer(m)}, opts...)...), rec
}

// Keys returns the key of each skill of rs, in order.
func Keys(rs driver.ResolvedSkills) []string {
	var out []string
	for _, e := range rs.Entries {
		out = append(out, e.Key)
	}
	return out
}

// Mixed returns 200 skills: 50 each of inline, FS, archive and folder,
// each with a SKILL.md and two reference files.
func Mixed(tb testing.TB) []skill.Ref {
	root := tb.TempDir()
	mapFS := fstest.MapFS{}
	var refs []skill.Ref
	for i := range 50 {
		refs = append(refs, skill.Inline(fmt.Sprintf("inline-%02d", i), SkillMD(fmt.Sprintf("inline-%02d", i))))

		name := fmt.Sprintf("fs-%02d", i)
		mapFS[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(SkillMD(name))}
		mapFS[name+"/references/a.md"] = &fstest.MapFile{Data: []byte("reference a of " + name)}
		mapFS[name+"/references/b.md"] = &fstest.MapFile{Data: []byte("reference b of " + name)}
		refs = append(refs, skill.FS(mapFS, name))

		name = fmt.Sprintf("archive-%02d", i)
		data := testarchive.TarGzFiles(tb, map[string]string{"SKILL.md": SkillMD(name), "references/a.md": "a " + name, "references/b.md": "b " + name})
		refs = append(refs, skill.Archive(name, skill.ArchiveBytes(data)))

		name = fmt.Sprintf("dir-%02d", i)
		dir := filepath.Join(root, name)
		os.MkdirAll(filepath.Join(dir, "references"), 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(SkillMD(name)), 0o644)
		os.WriteFile(filepath.Join(dir, "references", "a.md"), []byte("a "+name), 0o644)
		os.WriteFile(filepath.Join(dir, "references", "b.md"), []byte("b "+name), 0o644)
		refs = append(refs, skill.Dir(dir))
	}
	return refs
}
