package skill_test

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// WithRequires marks a copy: the skill it is given, and its Metadata,
// are left as they were.
func TestWithRequires(t *testing.T) {
	md := map[string]string{skill.MetadataDisplayName: "Release"}
	s := skill.Skill{Key: "release", Source: skill.PathSource{Path: "/x"}, Metadata: md}
	got := skill.WithRequires(s)
	if got.Metadata[skill.MetadataRequires] != "true" || got.Metadata[skill.MetadataDisplayName] != "Release" {
		t.Errorf("WithRequires(s).Metadata = %v; want the mark and the display name", got.Metadata)
	}
	if !maps.Equal(md, map[string]string{skill.MetadataDisplayName: "Release"}) || s.Metadata[skill.MetadataRequires] != "" {
		t.Errorf("WithRequires changed its argument's Metadata: %v", md)
	}
	if bare := skill.WithRequires(skill.Inline("a", "x")); bare.Metadata[skill.MetadataRequires] != "true" || len(bare.Metadata) != 1 {
		t.Errorf("WithRequires of a skill without Metadata = %v", bare.Metadata)
	}
}

type refusal struct{}

func (refusal) Error() string { return "refused" }
func (refusal) Refused() bool { return true }

// A RequirementError names its chain first, says whether it holds a
// refusal, and unwraps to what it carries.
func TestRequirementError(t *testing.T) {
	unmet := &skill.RequirementError{Chain: []string{"release", "changelog"}, Requirement: "../semver", Err: fmt.Errorf("%w: no folder", skill.ErrRequirement)}
	if got, want := unmet.Error(), `requirement chain release -> changelog, requirement "../semver": agentadaptor: skill requirement cannot be met: no folder`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(unmet, skill.ErrRequirement) || unmet.Refused() {
		t.Errorf("unmet: Is(ErrRequirement) = %v, Refused() = %v; want true, false", errors.Is(unmet, skill.ErrRequirement), unmet.Refused())
	}
	refused := &skill.RequirementError{Chain: []string{"release", "changelog"}, Err: fmt.Errorf("wrapped: %w", refusal{})}
	if got, want := refused.Error(), "requirement chain release -> changelog: wrapped: refused"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !refused.Refused() || errors.Is(refused, skill.ErrRequirement) {
		t.Errorf("refused: Refused() = %v, Is(ErrRequirement) = %v; want true, false", refused.Refused(), errors.Is(refused, skill.ErrRequirement))
	}
}
