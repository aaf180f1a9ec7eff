package github

import (
	"errors"
	"fmt"
	"time"
)

// Errors that classify a failure; test for them with [errors.Is].
var (
	// ErrInvalidSource reports text that is not a GitHub source, or a
	// client option that is not usable.
	ErrInvalidSource = errors.New("invalid GitHub source")
	// ErrNotFound reports a repository, ref, commit or folder that GitHub
	// does not have, or that it hides from the caller.
	ErrNotFound = errors.New("not found on GitHub")
	// ErrRateLimited reports an API rate limit; the error is a
	// [*RateLimitError].
	ErrRateLimited = errors.New("GitHub API rate limit exceeded")
	// ErrAuthRequired reports a request GitHub refused without a token, or
	// with the one given.
	ErrAuthRequired = errors.New("GitHub authentication required")
)

// RateLimitError reports that GitHub refused a request for a rate limit.
type RateLimitError struct {
	// Repo is OWNER/REPO.
	Repo string
	// Reset is when the limit resets, from X-RateLimit-Reset or
	// Retry-After; zero when GitHub did not say.
	Reset time.Time
	// TokenFrom names where the token sent came from ("GITHUB_TOKEN",
	// "GH_TOKEN" or "WithToken"); empty when none was sent.
	TokenFrom string
}

// Error says when the limit resets and, without a token, how to pass one.
func (e *RateLimitError) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Repo, ErrRateLimited)
	if !e.Reset.IsZero() {
		msg += fmt.Sprintf("; it resets at %s (in %s)", e.Reset.Format(time.RFC3339), max(time.Until(e.Reset).Round(time.Second), 0))
	}
	if e.TokenFrom == "" {
		msg += "; set GITHUB_TOKEN or GH_TOKEN to a GitHub token for a higher limit"
	} else {
		msg += "; wait for the reset, or use another token than the one in " + e.TokenFrom
	}
	return msg
}

// Unwrap returns [ErrRateLimited].
func (e *RateLimitError) Unwrap() error { return ErrRateLimited }
