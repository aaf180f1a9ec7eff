package skillmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

// writeSkills writes n skill folders like those found in the wild (a
// 200-character description, a license, two metadata keys, a 2 KiB body)
// under root and returns their paths.
func writeSkills(tb testing.TB, root string, n int) []string {
	tb.Helper()
	body := strings.Repeat("Follow the steps of the workflow and check each result.\n", 36)
	dirs := make([]string, n)
	for i := range dirs {
		name := fmt.Sprintf("skill-%05d", i)
		dirs[i] = filepath.Join(root, name)
		src := fmt.Sprintf("---\nname: %s\ndescription: %s\nlicense: Apache-2.0\nmetadata:\n  author: example-org\n  version: \"1.%d\"\n---\n# %s\n\n%s",
			name, strings.Repeat("Does one thing well. ", 10), i, name, body)
		if err := os.Mkdir(dirs[i], 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[i], "SKILL.md"), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dirs
}

// BenchmarkValidate10000 validates 10,000 skill folders from disk, one
// after the other, in each iteration.
func BenchmarkValidate10000(b *testing.B) {
	dirs := writeSkills(b, b.TempDir(), 10_000)
	for b.Loop() {
		for _, dir := range dirs {
			if err := skillmd.Validate(dir); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParse parses one SKILL.md from memory.
func BenchmarkParse(b *testing.B) {
	src := []byte("---\nname: pdf-tools\ndescription: " + strings.Repeat("Does one thing well. ", 10) +
		"\nlicense: Apache-2.0\nmetadata:\n  author: example-org\n  version: \"1.0\"\n---\n# PDF\n\n" + strings.Repeat("Body text.\n", 200))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := skillmd.Parse(src, skillmd.WithDirName("pdf-tools")); err != nil {
			b.Fatal(err)
		}
	}
}
