package oci

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// tagPageSize is how many tags a page of the listing asks for.
const tagPageSize = 1000

// errTooManyTags stops a listing past version.MaxTags.
var errTooManyTags = fmt.Errorf("%w: the repository has more than %d tags, more than a version range is picked from; name a tag or a digest instead", source.ErrInvalid, version.MaxTags)

// tags lists every tag of r's repository (its own tag, range or digest
// are not used) page by page as the registry gives them (the
// distribution API's tag list, at most [version.MaxTags] tags; each page
// up to 4 MiB; a page after an empty one is [source.ErrNotServer]), for a version range to pick from. [Tags] lists a few for
// a search.
func (c *config) tags(ctx context.Context, r Reference) ([]string, error) {
	repo := c.repository(r)
	repo.TagListPageSize = tagPageSize
	var tags []string
	err := repo.Tags(ctx, "", pages(func(page []string) error {
		tags = append(tags, page...)
		if len(tags) > version.MaxTags {
			return errTooManyTags
		}
		return nil
	}))
	if errors.Is(err, errTooManyTags) || errors.Is(err, errEmptyPages) {
		return nil, err
	}
	if err != nil {
		err = c.classify(ctx, r, err)
		var resp *errcode.ErrorResponse
		if !errors.Is(err, source.ErrNotFound) && errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound {
			err = fmt.Errorf("%w: %v (check the repository)", source.ErrNotFound, err)
		}
		return nil, fmt.Errorf("list the tags: %w", err)
	}
	return tags, nil
}

// resolveRange picks the highest tag of r's repository that r's range
// admits, and resolves it: the tag and its manifest digest.
func (c *config) resolveRange(ctx context.Context, r Reference) (string, string, error) {
	rng, err := version.ParseRange(r.Range)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", r, err)
	}
	tags, err := c.tags(ctx, r)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", r, err)
	}
	tag, err := rng.Pick(tags)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", r, err)
	}
	picked := r
	picked.Range, picked.Tag = "", tag
	dgst, err := c.resolveTag(ctx, picked)
	if err != nil {
		return "", "", fmt.Errorf("version range %s: %w", r.Range, err)
	}
	return tag, dgst, nil
}

var _ source.Versioned = (*Remote)(nil)

func (r *Remote) resolveRange(ctx context.Context) (string, error) {
	c, err := newConfig(r.opts)
	if err != nil {
		return "", err
	}
	tag, dgst, err := c.resolveRange(ctx, r.ref)
	if err != nil {
		return "", err
	}
	r.version = tag
	return dgst, nil
}

// Range returns the reference's version range, or "".
func (r *Remote) Range() string { return r.ref.Range }

// Version returns the tag the last Resolve picked for the range, or "".
func (r *Remote) Version() string { return r.version }

// Latest returns the repository's highest version tag
// (version.Latest) and the digest of the manifest it names.
func (r *Remote) Latest(ctx context.Context) (string, string, error) {
	c, err := newConfig(r.opts)
	if err != nil {
		return "", "", err
	}
	tags, err := c.tags(ctx, r.ref)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", r.ref, err)
	}
	tag, err := version.Latest(tags)
	if err != nil {
		return "", "", fmt.Errorf("%s: latest version: %w", r.ref, err)
	}
	latest := r.ref
	latest.Range, latest.Tag, latest.Digest = "", tag, ""
	dgst, err := c.resolveTag(ctx, latest)
	if err != nil {
		return "", "", err
	}
	return tag, dgst, nil
}

// WithRange returns the reference as oci://HOST/REPO:RANGE.
func (r *Remote) WithRange(rng string) string {
	ref := r.ref
	ref.Tag, ref.Digest, ref.Range = "", "", rng
	return ref.String()
}
