package skillmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

// FuzzParse feeds SKILL.md files, seeded from the conformance corpus, to
// both modes: parsing never panics, a parsed skill's JSON is valid JSON,
// its prompt holds its escaped name, and every problem has a message.
func FuzzParse(f *testing.F) {
	for _, c := range loadCases(f) {
		for _, file := range c.files {
			f.Add(c.content(file))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []skillmd.Mode{skillmd.Strict, skillmd.Lenient} {
			s, err := skillmd.Parse(data, skillmd.WithMode(mode), skillmd.WithDirName("skill"))
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("Parse(%q, %v) error has no text", data, mode)
				}
				continue
			}
			for _, p := range s.Problems {
				if p.Message == "" {
					t.Fatalf("Parse(%q, %v) gave a problem without a message", data, mode)
				}
			}
			js, err := s.PropertiesJSON()
			if err != nil {
				continue
			}
			if !json.Valid(js) {
				t.Fatalf("PropertiesJSON(%q, %v) = %s, not JSON", data, mode, js)
			}
			block, err := skillmd.Prompt([]*skillmd.Skill{s})
			if err != nil {
				t.Fatalf("Prompt(%q, %v) = %v after PropertiesJSON succeeded", data, mode, err)
			}
			if strings.Count(block, "<skill>") != 1 {
				t.Fatalf("Prompt(%q, %v) = %q, want one skill", data, mode, block)
			}
		}
	})
}
