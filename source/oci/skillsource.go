package oci

import (
	"context"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// SkillSource is the source of a fetched skill ([Artifact.Source]): the
// archive source of the layer, which the default materializer reads as
// the archive it embeds, that also says where it comes from
// ([SkillSource.Origin], a [source.OriginSource]), the manifest digest it
// was fetched at ([SkillSource.Pin], a [source.PinnedSource]) and checks
// who signed it ([SkillSource.VerifyBundles], a [source.Signed]): what an
// agent that enforces a trust policy (trust.NewMaterializer) asks a
// source.
type SkillSource struct {
	skill.ArchiveSource
	artifact *Artifact
}

// Origin returns where the skill comes from, as a policy sees it: the
// [Reference.Origin] of the pinned reference. A location that cannot be
// made canonical is given as written, which the policy refuses (it
// matches no rule's pattern, so no rule can be known not to apply).
func (s SkillSource) Origin() source.Origin {
	r := s.artifact.Ref
	o, err := r.Origin()
	if err != nil {
		return source.Origin{Kind: source.OCI, Location: r.Host + "/" + r.Repository, Pinned: r.Digest != "", Display: r.String()}
	}
	return o
}

// Pin returns the manifest digest the skill was fetched at, which a
// trust checker verifies with [SkillSource.VerifyBundles].
func (s SkillSource) Pin() string { return s.artifact.Ref.Digest }

// VerifyBundles is [Verify] of the manifest pin (a digest) of the
// repository the skill was fetched from, with the options it was
// fetched with.
func (s SkillSource) VerifyBundles(ctx context.Context, pin string, v source.BundleVerifier) error {
	var opts []Option
	if cfg := s.artifact.cfg; cfg != nil {
		opts = []Option{WithCache(cfg.cache), WithHTTPClient(cfg.client), WithCredentials(cfg.credentials)}
	}
	ref := s.artifact.Ref
	ref.Digest = pin
	return Verify(ctx, ref.String(), v, opts...)
}

var (
	_ source.OriginSource = SkillSource{}
	_ source.PinnedSource = SkillSource{}
	_ source.Signed       = SkillSource{}
	_ source.Signed       = (*Remote)(nil)
)
