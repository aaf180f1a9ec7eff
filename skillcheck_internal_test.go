package adaptor

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// BenchmarkSkillCheck measures the check of one skill: a warm run finds
// the verdict of its content remembered; a cold one reads the SKILL.md.
func BenchmarkSkillCheck(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	md := "---\nname: review\ndescription: Reviews a change.\n---\n# Review\n\nRead the diff.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		b.Fatal(err)
	}
	s := driver.ResolvedSkill{Key: "review", RuntimeName: "review", Path: dir, Digest: "d1"}
	b.Run("warm", func(b *testing.B) {
		var v verdicts
		for b.Loop() {
			if err := v.check(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			var v verdicts
			if err := v.check(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestVerdictsBounded checks that the verdicts an agent remembers stay
// within maxVerdicts.
func TestVerdictsBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "review")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Reviews.\n---\n"), 0o644)
	var v verdicts
	for i := range maxVerdicts + 10 {
		if err := v.check(driver.ResolvedSkill{Key: "review", Path: dir, Digest: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		if len(v.ok) > maxVerdicts {
			t.Fatalf("after %d checks %d verdicts are remembered, want at most %d", i+1, len(v.ok), maxVerdicts)
		}
	}
}
