package cache

import (
	"context"
	"io"
)

// Show is what a caller that watches a materialization is shown of the
// trees it writes: the bytes of every file of a tree the materialization
// stages, as they are written (an audit.Scanner reads them there, so
// the audit does not read the tree again), and the content digest of
// each tree it published whole after showing every file of it. A tree
// the cache already held, or that another materialization staged at the
// same time, is shown nothing, and Staged is not called for it: the
// caller reads that tree from the cache instead.
type Show struct {
	// Content returns the writer of the bytes of the file rel (as in
	// [File]) of the tree of the skill whose runtime name is name,
	// executable or not, of size bytes (-1 when not known), or nil; it is
	// closed once the file is written whole, and is called from several
	// goroutines at once.
	Content func(name, rel string, exec bool, size int64) io.WriteCloser
	// Staged is called once the tree of the skill name, whose every file
	// was shown to Content, was published (or an identical one found
	// published) with the content digest digest.
	Staged func(name, digest string)
}

type showKey struct{}

// WithShow returns a context under which a materialization of the skill
// cache shows s what it writes.
func WithShow(ctx context.Context, s *Show) context.Context {
	return context.WithValue(ctx, showKey{}, s)
}

// ShowOf returns the Show of ctx, or nil.
func ShowOf(ctx context.Context) *Show {
	s, _ := ctx.Value(showKey{}).(*Show)
	return s
}

// ContentOf returns s.Content for the skill name, or nil when s is nil
// or has none.
func (s *Show) ContentOf(name string) func(rel string, exec bool, size int64) io.WriteCloser {
	if s == nil || s.Content == nil {
		return nil
	}
	return func(rel string, exec bool, size int64) io.WriteCloser { return s.Content(name, rel, exec, size) }
}

// Done calls s.Staged for the skill name and digest, when s has one.
func (s *Show) Done(name, digest string) {
	if s != nil && s.Staged != nil {
		s.Staged(name, digest)
	}
}
