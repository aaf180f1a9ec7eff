package requirement

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Resolver resolves requirements that name published skills (rules 1 to
// 6 of the package doc). It is a skill.RequirementResolver, safe for
// concurrent use.
type Resolver struct {
	gitOnce sync.Once
	git     *git.Client
	gitErr  error
	cache   *skill.Cache
	github  *github.Client
	oci     []oci.Option
}

var (
	_ skill.RequirementResolver = (*Resolver)(nil)
	_ skill.RequirementMerger   = (*Resolver)(nil)
)

// Option configures a [Resolver].
type Option func(*config)

type config struct {
	git    *git.Client
	github *github.Client
	oci    []oci.Option
	cache  *skill.Cache
}

// WithGitClient has git+ sources read by c. Default: git.New with the
// cache of [WithCache].
func WithGitClient(c *git.Client) Option { return func(cfg *config) { cfg.git = c } }

// WithGitHubClient has github: sources with no host of their own read
// by c (github.com's, or those of the GitHub that GITHUB_API_URL names); a
// source on a GitHub Enterprise Server (its host in the source) is read
// by a client of that host, github.New(github.WithHost(HOST)), as rule 5
// says. Default: github.New(), which reads GITHUB_TOKEN and
// GITHUB_API_URL as package source/github says.
func WithGitHubClient(c *github.Client) Option { return func(cfg *config) { cfg.github = c } }

// WithOCIOptions are the options of every call to package source/oci
// (credentials, an HTTP client, a cache). Several accumulate, after the
// cache of [WithCache]. Default: none beyond that cache.
func WithOCIOptions(opts ...oci.Option) Option {
	return func(cfg *config) { cfg.oci = append(cfg.oci, opts...) }
}

// WithCache is the skill cache whose limits git and OCI downloads obey
// and where OCI layers are kept: give the one the agent materializes
// into. Default: skill.NewCache(), the default cache root.
func WithCache(c *skill.Cache) Option { return func(cfg *config) { cfg.cache = c } }

// New returns a resolver. The git client of [WithGitClient], or one
// made with git.New when the first git source is resolved (so a program
// that requires no git source needs no git program), reads git sources.
// New fails, as github.New does, only when the default GitHub client
// cannot be made (GITHUB_API_URL is not usable).
func New(opts ...Option) (*Resolver, error) {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.cache == nil {
		c.cache = skill.NewCache()
	}
	r := &Resolver{git: c.git, cache: c.cache, github: c.github, oci: append([]oci.Option{oci.WithCache(c.cache)}, c.oci...)}
	if r.github == nil {
		gh, err := github.New()
		if err != nil {
			return nil, err
		}
		r.github = gh
	}
	return r, nil
}

// ResolveRequirement returns the skill req names, pinned: the version a
// range names now (its highest tag), a branch's commit, a tag's manifest
// digest (rules 2 to 5). The text is read and checked (rules 1 and 8)
// and, when req has a CheckOrigin, where it leads is checked by it
// before anything is asked of the network (rule 9). Nothing but the pin
// is fetched from a git host; an OCI artifact is fetched, and checked to
// hold one skill.
func (r *Resolver) ResolveRequirement(ctx context.Context, req skill.Requirement) (skill.Skill, error) {
	t, err := r.parse(req)
	if err != nil {
		return skill.Skill{}, err
	}
	if err := t.check(req); err != nil {
		return skill.Skill{}, err
	}
	return r.resolve(withCheck(ctx, req.CheckOrigin), t)
}

// resolve pins t and returns its skill.
func (r *Resolver) resolve(ctx context.Context, t target) (skill.Skill, error) {
	switch t.kind {
	case source.OCI:
		return r.resolveOCI(ctx, t.oci)
	case source.Git:
		return r.resolveGit(ctx, t.git)
	}
	return r.resolveGitHub(ctx, t.github)
}

// resolveGit pins src and returns its skill (rules 2 and 3).
func (r *Resolver) resolveGit(ctx context.Context, src git.Source) (skill.Skill, error) {
	r.gitOnce.Do(func() {
		if r.git == nil {
			r.git, r.gitErr = git.New(git.WithCache(r.cache), git.WithRedirectCheck(redirected))
		}
	})
	if r.gitErr != nil {
		return skill.Skill{}, r.gitErr
	}
	pin, err := r.git.Resolve(ctx, src)
	if err != nil {
		return skill.Skill{}, err
	}
	return r.git.Skill(gitKey(src), pin), nil
}

// parse reads req's text (parse), a GitHub source's origin that of the
// GitHub its client reads (rule 5): the API address of
// [WithGitHubClient]'s client is where the request goes, whatever
// GITHUB_API_URL says.
func (r *Resolver) parse(req skill.Requirement) (target, error) {
	t, err := parse(req)
	if err != nil || t.kind != source.GitHub {
		return t, err
	}
	gh, err := r.githubClient(t.github)
	if err != nil {
		return t, err
	}
	t.origin = source.OriginOf(gh.Skill(t.key, github.Pin{Source: t.github}).Source)
	t.ident = string(t.origin.Kind) + ":" + t.origin.Location + "#" + strings.Trim(t.github.Path, "/")
	return t, nil
}

// githubClient is the client that reads src (rule 5): that of its host
// when it names one (a GitHub Enterprise Server's), else the resolver's.
func (r *Resolver) githubClient(src github.Source) (*github.Client, error) {
	if src.Host == "" {
		return r.github, nil
	}
	return github.New(github.WithHost(src.Host))
}

// resolveGitHub pins src and returns its skill (rules 3 and 5).
func (r *Resolver) resolveGitHub(ctx context.Context, src github.Source) (skill.Skill, error) {
	gh, err := r.githubClient(src)
	if err != nil {
		return skill.Skill{}, err
	}
	pin, err := gh.Resolve(ctx, src)
	if err != nil {
		return skill.Skill{}, err
	}
	key := src.Repo
	if src.Path != "" {
		key = path.Base(src.Path)
	}
	return gh.Skill(key, pin), nil
}

// resolveOCI pins ref to its manifest digest and fetches it (rule 4).
func (r *Resolver) resolveOCI(ctx context.Context, ref oci.Reference) (skill.Skill, error) {
	if ref.Digest == "" {
		var err error
		if ref.Digest, err = oci.Resolve(ctx, ref.String(), r.oci...); err != nil {
			return skill.Skill{}, err
		}
		ref.Range = "" // the digest is the version the range picked
	}
	return oci.Skill(ctx, ref.String(), r.oci...)
}

// gitKey is the key of a git source's skill: its folder's base name, else
// the repository's last path element without .git (rule 3).
func gitKey(src git.Source) string {
	if src.Path != "" {
		return path.Base(src.Path)
	}
	u := strings.TrimRight(src.URL, "/")
	return strings.TrimSuffix(path.Base(u), ".git")
}

// MergeRequirements resolves requirements of one skill together (rule
// 7): when each names the same repository and folder (or OCI repository)
// by a version range, their ranges are joined (a version must satisfy
// every one) and the skill is resolved at the highest version the
// joined range admits. ok is false when they name different skills, or
// one names no range. Each is read and checked as ResolveRequirement
// checks it (rules 8 and 9) before anything is asked of the network. No
// version all admit fails with source.ErrNotFound.
func (r *Resolver) MergeRequirements(ctx context.Context, rs []skill.Requirement) (skill.Skill, bool, error) {
	if len(rs) < 2 {
		return skill.Skill{}, false, nil
	}
	var first target
	ranges := make([]string, 0, len(rs))
	for i, req := range rs {
		t, err := r.parse(req)
		if err != nil || !t.mergeable() || t.kind == source.OCI && t.oci.Digest != "" {
			return skill.Skill{}, false, nil
		}
		if i == 0 {
			first = t
		} else if t.kind != first.kind || t.ident != first.ident {
			return skill.Skill{}, false, nil
		}
		if err := t.check(req); err != nil {
			return skill.Skill{}, false, err
		}
		ranges = append(ranges, t.ref)
	}
	joined, err := joinRanges(ranges)
	if err != nil {
		return skill.Skill{}, false, err
	}
	ctx = withCheck(ctx, rs[0].CheckOrigin)
	switch first.kind {
	case source.OCI:
		first.oci.Range = joined
	case source.Git:
		first.git.Ref = joined
	case source.GitHub:
		first.github.Ref = joined
	}
	s, err := r.resolve(ctx, first)
	return s, err == nil, err
}

// The limits of a joined range: package source/version's (rule 2).
const (
	maxRangeBytes  = 512
	maxRangeGroups = 32
)

// joinRanges is the range that admits what every one of ranges admits:
// each group (ranges joined by "||") of one joined with each of the
// others', its constraints separated by ", ", as semver reads them. A
// range given twice is joined once, and so is a constraint within a
// group. It stops as soon as the groups are more than a range may hold
// or longer than a range may be (package source/version, rule 2), so
// its work is bounded whatever ranges it is given.
func joinRanges(ranges []string) (string, error) {
	tooLong := func() error {
		return fmt.Errorf("%w: the version range joined of %.200s is too long: a range has at most %d bytes and %d groups joined by \"||\" (name fewer ranges of the skill, or ranges with fewer \"||\")", source.ErrInvalid, strings.Join(ranges, " and "), maxRangeBytes, maxRangeGroups)
	}
	groups := [][]string{nil}
	seen := make(map[string]bool, len(ranges))
	for _, r := range ranges {
		r = strings.TrimSpace(r)
		if seen[r] {
			continue
		}
		seen[r] = true
		alts := strings.Split(r, "||")
		if len(groups)*len(alts) > maxRangeGroups {
			return "", tooLong()
		}
		next := make([][]string, 0, len(groups)*len(alts))
		size := 0
		for _, g := range groups {
			for _, alt := range alts {
				alt = strings.TrimSpace(alt)
				ng := g
				if !slices.Contains(g, alt) {
					ng = append(slices.Clip(g), alt)
				}
				for _, c := range ng {
					size += len(c) + len(", ")
				}
				if size > maxRangeBytes {
					return "", tooLong()
				}
				next = append(next, ng)
			}
		}
		groups = next
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = strings.Join(g, ", ")
	}
	joined := strings.Join(parts, " || ")
	if err := version.CheckRange(joined); err != nil {
		return "", fmt.Errorf("%w: the joined version range %.80q: %w", source.ErrInvalid, joined, err)
	}
	return joined, nil
}
