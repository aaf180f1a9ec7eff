package github

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// tagsPerPage is the page size of a tag listing, GitHub's largest.
const tagsPerPage = 100

// maxTagsPage bounds one page of a tag listing's answer.
const maxTagsPage = 4 << 20

// Tag is a tag of a repository and the commit it names.
type Tag = version.Tag

// Tags lists src's tags through GET {api}/repos/{owner}/{repo}/tags,
// page by page (100 a page), with the same token, HTTP client and
// timeouts as every other call (rule 15); a source of another host
// than the client's is refused as [Client.Resolve] refuses it (rule 16).
// A repository with more than
// [version.MaxTags] tags fails with [source.ErrInvalid]; an answer that
// is not a tag listing fails too.
func (c *Client) Tags(ctx context.Context, src Source) ([]Tag, error) {
	if err := src.check(); err != nil {
		return nil, invalid(src.String(), err)
	}
	if err := c.serves(src); err != nil {
		return nil, err
	}
	var tags []Tag
	for page := 1; ; page++ {
		got, err := c.tagsPage(ctx, src, page)
		if err != nil {
			return nil, err
		}
		tags = append(tags, got...)
		if len(tags) > version.MaxTags {
			return nil, fmt.Errorf("GitHub repository %s: %w: it has more than %d tags, more than a version range is picked from; name a tag or a commit instead", src.repo(), source.ErrInvalid, version.MaxTags)
		}
		if len(got) < tagsPerPage {
			return tags, nil
		}
	}
}

func (c *Client) tagsPage(ctx context.Context, src Source, page int) ([]Tag, error) {
	what := "list tags"
	u := c.repoURL(src, "tags")
	u.RawQuery = "per_page=" + strconv.Itoa(tagsPerPage) + "&page=" + strconv.Itoa(page)
	resp, err := c.get(ctx, u, "application/vnd.github+json")
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", what, src.repo(), err)
	}
	defer resp.Body.Close()
	if err := c.status(resp, src, what); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTagsPage+1))
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %s", what, src.repo(), c.clean(err.Error()))
	}
	if len(data) > maxTagsPage {
		return nil, fmt.Errorf("%s of %s: a page of the answer is larger than %d bytes (is %s a GitHub API address?)", what, src.repo(), maxTagsPage, c.api.Redacted())
	}
	var body []struct {
		Name   string `json:"name"`
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, fmt.Errorf("%s of %s: the API answered something that is not a tag listing (is %s a GitHub API address?)", what, src.repo(), c.api.Redacted())
	}
	tags := make([]Tag, 0, len(body))
	for _, t := range body {
		if !isCommit(t.Commit.SHA) || t.Name == "" || gitsyntax.HasControl(t.Name) {
			return nil, fmt.Errorf("%s of %s: the API answered a tag %.80q whose commit %.80q is not a commit id (is %s a GitHub API address?)", what, src.repo(), t.Name, t.Commit.SHA, c.api.Redacted())
		}
		tags = append(tags, Tag{Name: t.Name, Commit: strings.ToLower(t.Commit.SHA)})
	}
	return tags, nil
}

// resolveRange resolves a source whose ref is a version range (rule 15):
// one listing of the tags, the highest the range admits.
func (c *Client) resolveRange(ctx context.Context, src Source) (Pin, error) {
	r, err := version.ParseRange(src.Ref)
	if err != nil {
		return Pin{}, fmt.Errorf("GitHub source %s: %w", src, err)
	}
	tags, err := c.Tags(ctx, src)
	if err != nil {
		return Pin{}, err
	}
	tag, err := r.PickTag(tags)
	if err != nil {
		return Pin{}, fmt.Errorf("GitHub repository %s: %w", src.repo(), err)
	}
	src.tree = false
	return Pin{Source: src, Commit: tag.Commit, Version: tag.Name}, nil
}

var _ source.Versioned = (*Remote)(nil)

// Range returns the source's ref when it is a version range (rule 15),
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

// Latest returns the repository's highest version tag and its commit
// ([version.Latest]), from one listing of its tags.
func (r *Remote) Latest(ctx context.Context) (string, string, error) {
	c, err := New(r.options()...)
	if err != nil {
		return "", "", err
	}
	tags, err := c.Tags(ctx, r.src)
	if err != nil {
		return "", "", err
	}
	tag, err := version.LatestTag(tags)
	if err != nil {
		return "", "", fmt.Errorf("GitHub repository %s: latest version: %w", r.src.repo(), err)
	}
	return tag.Name, tag.Commit, nil
}

// WithRange returns the source as OWNER/REPO[/PATH]@RANGE, the form
// [Parse] reads whatever form the source was written in (a web address
// with a range in it would not be one GitHub shows).
func (r *Remote) WithRange(rng string) string {
	s := r.src
	s.Ref, s.tree = rng, false
	return s.String()
}
