package oci

import (
	"context"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TrustedSource is the archive source of a fetched skill ([Artifact.Source])
// that also says where it comes from and checks who signed it: what an
// agent that enforces a trust policy (adaptor.WithPolicy) asks a source.
// The default materializer reads it as the archive it embeds.
type TrustedSource struct {
	skill.ArchiveSource
	artifact *Artifact
}

// TrustedSkill returns the skill as [Artifact.Skill] does, with a
// [TrustedSource] as its source.
func (a *Artifact) TrustedSkill() skill.Skill {
	return skill.Skill{Key: a.Name, Source: TrustedSource{ArchiveSource: a.Source(), artifact: a}}
}

// Origin returns where the skill comes from, as a policy sees it: kind
// "oci", the host and repository, pinned, and the pinned reference to
// show.
func (s TrustedSource) Origin() policy.Source {
	r := s.artifact.Ref
	return policy.Source{Kind: "oci", Location: r.Host + "/" + r.Repository, Pinned: r.Digest != "", Display: r.String()}
}

// VerifySignature is [Verify] of the pinned reference the skill was
// fetched from, with the options it was fetched with.
func (s TrustedSource) VerifySignature(ctx context.Context, reqs []signature.Requirement) (signature.Signer, error) {
	var opts []Option
	if cfg := s.artifact.cfg; cfg != nil {
		opts = []Option{WithCache(cfg.cache), WithHTTPClient(cfg.client), WithCredentials(cfg.credentials)}
	}
	return Verify(ctx, s.artifact.Ref.String(), reqs, opts...)
}
