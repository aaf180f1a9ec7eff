package oci

import (
	"context"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// TrustedSource is the archive source of a fetched skill ([Artifact.Source])
// that also says where it comes from and checks who signed it: what an
// agent that enforces a trust policy (trust.NewMaterializer) asks a source.
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
// "oci", the canonical location of the host and repository
// ([sourceloc.OCILocation]: ghcr.io:0443/acme/x is ghcr.io/acme/x), pinned,
// and the pinned reference to show. A location that cannot be made
// canonical is given as written, which the policy refuses (it matches
// no rule's pattern, so no rule can be known not to apply).
func (s TrustedSource) Origin() source.Origin {
	r := s.artifact.Ref
	loc, err := sourceloc.OCILocation(r.Host, r.Repository)
	if err != nil {
		loc = r.Host + "/" + r.Repository
	}
	return source.Origin{Kind: "oci", Location: loc, Pinned: r.Digest != "", Display: r.String()}
}

// Pin returns the manifest digest the skill was fetched at, which a
// trust checker verifies with [TrustedSource.VerifySignature].
func (s TrustedSource) Pin() string { return s.artifact.Ref.Digest }

// VerifyBundles is [Verify] of the manifest pin (a digest) of the
// repository the skill was fetched from, with the options it was
// fetched with.
func (s TrustedSource) VerifyBundles(ctx context.Context, pin string, v BundleVerifier) error {
	var opts []Option
	if cfg := s.artifact.cfg; cfg != nil {
		opts = []Option{WithCache(cfg.cache), WithHTTPClient(cfg.client), WithCredentials(cfg.credentials)}
	}
	ref := s.artifact.Ref
	ref.Digest = pin
	return Verify(ctx, ref.String(), v, opts...)
}
