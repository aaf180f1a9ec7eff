package requirement

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// Resolver resolves requirements that name published skills (rules 1 to
// 6 of the package doc). It is a skill.RequirementResolver, safe for
// concurrent use.
type Resolver struct {
	git      *git.Client
	github   *github.Client
	githubOf bool // github is the caller's own, used for every host
	oci      []oci.Option
}

var _ skill.RequirementResolver = (*Resolver)(nil)

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

// New returns a resolver. It fails when the git program is missing only
// if no git client is given (source.ErrInvalid, as git.New fails).
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
	r := &Resolver{git: c.git, github: c.github, githubOf: c.github != nil, oci: append([]oci.Option{oci.WithCache(c.cache)}, c.oci...)}
	if r.github == nil {
		gh, err := github.New()
		if err != nil {
			return nil, err
		}
		r.github = gh
	}
	if r.git == nil {
		g, err := git.New(git.WithCache(c.cache))
		if err != nil {
			return nil, err
		}
		r.git = g
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
		parse := git.ParseWeb
		if strings.HasPrefix(spec.Text, "git+") {
			parse = git.Parse
		}
		src, err := parse(spec.Text)
		if err != nil {
			return skill.Skill{}, err
		}
		pin, err := r.git.Resolve(ctx, src)
		if err != nil {
			return skill.Skill{}, err
		}
		return r.git.Skill(gitKey(src), pin), nil
	case source.GitHub:
		src, err := github.Parse(spec.Text)
		if err != nil {
			return skill.Skill{}, err
		}
		gh := r.github
		if src.Host != "" && !r.githubOf { // a GitHub Enterprise Server's
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
	return skill.Skill{}, fmt.Errorf("%s: %w: a requirement names a published skill (github:OWNER/REPO/PATH@RANGE, git+URL#ref=RANGE&path=PATH or oci://HOST/REPO:RANGE), not a %s source", text, source.ErrInvalid, spec.Kind)
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
	u := strings.TrimSuffix(strings.TrimRight(src.URL, "/"), "/")
	return strings.TrimSuffix(path.Base(u), ".git")
}
