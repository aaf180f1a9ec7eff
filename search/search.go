package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// Defaults and limits of a search (rules 6, 7, 9 and 10).
const (
	DefaultLimit   = 20
	MaxLimit       = 1000
	DefaultTimeout = 20 * time.Second
	// MaxQuery is the longest query, in bytes.
	MaxQuery = 256
	// maxDescription is where a description is cut, in characters.
	maxDescription = 1024
	// parallel is how many backends run at once.
	parallel = 4
)

// ErrInvalidQuery reports a query that is empty, too long or holds a
// control character (rule 10).
var ErrInvalidQuery = errors.New("invalid query")

// Result is one skill, or one repository of skills, found.
type Result struct {
	// Name is the skill's name (a repository's, for a repository).
	Name string `json:"name"`
	// Description is what it says it does; "" when it says nothing.
	Description string `json:"description,omitempty"`
	// Source is where it is published, in the syntax agentskills add
	// takes: OWNER/REPO[/PATH], oci://HOST/REPO:TAG, a web index address.
	Source string `json:"source"`
	// Install is the command that installs it.
	Install string `json:"install"`
	// From names the backend that found it, as [Backend.Name] does.
	From string `json:"from"`
}

// Backend searches one place (rule 1).
type Backend interface {
	// Name names the place in warnings: "GitHub", "registry HOST",
	// "index URL".
	Name() string
	// Search returns at most limit entries that match query, in the
	// backend's order. When it fails part way it returns what it found
	// with the error.
	Search(ctx context.Context, query string, limit int) ([]Result, error)
}

// BackendError reports a backend that failed; the search went on without
// it (rule 7).
type BackendError struct {
	// Backend is the backend's [Backend.Name].
	Backend string
	// Err is why it failed.
	Err error
}

// Error names the backend and says why it failed.
func (e *BackendError) Error() string {
	msg := e.Err.Error()
	if strings.HasPrefix(msg, e.Backend+":") || strings.HasPrefix(msg, e.Backend+" ") {
		return msg // the error names it already
	}
	return e.Backend + ": " + msg
}

// Unwrap returns Err.
func (e *BackendError) Unwrap() error { return e.Err }

// Results is the answer of [Search].
type Results struct {
	// Results are the entries found, best first (rules 4 to 6).
	Results []Result
	// Warnings are the backends that failed, in the order given.
	Warnings []*BackendError
}

type config struct {
	limit   int
	timeout time.Duration
}

// Option configures [Search].
type Option func(*config)

// WithLimit sets how many entries are returned at most, and asked of each
// backend. Default [DefaultLimit]; values <= 0 mean the default, values
// over [MaxLimit] mean MaxLimit.
func WithLimit(n int) Option {
	return func(c *config) { c.limit = n }
}

// WithTimeout sets how long each backend may take. Default
// [DefaultTimeout]; values <= 0 mean the default.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// Search asks every backend for query, at most 4 at a time, and returns
// their entries ranked and deduplicated, with a warning for each backend
// that failed (rules 4 to 7). It fails only for a query that is not one
// ([ErrInvalidQuery]) or when ctx ends.
func Search(ctx context.Context, query string, backends []Backend, opts ...Option) (*Results, error) {
	c := config{}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.limit <= 0 {
		c.limit = DefaultLimit
	}
	c.limit = min(c.limit, MaxLimit)
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if err := CheckQuery(query); err != nil {
		return nil, err
	}
	found := make([][]Result, len(backends))
	failed := make([]error, len(backends))
	g := new(errgroup.Group)
	g.SetLimit(parallel)
	for i, b := range backends {
		g.Go(func() error {
			bctx, cancel := context.WithTimeout(ctx, c.timeout)
			defer cancel()
			found[i], failed[i] = b.Search(bctx, query, c.limit)
			if failed[i] != nil && bctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
				failed[i] = fmt.Errorf("%w (no answer within %s: try again, or leave it out)", failed[i], c.timeout)
			}
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Results{Results: rank(query, found, c.limit)}
	for i, err := range failed {
		if err != nil {
			res.Warnings = append(res.Warnings, &BackendError{Backend: backends[i].Name(), Err: err})
		}
	}
	return res, nil
}

// CheckQuery applies rule 10 to query.
func CheckQuery(query string) error {
	switch {
	case strings.TrimSpace(query) == "":
		return fmt.Errorf("%w: the query is empty: say what to look for", ErrInvalidQuery)
	case len(query) > MaxQuery:
		return fmt.Errorf("%w: the query has %d bytes; the most is %d", ErrInvalidQuery, len(query), MaxQuery)
	case !utf8.ValidString(query):
		return fmt.Errorf("%w: the query is not UTF-8 text", ErrInvalidQuery)
	}
	for _, r := range query {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%w: the query holds the control character %U: remove it", ErrInvalidQuery, r)
		}
	}
	return nil
}

// rank orders the entries found by each backend (rules 4 to 6).
func rank(query string, found [][]Result, limit int) []Result {
	type ranked struct {
		Result
		tier, order int
	}
	var all []ranked
	for _, rs := range found {
		for _, r := range rs {
			if r.Source == "" || r.Name == "" {
				continue
			}
			r.Description = cut(r.Description)
			all = append(all, ranked{r, tier(query, r), len(all)})
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(a.order, b.order))
	})
	seen := map[string]bool{}
	var out []Result
	for _, r := range all {
		key := sourceKey(r.Install)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, r.Result)
		if len(out) == limit {
			break
		}
	}
	return out
}

// tier is where rule 4 places r: 0 the best.
func tier(query string, r Result) int {
	q := strings.ToLower(strings.TrimSpace(query))
	name := strings.ToLower(r.Name)
	switch {
	case name == q:
		return 0
	case strings.Contains(name, q):
		return 1
	case holdsWords(name, q):
		return 2
	case strings.Contains(strings.ToLower(r.Description), q):
		return 3
	}
	return 4
}

// Matches reports whether every word of query is in name, description
// or src, ignoring case (rule 3): how [Registry] and [Index] match.
func Matches(query, name, description, src string) bool {
	return holdsWords(strings.ToLower(name+"\n"+description+"\n"+src), strings.ToLower(query))
}

// holdsWords reports whether text holds every word of q.
func holdsWords(text, q string) bool {
	words := strings.Fields(q)
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return len(words) > 0
}

// sourceKey is what two entries of one skill share (rule 5): the
// command that installs it, ignoring case for a GitHub source.
func sourceKey(install string) string {
	if strings.Contains(install, "://") {
		return install
	}
	return strings.ToLower(install) // OWNER/REPO[/PATH]: GitHub ignores case
}

// cut shortens a description to maxDescription characters (rule 9).
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxDescription {
		return s
	}
	return string([]rune(s)[:maxDescription-1]) + "…"
}

// installCommand is the command that installs src, with args after it,
// each quoted for a POSIX shell when it needs to be.
func installCommand(src string, args ...string) string {
	parts := []string{"agentskills", "add", quote(src)}
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

// quote returns s as one word of a POSIX shell: as it is when it holds
// only characters no shell treats specially, else in single quotes.
func quote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+=,%^", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
