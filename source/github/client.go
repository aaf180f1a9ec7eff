package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// DefaultAPIURL is the public GitHub API address.
const DefaultAPIURL = "https://api.github.com"

// Default download limits (rule 11).
const (
	DefaultMaxDownloadSize = 1 << 30
	DefaultMaxExpandedSize = 4 << 30
)

// maxRedirects bounds the redirects followed for one request.
const maxRedirects = 10

// Client talks to one GitHub API. It is safe for concurrent use.
type Client struct {
	api         *url.URL
	host        string // an Enterprise host (WithHost), or ""
	http        *http.Client
	token       string
	tokenFrom   string
	maxDownload int64
	maxExpanded int64
}

type config struct {
	api         string
	apiSet      bool
	host        string
	http        *http.Client
	token       string
	tokenSet    bool
	maxDownload int64
	maxExpanded int64
}

// Option configures a [Client].
type Option func(*config)

// WithAPIURL sets the API address, for GitHub Enterprise
// (https://HOST/api/v3) or a stand-in. Default: $GITHUB_API_URL, else
// [DefaultAPIURL].
func WithAPIURL(api string) Option {
	return func(c *config) { c.api, c.apiSet = api, true }
}

// WithHTTPClient sets the HTTP client. Its redirect policy is not used:
// the Client follows redirects itself (rules 6 and 7). It imposes no
// timeout of its own: give the client one, or the context a deadline.
// Default: [http.DefaultClient]; nil also means the default.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) { c.http = client }
}

// WithToken sets the token sent to the API; "" sends none. Default:
// $GITHUB_TOKEN, else $GH_TOKEN.
func WithToken(token string) Option {
	return func(c *config) { c.token, c.tokenSet = token, true }
}

// WithMaxDownloadSize caps the compressed bytes of one archive download.
// Default [DefaultMaxDownloadSize] (1 GiB); values <= 0 mean the default.
func WithMaxDownloadSize(bytes int64) Option {
	return func(c *config) { c.maxDownload = bytes }
}

// WithMaxExpandedSize caps the bytes one archive download may expand to,
// entries outside the pinned folder included. Default
// [DefaultMaxExpandedSize] (4 GiB); values <= 0 mean the default.
func WithMaxExpandedSize(bytes int64) Option {
	return func(c *config) { c.maxExpanded = bytes }
}

// New returns a Client configured by opts and the environment (rules 4
// and 7). It fails with [source.ErrInvalid] when the API address is not
// usable.
func New(opts ...Option) (*Client, error) {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	host, err := checkHost(c.host)
	if err != nil {
		return nil, fmt.Errorf("GitHub host: %w: %w", source.ErrInvalid, err)
	}
	if !c.apiSet && host == "" {
		c.api = os.Getenv("GITHUB_API_URL")
	}
	if c.api == "" {
		c.api = DefaultAPIURL
		if host != "" {
			c.api = EnterpriseAPIURL(host)
		}
	}
	api, err := checkAPI(c.api)
	if err != nil {
		return nil, err
	}
	cl := &Client{api: api, host: host, http: c.http, maxDownload: c.maxDownload, maxExpanded: c.maxExpanded}
	if cl.http == nil {
		cl.http = http.DefaultClient
	}
	if cl.maxDownload <= 0 {
		cl.maxDownload = DefaultMaxDownloadSize
	}
	if cl.maxExpanded <= 0 {
		cl.maxExpanded = DefaultMaxExpandedSize
	}
	switch {
	case c.tokenSet:
		cl.token, cl.tokenFrom = c.token, "WithToken"
	case host != "":
		if gh, _ := checkHost(os.Getenv(envHost)); gh == host {
			cl.token, cl.tokenFrom = enterpriseToken() // rule 17: only to the host GH_HOST names
		}
	case os.Getenv("GITHUB_TOKEN") != "":
		cl.token, cl.tokenFrom = os.Getenv("GITHUB_TOKEN"), "GITHUB_TOKEN"
	case os.Getenv("GH_TOKEN") != "":
		cl.token, cl.tokenFrom = os.Getenv("GH_TOKEN"), "GH_TOKEN"
	}
	if cl.token == "" {
		cl.tokenFrom = ""
	}
	return cl, nil
}

