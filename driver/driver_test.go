package driver

import "testing"

func TestSkillRefIsSealed(t *testing.T) {
	// Only the two types of this package implement SkillRef.
	refs := []SkillRef{Skill{Key: "a"}, SkillKey("b")}
	for _, r := range refs {
		switch r.(type) {
		case Skill, SkillKey:
		default:
			t.Errorf("unexpected SkillRef %T", r)
		}
	}
	if SkillMetadataRuntimeName != "_runtime_name" || SkillMetadataDisplayName != "_display_name" {
		t.Errorf("metadata keys changed")
	}
}
