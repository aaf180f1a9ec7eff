package github

import (
	"context"
	"io"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/ctxio"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// Remote gives a GitHub source the shape of [source.Remote], which is
// how package install reads it. A bad option given to [NewRemote] fails
// each call, which makes its [Client] anew. One caller at a time may use
// a Remote.
type Remote struct {
	pinned *Pin // the pin of the last Resolve
	src    Source
	opts   []Option
}

var _ source.Remote = (*Remote)(nil)

// NewRemote returns src as a [source.Remote] whose clients are made with
// opts.
func NewRemote(src Source, opts ...Option) *Remote {
	return &Remote{src: src, opts: opts}
}

// Repository returns "github:" and OWNER/REPO in lower case (for an
// Enterprise host, HOST/OWNER/REPO).
func (r *Remote) Repository() string {
	return "github:" + strings.ToLower(r.src.repo())
}

// Resolve is [Client.Resolve] of the source: it returns the commit.
func (r *Remote) Resolve(ctx context.Context) (string, error) {
	c, err := New(r.options()...)
	if err != nil {
		return "", err
	}
	pin, err := c.Resolve(ctx, r.src)
	if err != nil {
		return "", err
	}
	r.pinned = &pin
	return pin.Commit, nil
}

// Open downloads the folder at commit as [Client.Opener] does (at the
// folder within, when given): an uncompressed tar with the repository's
// names, whose Subpath is the folder.
func (r *Remote) Open(ctx context.Context, commit, within string, progress io.Writer) (*source.Archive, error) {
	c, err := New(r.options()...)
	if err != nil {
		return nil, err
	}
	pin := Pin{Source: r.src, Commit: commit}
	if r.pinned != nil && r.pinned.Commit == commit {
		pin = *r.pinned // a web address's ref and path as Resolve split them
	}
	if within != "" {
		pin.Source.Path = within
	}
	rc, err := c.Opener(pin)(ctx)
	if err != nil {
		return nil, err
	}
	return &source.Archive{ReadCloser: ctxio.Tee(rc, progress), Format: skill.FormatTar, Subpath: pin.Source.Path}, nil
}

// options are the options of the Remote's clients: a source of an
// Enterprise host is read by a client of that host (rule 17), unless
// the caller's options say otherwise.
func (r *Remote) options() []Option {
	if r.src.Host == "" {
		return r.opts
	}
	return append([]Option{WithHost(r.src.Host)}, r.opts...)
}

// Close does nothing: a Remote keeps nothing open between calls.
func (r *Remote) Close() error { return nil }
