package trust_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// BenchmarkResolve200WarmPolicy is BenchmarkResolve200Warm with a policy
// enforced: the audit of every tree is remembered by its content digest,
// so a warm run adds a check of each skill's origin and a lookup of its
// findings, not an audit.
func BenchmarkResolve200WarmPolicy(b *testing.B) {
	refs := mixedSkills(b)
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(b)))
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(trust.NewMaterializer(m, trust.NewChecker(new(policy.Policy)))), adaptor.WithSkills(refs...))
	if _, err := agent.Inspect(b.Context()); err != nil {
		b.Fatal(err)
	}
	cachetest.Settle()
	if _, err := agent.Inspect(b.Context()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := agent.Inspect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// folder, each with a SKILL.md and two reference files.
func mixedSkills(b *testing.B) []skill.Ref {
	root := b.TempDir()
	mapFS := fstest.MapFS{}
	var refs []skill.Ref
	for i := range 50 {
		refs = append(refs, skill.Inline(fmt.Sprintf("inline-%02d", i), skillMD(fmt.Sprintf("inline-%02d", i))))

		name := fmt.Sprintf("fs-%02d", i)
		mapFS[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(skillMD(name))}
		mapFS[name+"/references/a.md"] = &fstest.MapFile{Data: []byte("reference a of " + name)}
		mapFS[name+"/references/b.md"] = &fstest.MapFile{Data: []byte("reference b of " + name)}
		refs = append(refs, skill.FS(mapFS, name))

		name = fmt.Sprintf("archive-%02d", i)
		data := testarchive.TarGzFiles(b, map[string]string{"SKILL.md": skillMD(name), "references/a.md": "a " + name, "references/b.md": "b " + name})
		refs = append(refs, skill.Archive(name, skill.ArchiveBytes(data)))

		name = fmt.Sprintf("dir-%02d", i)
		dir := filepath.Join(root, name)
		os.MkdirAll(filepath.Join(dir, "references"), 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(name)), 0o644)
		os.WriteFile(filepath.Join(dir, "references", "a.md"), []byte("a "+name), 0o644)
		os.WriteFile(filepath.Join(dir, "references", "b.md"), []byte("b "+name), 0o644)
		refs = append(refs, skill.Dir(dir))
	}
	return refs
}
