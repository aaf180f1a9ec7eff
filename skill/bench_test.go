package skill

import (
	"bytes"
	"fmt"
	"path"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

func BenchmarkMaterializeInline(b *testing.B) {
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(b.TempDir()))
	s := Inline("greet", "---\nname: greet\ndescription: say hello\n---\n# Greet\n")
	if _, err := m.Materialize(b.Context(), s); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Materialize(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFS() fstest.MapFS {
	fsys := fstest.MapFS{"kit/SKILL.md": {Data: []byte("---\nname: kit\ndescription: d\n---\n")}}
	for i := range 20 {
		fsys[path.Join("kit", "references", fmt.Sprintf("r%02d.md", i))] = &fstest.MapFile{Data: testarchive.Text(uint64(i), 4096)}
	}
	return fsys
}

func BenchmarkMaterializeFS(b *testing.B) {
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(b.TempDir()))
	s := FS(benchFS(), "kit")
	if _, err := m.Materialize(b.Context(), s); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Materialize(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMaterializeFSCold(b *testing.B) {
	s := FS(benchFS(), "kit")
	for b.Loop() {
		m := NewDefaultSkillMaterializer(WithSkillCacheRoot(b.TempDir()))
		if _, err := m.Materialize(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

// benchArchive is a skill of 200 files and about 4 MiB of text.
func benchArchive(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := testarchive.TarGz(&buf, 200, 4<<20); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkMaterializeArchiveCold(b *testing.B) {
	data := benchArchive(b)
	b.SetBytes(4 << 20)
	for b.Loop() {
		m := NewDefaultSkillMaterializer(WithSkillCacheRoot(b.TempDir()))
		if _, err := m.Materialize(b.Context(), Archive("bench", ArchiveBytes(data))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMaterializeArchiveWarm(b *testing.B) {
	data := benchArchive(b)
	b.SetBytes(4 << 20)
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(b.TempDir()))
	if _, err := m.Materialize(b.Context(), Archive("bench", ArchiveBytes(data))); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Materialize(b.Context(), Archive("bench", ArchiveBytes(data))); err != nil {
			b.Fatal(err)
		}
	}
}
