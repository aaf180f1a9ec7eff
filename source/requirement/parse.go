package requirement

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// target is a requirement's text read (rule 1): the published source it
// names and where that source is, as a policy sees it, before anything
// is read of it.
type target struct {
	shown  string // the text without credentials
	kind   source.Kind
	oci    oci.Reference
	git    git.Source
	github github.Source
	key    string        // the skill's key as far as the text tells it
	origin source.Origin // where the source is
	ident  string        // the repository and folder, for merging (rule 7)
	ref    string        // the reference: a range, a tag, a branch, a commit
}

// parse reads req's text (rules 1 and 8): source.Parse tells its kind,
// the kind's package reads it, and its origin is made from what was
// read, as package install's Origin makes a source's. Nothing is read
// over the network. Every error wraps source.ErrInvalid and shows the
// text without credentials.
func parse(req skill.Requirement) (target, error) {
	text := req.Text
	t := target{shown: redact.URL(text)}
	if relative(text) {
		return t, fmt.Errorf("%s: %w: a published skill (%s) names its requirements by published source, not by a path relative to its folder", t.shown, source.ErrInvalid, req.By.Key)
	}
	spec, err := source.Parse(text)
	if err != nil {
		return t, err
	}
	t.kind = spec.Kind
	switch spec.Kind {
	case source.OCI:
		if t.oci, err = oci.ParseReference(spec.Text); err != nil {
			return t, err
		}
		t.key = path.Base(t.oci.Repository)
		t.ref = t.oci.Range
		if t.oci.Digest != "" {
			t.ref = t.oci.Digest
		}
		if t.origin, err = t.oci.Origin(); err != nil {
			return t, fmt.Errorf("%s: %w", t.shown, err)
		}
	case source.Git:
		parseGit := git.ParseWeb
		if strings.HasPrefix(spec.Text, "git+") {
			parseGit = git.Parse
		}
		if t.git, err = parseGit(spec.Text); err != nil {
			return t, err
		}
		if u, err := url.Parse(t.git.URL); err != nil || sourceloc.HasDotSegment(u.Path) {
			return t, dotSegment(t.shown)
		}
		t.key, t.ref = gitKey(t.git), t.git.Ref
		if t.origin, err = t.git.Origin(); err != nil {
			return t, fmt.Errorf("%s: %w", t.shown, err)
		}
	case source.GitHub:
		if t.github, err = github.Parse(spec.Text); err != nil {
			return t, err
		}
		if p, err := url.PathUnescape(t.github.Path); err != nil || sourceloc.HasDotSegment(p) || p != t.github.Path {
			return t, dotSegment(t.shown)
		}
		t.key, t.ref = t.github.Repo, t.github.Ref
		if t.github.Path != "" {
			t.key = path.Base(t.github.Path)
		}
		if t.origin, err = t.github.Origin(); err != nil {
			return t, fmt.Errorf("%s: %w", t.shown, err)
		}
	default:
		return t, fmt.Errorf("%s: %w: a requirement names a published skill (github:OWNER/REPO/PATH@RANGE, git+URL#ref=RANGE&path=PATH or oci://HOST/REPO:RANGE), not a %s source", t.shown, source.ErrInvalid, spec.Kind)
	}
	t.ident = string(t.origin.Kind) + ":" + t.origin.Location + "#" + strings.Trim(t.git.Path+t.github.Path, "/")
	return t, nil
}

// check refuses t, read from req, before anything is asked of the
// network: a repository of this machine (git+file://) that a skill not
// itself of this machine requires (rule 8), then where t leads when req
// has a CheckOrigin (rule 9), with the origin pinned, as what the
// resolver returns is.
func (t target) check(req skill.Requirement) error {
	if localRepo(t.origin) && !ofThisMachine(req.By) {
		return fmt.Errorf("%s: %w: it names a repository of this machine, and %s is not a folder, an inline skill or a git+file:// repository here (its origin is of kind %q): a published skill requires published sources", t.shown, source.ErrInvalid, req.By.Key, source.OriginOf(req.By.Source).Kind)
	}
	if req.CheckOrigin == nil {
		return nil
	}
	o := t.origin
	o.Pinned = true // what is returned is pinned (rule 2)
	return req.CheckOrigin(skill.Skill{Key: t.key, Source: originSource{o}})
}

// localRepo reports whether o is a git repository of this machine (a
// file URL's, whose location is its path).
func localRepo(o source.Origin) bool {
	return o.Kind == source.Git && strings.HasPrefix(o.Location, "/")
}

// ofThisMachine reports whether s comes from this machine: a folder, a
// skill of the program's own (inline, an fs.FS, or none: a requirement
// the program resolves itself), or a git repository here (rule 8).
func ofThisMachine(s skill.Skill) bool {
	if s.Source == nil {
		return true
	}
	o := source.OriginOf(s.Source)
	return o.Kind == source.Local || o.Kind == source.Inline || localRepo(o)
}

// relative reports whether text is a path relative to a folder.
func relative(text string) bool {
	return text == "." || text == ".." || strings.HasPrefix(text, "./") || strings.HasPrefix(text, "../")
}

func dotSegment(shown string) error {
	return fmt.Errorf("%s: %w: the source's path has a '.' or '..' segment, or an escaped character; write it without (the policy is checked against the path as written)", shown, source.ErrInvalid)
}

// originSource is where a requirement leads, as its CheckOrigin is
// given it before it is resolved.
type originSource struct{ o source.Origin }

func (originSource) SkillSource()            {}
func (s originSource) Origin() source.Origin { return s.o }

// checkKey is the context key of the CheckOrigin of the requirement
// being resolved, which the git client's redirect check applies to the
// repository a redirect leads to.
type checkKey struct{}

func withCheck(ctx context.Context, check func(skill.Skill) error) context.Context {
	if check == nil {
		return ctx
	}
	return context.WithValue(ctx, checkKey{}, check)
}

// redirected checks the repository a git redirect leads to (to, without
// credentials) with the CheckOrigin of the requirement being resolved,
// before any request is sent there (rule 9).
func redirected(ctx context.Context, to string) error {
	check, _ := ctx.Value(checkKey{}).(func(skill.Skill) error)
	if check == nil {
		return nil
	}
	kind, loc, err := sourceloc.GitLocation(to)
	if err != nil {
		return dotSegment(redact.URL(to))
	}
	o := source.Origin{Kind: source.Kind(kind), Location: loc, Pinned: true, Display: redact.URL(to)}
	return check(skill.Skill{Key: gitKey(git.Source{URL: to}), Source: originSource{o}})
}

// mergeable reports whether t names a skill by a version range (rule 7).
func (t target) mergeable() bool { return version.IsRange(t.ref) }
