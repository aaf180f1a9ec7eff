// Package ctxio holds the module's helpers for readers: reads stopped
// when a context is done, and reads copied to a writer for progress.
package ctxio

import (
	"context"
	"io"
)

// Reader returns a reader of r that fails with ctx's error, before
// reading, once ctx is done: a long copy stops at the next read.
func Reader(ctx context.Context, r io.Reader) io.Reader { return reader{ctx, r} }

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Tee returns rc whose reads also write what they return to w, or rc
// itself when w is nil: how a remote source that streams its content
// gives progress. A failed write to w fails the read.
func Tee(rc io.ReadCloser, w io.Writer) io.ReadCloser {
	if w == nil {
		return rc
	}
	return &tee{Reader: io.TeeReader(rc, w), Closer: rc}
}

type tee struct {
	io.Reader
	io.Closer
}
