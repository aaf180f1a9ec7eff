package git

import "errors"

// Errors that classify a failure; test for them with [errors.Is].
var (
	// ErrInvalidSource reports text that is not a git source, or a client
	// option that is not usable.
	ErrInvalidSource = errors.New("invalid git source")
	// ErrNotFound reports a repository, ref, commit or folder that does
	// not exist, or that the server hides from the caller.
	ErrNotFound = errors.New("not found in the git repository")
	// ErrAuthRequired reports a server that asked for credentials that
	// were missing or refused.
	ErrAuthRequired = errors.New("git authentication required")
	// ErrStalled reports a fetch that received nothing for the stall
	// timeout ([WithStallTimeout]); git was stopped.
	ErrStalled = errors.New("git fetch stalled")
)
