package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// maxTagListing bounds what git ls-remote --tags may print (rule 17).
const maxTagListing = 16 << 20

// Tag is a tag of a repository and the commit it names.
type Tag = version.Tag

// Tags lists src's tags with one git ls-remote --tags, watched as a
// fetch is (rule 17).
func (c *Client) Tags(ctx context.Context, src Source) ([]Tag, error) {
	if err := src.check(); err != nil {
		return nil, invalid(src.String(), err)
	}
	repo, err := c.newRepo(ctx, src)
	if err != nil {
		return nil, err
	}
	defer repo.remove()
	tags, err := repo.tags(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tags of %s: %w", repo.shown, err)
	}
	return tags, nil
}

// tags runs git ls-remote --tags on origin and reads its answer: a tag
// with a peeled line (NAME^{}) names that line's commit.
func (r *repo) tags(ctx context.Context) ([]Tag, error) {
	var out bytes.Buffer
	if err := r.runWatched(ctx, nil, &limitedBuffer{buf: &out, max: maxTagListing + 1}, "ls-remote", "--tags", "--end-of-options", "origin"); err != nil {
		return nil, err
	}
	if out.Len() > maxTagListing {
		return nil, fmt.Errorf("%w: git ls-remote printed more than %d bytes of tags; name a tag or a commit instead", source.ErrInvalid, maxTagListing)
	}
	var names []string
	commits := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, maxTagListing)
	for sc.Scan() {
		id, ref, ok := strings.Cut(sc.Text(), "\t")
		name, isTag := strings.CutPrefix(ref, "refs/tags/")
		if !ok || !isTag || !gitsyntax.IsCommit(id) || name == "" {
			return nil, fmt.Errorf("git ls-remote printed %.80q, which is not a tag line", sc.Text())
		}
		name, peeled := strings.CutSuffix(name, "^{}")
		if _, seen := commits[name]; !seen {
			names = append(names, name)
		}
		if _, seen := commits[name]; peeled || !seen {
			commits[name] = id
		}
		if len(names) > version.MaxTags {
			return nil, fmt.Errorf("%w: it has more than %d tags, more than a version range is picked from; name a tag or a commit instead", source.ErrInvalid, version.MaxTags)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read git ls-remote's tags: %w", err)
	}
	tags := make([]Tag, len(names))
	for i, n := range names {
		tags[i] = Tag{Name: n, Commit: commits[n]}
	}
	return tags, nil
}

// pickTag returns the highest tag of origin the range admits, with the
// commit it names.
func (r *repo) pickTag(ctx context.Context, rng string) (Tag, error) {
	vr, err := version.ParseRange(rng)
	if err != nil {
		return Tag{}, err
	}
	tags, err := r.tags(ctx)
	if err != nil {
		return Tag{}, err
	}
	return vr.PickTag(tags)
}

// kickWriter is w whose writes call kick.
type kickWriter struct {
	w    io.Writer
	kick func()
}

func (k kickWriter) Write(p []byte) (int, error) {
	k.kick()
	return k.w.Write(p)
}

var _ source.Versioned = (*Remote)(nil)

// Range returns the source's ref when it is a version range (rule 17),
// else "".
func (r *Remote) Range() string {
	if version.IsRange(r.src.Ref) {
		return r.src.Ref
	}
	return ""
}

// Version returns the tag the last Resolve picked for the range, or "".
func (r *Remote) Version() string {
	if r.pinned == nil {
		return ""
	}
	return r.pinned.Version
}

// Latest returns the repository's highest version tag
// (version.Latest) and the commit it names, from one git ls-remote.
func (r *Remote) Latest(ctx context.Context) (string, string, error) {
	c, err := New(r.opts...)
	if err != nil {
		return "", "", err
	}
	tags, err := c.Tags(ctx, r.src)
	if err != nil {
		return "", "", err
	}
	tag, err := version.LatestTag(tags)
	if err != nil {
		return "", "", fmt.Errorf("latest version of %s: %w", redact.URL(r.src.URL), err)
	}
	return tag.Name, tag.Commit, nil
}

// WithRange returns the source as git+URL#ref=RANGE[&path=PATH], the
// URL shown as messages show it (rule 13): without an http(s) user or a
// password.
func (r *Remote) WithRange(rng string) string {
	s := r.src
	s.Ref = rng
	return "git+" + redact.URL(s.URL) + strings.TrimPrefix(s.String(), "git+"+s.URL)
}
