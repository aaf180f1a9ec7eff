package git

import (
	"context"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/redact"
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
// fingerprint. Nothing is fetched until it is materialized. To build one
// skill of several found under a source's folder, set the pin's
// Source.Path to that skill's folder.
func (c *Client) Skill(key string, p Pin) skill.Skill {
	a := skill.Archive(key, c.Opener(p),
		skill.WithFormat(skill.FormatTar),
		skill.WithSubpath(p.Source.Path),
		skill.WithFingerprint(strings.ToLower(p.Commit)))
	a.Source = SkillSource{ArchiveSource: a.Source.(skill.ArchiveSource), client: c, pin: p}
	return a
}

// Origin returns where the source comes from, as a trust policy sees
// it: the repository's canonical kind and location
// ([sourceloc.RealGitLocation]: kind [source.Git] at the host and cleaned
// path, so file://localhost/srv//r and file:///srv/r are one, and a file
// URL at its real path, links resolved, so file:///proc/self/root/srv/r
// is /srv/r; kind [source.GitHub] at OWNER/REPO for a repository on
// github.com, as github:OWNER/REPO has), pinned when Ref is a full
// commit id in lower-case hex, and the source to show, without
// credentials. A URL that cannot be made canonical (a "." or ".."
// segment, a port that is no port) cannot be checked against a policy:
// the error wraps [source.ErrInvalid].
func (s Source) Origin() (source.Origin, error) {
	kind, loc, err := sourceloc.RealGitLocation(s.URL)
	if err != nil {
		return source.Origin{}, err
	}
	shown := s
	shown.URL = redact.URL(s.URL)
	return source.Origin{Kind: source.Kind(kind), Location: loc, Pinned: gitsyntax.IsCommit(s.Ref), Display: shown.String()}, nil
}

// Origin returns where the skill comes from, as a policy sees it: the
// [Source.Origin] of the pinned source, pinned when the pin names a full
// commit, and the pinned source to show, without credentials. A URL
// that cannot be made canonical gives kind [source.Unknown], which every
// rule that could apply refuses.
func (s SkillSource) Origin() source.Origin {
	shown := s.pin
	shown.Source.URL = redact.URL(shown.Source.URL)
	o, err := s.pin.Source.Origin()
	if err != nil {
		return source.Origin{Kind: source.Unknown, Display: shown.String()}
	}
	o.Pinned = gitsyntax.IsCommit(strings.ToLower(s.pin.Commit))
	o.Display = shown.String()
	return o
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
