package git

import (
	"context"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// TrustedSource is the archive source of a pinned skill ([Client.Skill])
// that also says where it comes from and checks the pinned commit's
// signature: what an agent that enforces a trust policy
// (trust.NewMaterializer) asks a source. The default materializer reads it
// as the archive it embeds.
type TrustedSource struct {
	skill.ArchiveSource
	client *Client
	pin    Pin
}

// TrustedSkill returns the skill as [Client.Skill] does, with a
// [TrustedSource] as its source.
func (c *Client) TrustedSkill(key string, p Pin) skill.Skill {
	s := c.Skill(key, p)
	s.Source = TrustedSource{ArchiveSource: s.Source.(skill.ArchiveSource), client: c, pin: p}
	return s
}

// Origin returns where the skill comes from, as a policy sees it: the
// repository's canonical kind and location ([sourceloc.RealGitLocation]:
// kind "git" at the host and cleaned path, so file://localhost/srv//r
// and file:///srv/r are one, and a file URL at its real path, links
// resolved, so file:///proc/self/root/srv/r is /srv/r; kind "github" at
// OWNER/REPO for a repository on github.com, as github:OWNER/REPO has),
// pinned when the pin names a full commit, and the pinned source
// to show, without credentials. A URL that cannot be made canonical (a
// "." or ".." segment, a port that is no port) cannot be checked against
// a policy: its kind is then "unknown", which every rule that could
// apply refuses.
func (s TrustedSource) Origin() source.Origin {
	shown := s.pin
	shown.Source.URL = display(shown.Source.URL)
	kind, loc, err := sourceloc.RealGitLocation(s.pin.Source.URL)
	if err != nil {
		return source.Origin{Kind: "unknown", Display: shown.String()}
	}
	return source.Origin{Kind: kind, Location: loc, Pinned: gitsyntax.IsCommit(strings.ToLower(s.pin.Commit)), Display: shown.String()}
}

// Pin returns the commit the skill was built from, which a trust
// checker verifies with [TrustedSource.VerifyCommit].
func (s TrustedSource) Pin() string { return s.pin.Commit }

// VerifyCommit is [Client.VerifyCommit] of the commit in the repository
// the skill was built from: the [source.CommitVerifier] of the skill.
func (s TrustedSource) VerifyCommit(ctx context.Context, commit string, keys source.CommitKeys) (string, error) {
	p := s.pin
	p.Commit = commit
	return s.client.VerifyCommit(ctx, p, keys)
}

var _ source.CommitVerifier = TrustedSource{}
