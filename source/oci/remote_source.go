package oci

import (
	"context"
	"io"

	"github.com/agentadaptor/agentadaptor/source"
)

// Remote is a reference as a [source.Remote]: the shape in which package
// install uses every published source. Its calls are [Resolve] and
// [Fetch] with the options given to [NewRemote]. It is for one caller at
// a time.
type Remote struct {
	ref     Reference
	opts    []Option
	version string // the tag the last Resolve picked for the range
}

var _ source.Remote = (*Remote)(nil)

// NewRemote returns ref as a [source.Remote] whose calls use opts.
func NewRemote(ref Reference, opts ...Option) *Remote {
	return &Remote{ref: ref, opts: opts}
}

// Repository returns "oci:", the host and the repository.
func (r *Remote) Repository() string {
	return "oci:" + r.ref.Host + "/" + r.ref.Repository
}

// Resolve is [Resolve] of the reference: it returns the manifest digest,
// without the network when the reference holds one.
func (r *Remote) Resolve(ctx context.Context) (string, error) {
	if r.ref.Range != "" && r.ref.Digest == "" {
		return r.resolveRange(ctx)
	}
	return Resolve(ctx, r.ref.String(), r.opts...)
}

// Open fetches the reference pinned to digest as [Fetch] does, giving
// progress the layer's bytes as they arrive from the registry, and
// returns the layer ([Artifact.Open]): a tar.gz (or tar) archive whose Subpath is
// the skill's folder. A layer holds one skill, so within is not needed.
func (r *Remote) Open(ctx context.Context, digest, _ string, progress io.Writer) (*source.Archive, error) {
	ref := r.ref
	ref.Digest = digest
	a, err := Fetch(ctx, ref.String(), append(r.opts[:len(r.opts):len(r.opts)], WithProgress(progress))...)
	if err != nil {
		return nil, err
	}
	rc, err := a.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &source.Archive{ReadCloser: rc, Format: a.archiveFormat(), Subpath: a.Subpath}, nil
}

// Close does nothing: a Remote keeps nothing open between calls.
func (r *Remote) Close() error { return nil }

// Requires returns the requirements the manifest at digest lists in its
// dev.toolhive.skills.requires annotation (rule 11), as written, read
// with [Describe] and the options given to [NewRemote]: the manifest, not
// the layer.
func (r *Remote) Requires(ctx context.Context, digest string) ([]string, error) {
	ref := r.ref
	ref.Digest = digest
	d, err := Describe(ctx, ref.String(), r.opts...)
	if err != nil {
		return nil, err
	}
	return d.Requires, nil
}
