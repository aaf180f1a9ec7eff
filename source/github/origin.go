package github

import (
	"context"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// SkillSource is the source of a skill [Client.Skill] builds: the
// archive source of the pinned folder, which the default materializer
// reads as the archive it embeds, that also says where it comes from
// ([SkillSource.Origin], a [source.OriginSource]), the commit it was
// built from ([SkillSource.Pin], a [source.PinnedSource]) and checks that
// commit's signature ([SkillSource.VerifyCommit], a
// [source.CommitVerifier]): what an agent that enforces a trust policy
// (trust.NewMaterializer) asks a source.
type SkillSource struct {
	skill.ArchiveSource
	client *Client
	pin    Pin
}

// Skill returns the skill at the pinned folder under key, its source a
// [SkillSource]: an archive source with [Client.Opener],
// [skill.FormatTar], the folder as its subpath and the commit as its
// fingerprint. Nothing is downloaded until it is materialized. To build
// one skill of several found under a source's folder, set the pin's
// Source.Path to that skill's folder.
func (c *Client) Skill(key string, p Pin) skill.Skill {
	a := skill.Archive(key, c.Opener(p),
		skill.WithFormat(skill.FormatTar),
		skill.WithSubpath(p.Source.Path),
		skill.WithFingerprint(strings.ToLower(p.Commit)))
	a.Source = SkillSource{ArchiveSource: a.Source.(skill.ArchiveSource), client: c, pin: p}
	return a
}

// Origin returns where the skill comes from, as a policy sees it: the
// kind and location of [sourceloc.GitHubLocation] for the GitHub the client
// reads it from (kind "github" and OWNER/REPO in lower case for
// github.com; kind "git" and HOST/OWNER/REPO for another host: the
// source's Host, else the host of the client's API address, as
// [APIHost] reads it), pinned when the pin names a full commit, and the
// pinned source to show. A location that cannot be made canonical gives
// kind [source.Unknown], which every rule that could apply refuses.
func (s SkillSource) Origin() source.Origin {
	host := s.pin.Source.Host
	if host == "" {
		host = apiHost(s.client.api)
	}
	display := s.pin.String()
	if s.pin.Source.Host == "" {
		display = "github:" + display
	}
	kind, loc, err := sourceloc.GitHubLocation(host, s.pin.Source.Owner, s.pin.Source.Repo)
	if err != nil {
		return source.Origin{Kind: source.Unknown, Display: display}
	}
	return source.Origin{
		Kind:     source.Kind(kind),
		Location: loc,
		Pinned:   isCommit(strings.ToLower(s.pin.Commit)),
		Display:  display,
	}
}

// Pin returns the commit the skill was built from, which a trust
// checker verifies with [SkillSource.VerifyCommit].
func (s SkillSource) Pin() string { return s.pin.Commit }

// VerifyCommit is [Client.VerifyCommit] of the commit in the repository
// the skill was built from: the [source.CommitVerifier] of the skill.
func (s SkillSource) VerifyCommit(ctx context.Context, commit string, keys source.CommitKeys) (string, error) {
	p := s.pin
	p.Commit = commit
	return s.client.VerifyCommit(ctx, p, keys)
}

var (
	_ source.CommitVerifier = SkillSource{}
	_ source.OriginSource   = SkillSource{}
	_ source.PinnedSource   = SkillSource{}
)