// checkAPI applies rule 4.
func checkAPI(api string) (*url.URL, error) {
	u, err := url.Parse(api)
	if err != nil {
		return nil, fmt.Errorf("GitHub API address: %w: it is not a URL (check GITHUB_API_URL)", source.ErrInvalid)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Host == "" {
		return nil, fmt.Errorf("GitHub API address %s: %w: it must be a plain http(s) address without a user, query or fragment (check GITHUB_API_URL; pass a token with GITHUB_TOKEN)", u.Redacted(), source.ErrInvalid)
	}
	if !allowedScheme(u) {
		return nil, fmt.Errorf("GitHub API address %s: %w: it must use https (http only on a loopback address)", u.Redacted(), source.ErrInvalid)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// allowedScheme is https, or http to a loopback address.
func allowedScheme(u *url.URL) bool {
	switch u.Scheme {
	case "https":
		return true
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return true
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
	return false
}

// Resolve asks GitHub which commit src's ref (its default branch without
// one) names now, and returns the pin (rules 2 and 5).
func (c *Client) Resolve(ctx context.Context, src Source) (Pin, error) {
	if err := src.check(); err != nil {
		return Pin{}, invalid(src.String(), err)
	}
	if err := c.serves(src); err != nil {
		return Pin{}, err
	}
	if src.Ref != "" {
		if err := checkRef(src.Ref); err != nil {
			return Pin{}, invalid(src.String(), err)
		}
	}
	if version.IsRange(src.Ref) {
		return c.resolveRange(ctx, src)
	}
	for {
		commit, err := c.commit(ctx, src)
		if err == nil {
			src.tree = false
			return Pin{Source: src, Commit: commit}, nil
		}
		// A web address's ref may hold "/": move one more element of the
		// path into it while GitHub knows no such ref.
		if !src.tree || !errors.Is(err, errNoRef) || src.Path == "" {
			return Pin{}, err
		}
		first, rest, _ := strings.Cut(src.Path, "/")
		src.Ref += "/" + first
		src.Path = rest
	}
}

// errNoRef marks an unknown ref, so Resolve can retry a web address.
var errNoRef = fmt.Errorf("%w (no such ref)", source.ErrNotFound)

func (c *Client) commit(ctx context.Context, src Source) (string, error) {
	ref := src.Ref
	what := "ref " + ref
	if ref == "" {
		ref, what = "HEAD", "the default branch"
	}
	resp, err := c.get(ctx, c.repoURL(src, "commits", ref), "application/vnd.github.sha")
	if err != nil {
		return "", fmt.Errorf("resolve %s of %s: %w", what, src.repo(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnprocessableEntity || (resp.StatusCode == http.StatusNotFound && src.Ref != "" && c.repoExists(ctx, src)) {
		return "", fmt.Errorf("resolve %s of %s: %w: check the branch, tag or commit id", what, src.repo(), errNoRef)
	}
	if err := c.status(resp, src, what); err != nil {
		return "", err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 200))
	if err != nil {
		return "", fmt.Errorf("resolve %s of %s: %s", what, src.repo(), c.clean(err.Error()))
	}
	commit := strings.TrimSpace(string(body))
	if !isCommit(commit) {
		return "", fmt.Errorf("resolve %s of %s: the API answered something that is not a commit id (is %s a GitHub API address?)", what, src.repo(), c.api.Redacted())
	}
	return strings.ToLower(commit), nil
}

// repoExists tells a 404 for an unknown ref from one for an unknown
// repository, which GitHub answers alike on some servers.
func (c *Client) repoExists(ctx context.Context, src Source) bool {
	resp, err := c.get(ctx, c.repoURL(src), "application/vnd.github+json")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (s Source) repo() string {
	if s.Host != "" {
		return s.Host + "/" + s.Owner + "/" + s.Repo
	}
	return s.Owner + "/" + s.Repo
}

// repoURL is {api}/repos/{owner}/{repo}/{elems...}, each element escaped
// (a ref's "/" kept).
func (c *Client) repoURL(src Source, elems ...string) *url.URL {
	u := *c.api
	parts := []string{u.Path, "repos", url.PathEscape(src.Owner), url.PathEscape(src.Repo)}
	for _, e := range elems {
		for seg := range strings.SplitSeq(e, "/") {
			parts = append(parts, url.PathEscape(seg))
		}
	}
	u.RawPath = strings.Join(parts, "/")
	u.Path, _ = url.PathUnescape(u.RawPath)
	return &u
}

// get issues a GET, following redirects itself so that the token goes to
// the API's origin only (rules 6 and 7).
func (c *Client) get(ctx context.Context, u *url.URL, accept string) (*http.Response, error) {
	client := *c.http
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for range maxRedirects + 1 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, fmt.Errorf("GET %s: %s", shown(u), c.clean(err.Error()))
		}
		req.Header.Set("User-Agent", "agentadaptor")
		req.Header.Set("Accept", accept)
		if c.sameOrigin(u) {
			req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, fmt.Errorf("GET %s: %w", shown(u), ctxErr)
			}
			return nil, fmt.Errorf("GET %s: %s", shown(u), c.clean(err.Error()))
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return resp, nil
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		next, err := u.Parse(loc)
		if loc == "" || err != nil {
			return nil, fmt.Errorf("GET %s: a redirect without a usable Location", shown(u))
		}
		if !allowedScheme(next) {
			return nil, fmt.Errorf("GET %s: refused a redirect to %s: only https, or http on a loopback address, is followed", shown(u), shown(next))
		}
		u = next
	}
	return nil, fmt.Errorf("GET %s: more than %d redirects", shown(u), maxRedirects)
}

// sameOrigin reports whether u has the API's scheme, host and port.
func (c *Client) sameOrigin(u *url.URL) bool {
	return u.Scheme == c.api.Scheme && strings.EqualFold(u.Host, c.api.Host)
}

// shown is u without its user and query, which may hold credentials.
func shown(u *url.URL) string {
	v := *u
	v.User = nil
	v.RawQuery = ""
	v.Fragment = ""
	return v.String()
}

// clean removes the token from text that came from elsewhere.
func (c *Client) clean(text string) string {
	if c.token == "" {
		return text
	}
	return strings.ReplaceAll(text, c.token, "[token]")
}

// status turns an answer that is not 200 into an error (rule 13).
func (c *Client) status(resp *http.Response, src Source, what string) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	repo := src.repo()
	msg := c.message(resp)
	remaining := resp.Header.Get("X-RateLimit-Remaining")
	retry := resp.Header.Get("Retry-After")
	if (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests) && (remaining == "0" || retry != "") {
		e := &RateLimitError{Repo: repo, TokenFrom: c.tokenFrom, Host: c.host}
		if sec, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil && sec > 0 {
			e.Reset = time.Unix(sec, 0)
		} else if sec, err := strconv.Atoi(retry); err == nil && sec >= 0 {
			e.Reset = time.Now().Add(time.Duration(sec) * time.Second).Truncate(time.Second)
		}
		return e
	}
	token := "set " + c.tokenVars() + " to a token that can read it"
	if c.tokenFrom != "" {
		token = "check that the token in " + c.tokenFrom + " is valid and can read it"
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		if c.tokenFrom != "" {
			return fmt.Errorf("GitHub repository %s: %s: %w: the token in %s was refused%s", repo, what, source.ErrAuthRequired, c.tokenFrom, msg)
		}
		return fmt.Errorf("GitHub repository %s: %s: %w: %s%s", repo, what, source.ErrAuthRequired, token, msg)
	case http.StatusForbidden:
		return fmt.Errorf("GitHub repository %s: %s: %w: access denied; %s%s", repo, what, source.ErrAuthRequired, token, msg)
	case http.StatusNotFound:
		return fmt.Errorf("GitHub repository %s: %w (if it is private, %s)%s", repo, source.ErrNotFound, token, msg)
	case http.StatusConflict:
		return fmt.Errorf("GitHub repository %s: %w: it has no commits%s", repo, source.ErrNotFound, msg)
	}
	return fmt.Errorf("GitHub repository %s: %s: GitHub answered %s%s; try again later", repo, what, resp.Status, msg)
}

// message is GitHub's explanation of an error answer, quoted, cleaned of
// the token and cut short; empty when there is none.
func (c *Client) message(resp *http.Response) string {
	var body struct {
		Message string `json:"message"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if json.Unmarshal(data, &body) != nil || body.Message == "" {
		return ""
	}
	m := c.clean(body.Message)
	if len(m) > 200 {
		m = m[:200] + "..."
	}
	return fmt.Sprintf(" (GitHub: %q)", m)
}

// Opener returns an Opener of the pinned folder as an uncompressed tar,
// downloaded anew at each call (rules 6 to 11). It is what [Client.Skill]
// wraps; a caller that looks for skills under the pinned folder can write
// it to a file once and read the skills from that.
func (c *Client) Opener(p Pin) skill.Opener {
	return func(ctx context.Context) (io.ReadCloser, error) {
		src := p.Source
		if err := src.check(); err != nil {
			return nil, invalid(src.String(), err)
		}
		if err := c.serves(src); err != nil {
			return nil, err
		}
		if !isCommit(p.Commit) {
			return nil, invalid(src.String(), fmt.Errorf("the pin's commit %q is not a full hex commit id (resolve the source first)", p.Commit))
		}
		what := "download commit " + p.Commit
		resp, err := c.get(ctx, c.repoURL(src, "tarball", p.Commit), "application/vnd.github+json")
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", what, src.repo(), err)
		}
		if resp.StatusCode == http.StatusNotFound && c.repoExists(ctx, src) {
			resp.Body.Close()
			return nil, fmt.Errorf("%s of %s: %w: no such commit", what, src.repo(), source.ErrNotFound)
		}
		if err := c.status(resp, src, what); err != nil {
			resp.Body.Close()
			return nil, err
		}
		return newTarball(resp.Body, tarballConfig{
			dir:         src.Path,
			commit:      strings.ToLower(p.Commit),
			name:        p.String(),
			maxDownload: c.maxDownload,
			maxExpanded: c.maxExpanded,
			clean:       c.clean,
		}), nil
	}
}

// isCommit reports whether s is a full commit id, in either case (GitHub
// reads hex in any case).
func isCommit(s string) bool { return gitsyntax.IsCommit(strings.ToLower(s)) }
