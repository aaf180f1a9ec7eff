package adaptor_test

import (
	"testing"

	"github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestFingerprintKnownAnswer fixes the fingerprint of one selection, so a
// change of its encoding, which would stop every recorded thread from
// resuming, cannot pass unnoticed.
func TestFingerprintKnownAnswer(t *testing.T) {
	rec := &drivertest.Driver{}
	tone := skill.Inline("tone", "---\nname: tone\ndescription: Keep a friendly tone.\n---\nBe kind.\n")
	tone.Metadata = map[string]string{skill.MetadataDisplayName: "Tone"}
	agent := adaptor.New(rec,
		adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))),
		adaptor.WithSkills(tone, required(skill.Inline("policy", "---\nname: policy\ndescription: House rules.\n---\nAsk first.\n"), "house rules")),
	)
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	const want = "8bd5e8aa19961eb7bcf79e0a6c0e635ead4f1d34bbc55eba0227290549de0aa5"
	if got := rec.Last().Skills.Fingerprint; got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
}
