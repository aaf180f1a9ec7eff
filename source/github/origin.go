package github

import (
	"context"
	"strings"

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
// kind and location of [sourceloc.GitHubLocation] for the GitHub the client
// reads it from (kind "github" and OWNER/REPO in lower case for
// github.com; kind "git" and HOST/OWNER/REPO for another host: the
// source's Host, else the host of the client's API address, as
// [APIHost] reads it), pinned when the pin names a full commit, and the
// pinned source to show. A location that cannot be made canonical gives
// kind "unknown", which every rule that could apply refuses.
func (s TrustedSource) Origin() source.Origin {
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
		return source.Origin{Kind: "unknown", Display: display}
	}
	return source.Origin{
		Kind:     kind,
		Location: loc,
		Pinned:   isCommit(strings.ToLower(s.pin.Commit)),
		Display:  display,
	}
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
