package git

import (
	"context"
	"io"
	"net/url"

	"github.com/agentadaptor/agentadaptor/internal/ctxio"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// Remote is src as a [source.Remote]: the shape in which package install
// uses every published source. Each call makes a [Client] with the
// options given to [NewRemote], so a missing git or a bad option fails
// the call, not NewRemote. Resolve fetches as [Client.Fetch] does and
// keeps the archive for the Open of the same commit, so resolving and
// reading a source is one fetch; Close releases it when Open did not
// use it. It is for one caller at a time.
type Remote struct {
	src    Source
	opts   []Option
	pinned *Pin          // what Resolve gave last
	opened io.ReadCloser // the pinned folder as Resolve fetched it, until Open takes it
}

var _ source.Remote = (*Remote)(nil)

// NewRemote returns src as a [source.Remote] whose clients are made with
// opts.
func NewRemote(src Source, opts ...Option) *Remote {
	return &Remote{src: src, opts: opts}
}

// Repository returns "git:" and the repository's URL without user
// information: the same repository whoever connects to it.
func (r *Remote) Repository() string {
	if u, err := url.Parse(r.src.URL); err == nil && u.User != nil {
		u.User = nil
		return "git:" + u.String()
	}
	return "git:" + r.src.URL
}

// Resolve is [Client.Fetch] of the source: it returns the commit and
// keeps the archive for Open.
func (r *Remote) Resolve(ctx context.Context) (string, error) {
	c, err := New(r.opts...)
	if err != nil {
		return "", err
	}
	pin, rc, err := c.Fetch(ctx, r.src)
	if err != nil {
		return "", err
	}
	r.Close()
	r.pinned, r.opened = &pin, rc
	return pin.Commit, nil
}

// LookUp returns the commit the ref names now from the remote's
// advertisement of its refs alone (one git ls-remote, rule 7), fetching
// nothing: it is for a caller that may hold the content at that commit
// already. The folder is not looked for; Open fetches the commit and
// looks for it.
func (r *Remote) LookUp(ctx context.Context) (string, error) {
	c, err := New(r.opts...)
	if err != nil {
		return "", err
	}
	pin, err := c.lookUp(ctx, r.src)
	if err != nil {
		return "", err
	}
	r.Close()
	r.pinned = &pin
	return pin.Commit, nil
}

// Open returns the folder at commit as an uncompressed tar (at the folder
// within, when given), whose Subpath is the folder: what Resolve fetched
// when it is of that commit and within is "", else a new fetch, as
// [Client.Opener] makes.
func (r *Remote) Open(ctx context.Context, commit, within string, progress io.Writer) (*source.Archive, error) {
	pin := Pin{Source: r.src, Commit: commit}
	if r.pinned != nil && r.pinned.Commit == commit {
		pin = *r.pinned
		if rc := r.opened; rc != nil && within == "" {
			r.opened = nil
			return archive(rc, pin.Source.Path, progress), nil
		}
	}
	r.Close()
	c, err := New(r.opts...)
	if err != nil {
		return nil, err
	}
	if within != "" {
		pin.Source.Path = within
	}
	rc, err := c.Opener(pin)(ctx)
	if err != nil {
		return nil, err
	}
	return archive(rc, pin.Source.Path, progress), nil
}

func archive(rc io.ReadCloser, subpath string, progress io.Writer) *source.Archive {
	return &source.Archive{ReadCloser: ctxio.Tee(rc, progress), Format: skill.FormatTar, Subpath: subpath}
}

// Close closes what Resolve fetched and Open did not take.
func (r *Remote) Close() error {
	if r.opened != nil {
		r.opened.Close()
		r.opened = nil
	}
	return nil
}
