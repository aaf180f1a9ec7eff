package requirement

import (
	"context"
	"fmt"
	"path"
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
	gitOnce  sync.Once
	git      *git.Client
	gitErr   error
	cache    *skill.Cache
	github   *github.Client
	githubOf bool // github is the caller's own, used for every host
	oci      []oci.Option
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

// WithGitHubClient has github: sources read by c. Default: github.New(),
// which reads GITHUB_TOKEN and GITHUB_API_URL as package source/github
// says.
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
	r := &Resolver{git: c.git, cache: c.cache, github: c.github, githubOf: c.github != nil, oci: append([]oci.Option{oci.WithCache(c.cache)}, c.oci...)}
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
// digest (rules 2 to 5). Nothing but the pin is fetched from a git host;
// an OCI artifact is fetched, and checked to hold one skill.
func (r *Resolver) ResolveRequirement(ctx context.Context, req skill.Requirement) (skill.Skill, error) {
	text := req.Text
	if strings.HasPrefix(text, "./") || strings.HasPrefix(text, "../") || text == "." || text == ".." {
		return skill.Skill{}, fmt.Errorf("%s: %w: a published skill (%s) names its requirements by published source, not by a path relative to its folder", text, source.ErrInvalid, req.By.Key)
	}
	spec, err := source.Parse(text)
	if err != nil {
		return skill.Skill{}, err
	}
	switch spec.Kind {
	case source.OCI:
		return r.resolveOCI(ctx, spec.Text)
	case source.Git:
		src, err := parseGit(spec.Text)
		if err != nil {
			return skill.Skill{}, err
		}
		return r.resolveGit(ctx, src)
	case source.GitHub:
		src, err := github.Parse(spec.Text)
		if err != nil {
			return skill.Skill{}, err
		}
		return r.resolveGitHub(ctx, src)
	}
	return skill.Skill{}, fmt.Errorf("%s: %w: a requirement names a published skill (github:OWNER/REPO/PATH@RANGE, git+URL#ref=RANGE&path=PATH or oci://HOST/REPO:RANGE), not a %s source", text, source.ErrInvalid, spec.Kind)
}

// resolveGit pins src and returns its skill (rules 2 and 3).
func (r *Resolver) resolveGit(ctx context.Context, src git.Source) (skill.Skill, error) {
	r.gitOnce.Do(func() {
		if r.git == nil {
			r.git, r.gitErr = git.New(git.WithCache(r.cache))
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

// resolveGitHub pins src and returns its skill (rules 3 and 5).
func (r *Resolver) resolveGitHub(ctx context.Context, src github.Source) (skill.Skill, error) {
	gh := r.github
	if src.Host != "" && !r.githubOf { // a GitHub Enterprise Server's
		var err error
		if gh, err = github.New(github.WithHost(src.Host)); err != nil {
			return skill.Skill{}, err
		}
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
func (r *Resolver) resolveOCI(ctx context.Context, text string) (skill.Skill, error) {
	ref, err := oci.ParseReference(text)
	if err != nil {
		return skill.Skill{}, err
	}
	if ref.Digest == "" {
		if ref.Digest, err = oci.Resolve(ctx, text, r.oci...); err != nil {
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
// one names no range. No version all admit fails with source.ErrNotFound.
func (r *Resolver) MergeRequirements(ctx context.Context, rs []skill.Requirement) (skill.Skill, bool, error) {
	if len(rs) < 2 {
		return skill.Skill{}, false, nil
	}
	var kind source.Kind
	var ident string
	ranges := make([]string, len(rs))
	var first any
	for i, req := range rs {
		spec, err := source.Parse(req.Text)
		if err != nil {
			return skill.Skill{}, false, nil
		}
		var id, rng string
		switch spec.Kind {
		case source.OCI:
			ref, err := oci.ParseReference(spec.Text)
			if err != nil || ref.Digest != "" {
				return skill.Skill{}, false, nil
			}
			id, rng = ref.Host+"/"+ref.Repository, ref.Range
			if i == 0 {
				first = ref
			}
		case source.Git:
			src, err := parseGit(spec.Text)
			if err != nil {
				return skill.Skill{}, false, nil
			}
			id, rng = src.URL+"#"+src.Path, src.Ref
			if i == 0 {
				first = src
			}
		case source.GitHub:
			src, err := github.Parse(spec.Text)
			if err != nil {
				return skill.Skill{}, false, nil
			}
			id, rng = strings.ToLower(src.Host+"/"+src.Owner+"/"+src.Repo)+"#"+src.Path, src.Ref
			if i == 0 {
				first = src
			}
		default:
			return skill.Skill{}, false, nil
		}
		if !version.IsRange(rng) || i > 0 && (spec.Kind != kind || id != ident) {
			return skill.Skill{}, false, nil
		}
		kind, ident, ranges[i] = spec.Kind, id, rng
	}
	joined, err := joinRanges(ranges)
	if err != nil {
		return skill.Skill{}, false, err
	}
	switch src := first.(type) {
	case oci.Reference:
		src.Range = joined
		s, err := r.resolveOCI(ctx, src.String())
		return s, err == nil, err
	case git.Source:
		src.Ref = joined
		s, err := r.resolveGit(ctx, src)
		return s, err == nil, err
	case github.Source:
		src.Ref = joined
		s, err := r.resolveGitHub(ctx, src)
		return s, err == nil, err
	}
	return skill.Skill{}, false, nil
}

// joinRanges is the range that admits what every one of ranges admits:
// each group (ranges joined by "||") of one joined with each of the
// others', its constraints separated by ", ", as semver reads them.
func joinRanges(ranges []string) (string, error) {
	groups := []string{""}
	for _, r := range ranges {
		var next []string
		for _, g := range groups {
			for _, alt := range strings.Split(r, "||") {
				alt = strings.TrimSpace(alt)
				if g != "" {
					alt = g + ", " + alt
				}
				next = append(next, alt)
			}
		}
		groups = next
	}
	joined := strings.Join(groups, " || ")
	if err := version.CheckRange(joined); err != nil {
		return "", err
	}
	return joined, nil
}

// parseGit reads a git source: a git+URL, or a git host's web address.
func parseGit(text string) (git.Source, error) {
	if strings.HasPrefix(text, "git+") {
		return git.Parse(text)
	}
	return git.ParseWeb(text)
}
