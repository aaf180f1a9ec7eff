package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkValidate10000 runs "agentskills validate" on 10,000 skill
// folders given as relative paths, as a shell expands skills/*, in one
// process.
func BenchmarkValidate10000(b *testing.B) {
	root := b.TempDir()
	body := strings.Repeat("Follow the steps of the workflow and check each result.\n", 36)
	args := []string{"validate"}
	for i := range 10_000 {
		name := fmt.Sprintf("skill-%05d", i)
		dir := filepath.Join(root, "skills", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		src := fmt.Sprintf("---\nname: %s\ndescription: %s\nlicense: Apache-2.0\nmetadata:\n  author: example-org\n  version: \"1.%d\"\n---\n# %s\n\n%s",
			name, strings.Repeat("Does one thing well. ", 10), i, name, body)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		args = append(args, "skills/"+name)
	}
	b.Chdir(root)
	for b.Loop() {
		if code := run(b.Context(), args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatalf("run = %d, want 0", code)
		}
	}
}
