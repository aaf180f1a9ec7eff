package github

import (
	"fmt"
	"time"

	"github.com/agentadaptor/agentadaptor/source"
)

// RateLimitError reports that GitHub refused a request for a rate limit;
// it wraps [source.ErrRateLimited].
type RateLimitError struct {
	// Repo is OWNER/REPO; "" for a request about no one repository (a
	// search).
	Repo string
	// Reset is when the limit resets, from X-RateLimit-Reset or
	// Retry-After; zero when GitHub did not say.
	Reset time.Time
	// TokenFrom names where the token sent came from ("GITHUB_TOKEN",
	// "GH_TOKEN" or "WithToken"); empty when none was sent.
	TokenFrom string
	// Host is the GitHub Enterprise Server's host (rule 16), or "" for
	// github.com.
	Host string
}

// Error says when the limit resets and, without a token, how to pass one.
func (e *RateLimitError) Error() string {
	msg := fmt.Sprintf("GitHub repository %s: %v", e.Repo, source.ErrRateLimited)
	if e.Repo == "" {
		msg = fmt.Sprintf("GitHub API: %v", source.ErrRateLimited)
	}
	if !e.Reset.IsZero() {
		msg += fmt.Sprintf("; it resets at %s (in %s)", e.Reset.Format(time.RFC3339), max(time.Until(e.Reset).Round(time.Second), 0))
	}
	if e.TokenFrom == "" {
		msg += "; set " + (&Client{host: e.Host}).tokenVars() + " to a GitHub token for a higher limit"
	} else {
		msg += "; wait for the reset, or use another token than the one in " + e.TokenFrom
	}
	return msg
}

// Unwrap returns [source.ErrRateLimited].
func (e *RateLimitError) Unwrap() error { return source.ErrRateLimited }
