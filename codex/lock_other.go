//go:build !unix

package codex

import "context"

// firstRun does not serialize first runs where file locks are not used.
func firstRun(context.Context, string) (func(), error) { return func() {}, nil }

// nonBlock is not needed where FIFOs do not block an open.
const nonBlock = 0
