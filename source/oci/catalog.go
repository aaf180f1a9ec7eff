package oci

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/agentadaptor/agentadaptor/source"
)

// maxListing caps the bytes of one page of a catalog or tag listing.
const maxListing = 1 << 20

// errEnough stops a listing once it has what was asked.
var errEnough = errors.New("enough")

// Repositories lists at most limit repositories of the registry at host
// (HOST or HOST:PORT), in the registry's order, from its catalog (GET
// /v2/_catalog, page by page, each page read up to 1 MiB; a page after
// an empty one is [source.ErrNotServer]). Many public
// registries (ghcr.io, Docker Hub) keep their catalog to themselves: a
// 404 is [source.ErrNotFound], saying to name the repositories instead,
// and a refusal [source.ErrAuthRequired].
func Repositories(ctx context.Context, host string, limit int, opts ...Option) ([]string, error) {
	r := Reference{Host: host}
	if err := (registry.Reference{Registry: host}).ValidateRegistry(); err != nil || !validPort(host) {
		return nil, fmt.Errorf("registry %q: %w: invalid host", host, source.ErrInvalid)
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	reg := &remote.Registry{RepositoryOptions: remote.RepositoryOptions(*c.repository(r))}
	reg.MaxMetadataBytes = maxListing
	var out []string
	err = reg.Repositories(ctx, "", pages(collect(&out, limit)))
	if errors.Is(err, errEmptyPages) {
		return nil, fmt.Errorf("registry %s: list its repositories: %w", host, err)
	}
	if err != nil && !errors.Is(err, errEnough) {
		if notFound(err) {
			return nil, fmt.Errorf("registry %s: list its repositories: %w: the registry keeps its catalog to itself (%v); name its repositories, as HOST/REPO", host, source.ErrNotFound, err)
		}
		return nil, fmt.Errorf("registry %s: list its repositories: %w", host, c.classify(ctx, r, err))
	}
	return out, nil
}

// notFound reports whether a listing's error is the registry's 404.
func notFound(err error) bool {
	var resp *errcode.ErrorResponse
	return errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound
}

// errEmptyPages stops a listing whose registry links an empty page to
// another: each page then adds a name, so a listing's limit bounds its
// requests.
var errEmptyPages = fmt.Errorf("%w: the registry's listing goes on after an empty page, as no registry's does; it is not read further", source.ErrNotServer)

// pages returns fn refusing a page that follows an empty one
// (errEmptyPages).
func pages(fn func([]string) error) func([]string) error {
	empty := false
	return func(names []string) error {
		if empty {
			return errEmptyPages
		}
		empty = len(names) == 0
		return fn(names)
	}
}

// collect is a listing's callback that appends to out until it holds
// limit names (none for a limit <= 0), then stops the listing.
func collect(out *[]string, limit int) func([]string) error {
	return func(names []string) error {
		*out = append(*out, names[:min(len(names), max(limit-len(*out), 0))]...)
		if len(*out) >= limit {
			return errEnough
		}
		return nil
	}
}

// Tags lists at most limit tags of repository on the registry at host,
// in the registry's order (GET /v2/REPO/tags/list, page by page, each
// page read up to 1 MiB; a page after an empty one is
// [source.ErrNotServer]).
func Tags(ctx context.Context, host, repository string, limit int, opts ...Option) ([]string, error) {
	r := Reference{Host: host, Repository: repository}
	ref := registry.Reference{Registry: host, Repository: repository}
	if err := ref.ValidateRegistry(); err != nil || !validPort(host) {
		return nil, fmt.Errorf("registry %q: %w: invalid host", host, source.ErrInvalid)
	}
	if err := ref.ValidateRepository(); err != nil {
		return nil, fmt.Errorf("%s/%s: %w: invalid repository: use lowercase letters, digits and . _ - separated by /", host, repository, source.ErrInvalid)
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	repo := c.repository(r)
	repo.MaxMetadataBytes = maxListing
	var out []string
	err = repo.Tags(ctx, "", pages(collect(&out, limit)))
	if errors.Is(err, errEmptyPages) {
		return nil, fmt.Errorf("%s/%s: list its tags: %w", host, repository, err)
	}
	if err != nil && !errors.Is(err, errEnough) {
		if notFound(err) {
			return nil, fmt.Errorf("%s/%s: list its tags: %w (%v): check the repository", host, repository, source.ErrNotFound, err)
		}
		return nil, fmt.Errorf("%s/%s: list its tags: %w", host, repository, c.classify(ctx, r, err))
	}
	return out, nil
}

// Description is what a manifest, or an index and its platform
// manifests, say of the skill they hold (What Fetch reads, rules 10 and
// 11).
type Description struct {
	// Ref is the reference described, with the digest its tag names now.
	Ref Reference
	// Name is the title annotation (else ToolHive's name annotation) when
	// it is a valid skill name, else the repository's last path element.
	Name string
	// Description and Version are the description and version
	// annotations (else ToolHive's), "" when absent.
	Description, Version string
	// Requires are the references its dev.toolhive.skills.requires
	// annotation lists, as [Artifact.Requires] has them.
	Requires []string
	// Skill tells that it is in a format of this package's (the
	// artifactType of the index or of a manifest, or a manifest's config
	// media type, is [ArtifactType], or their [AnnotationSkill]
	// annotation is); another tool's image may still hold a skill, as
	// [Fetch] says.
	Skill bool
}

// Describe reads the manifest or index that ref (oci://HOST/REPO:TAG or
// @DIGEST) names, and an index's platform manifests, each at most 4 MiB
// and verified against its digest, under the rules [Fetch] reads them by,
// and returns what their annotations say; the layer is not downloaded.
// The manifests are kept in the cache as [Fetch] keeps them.
func Describe(ctx context.Context, ref string, opts ...Option) (*Description, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return nil, err
	}
	f, err := newFetcher(r, opts)
	if err != nil {
		return nil, err
	}
	defer f.blobs.Close()
	c := f.cfg
	desc := ocispec.Descriptor{Size: -1}
	if r.Digest == "" {
		if desc, err = f.repository().Resolve(ctx, r.Tag); err != nil {
			return nil, fmt.Errorf("%s: resolve the tag: %w", ref, c.classify(ctx, r, err))
		}
	} else {
		desc.Digest = digest.Digest(r.Digest)
	}
	if err := checkDigest(desc.Digest); err != nil {
		return nil, fmt.Errorf("%s: %w: the registry answered with a digest it should not: %v", ref, source.ErrNoSkill, err)
	}
	img, err := f.top(ctx, desc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	r.Digest = desc.Digest.String()
	return &Description{
		Ref:         r,
		Name:        nameOf(img.annotations, "", r),
		Description: annotation(img.annotations, ocispec.AnnotationDescription, toolhiveDescription),
		Version:     annotation(img.annotations, ocispec.AnnotationVersion, toolhiveVersion),
		Requires:    img.requires,
		Skill:       img.ours,
	}, nil
}
