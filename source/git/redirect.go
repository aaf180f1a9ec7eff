package git

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
)

// maxRedirects is how many redirects one call follows (rule 6).
const maxRedirects = 5

// redirectError matches git's error for an answer that is a redirect,
// which it does not follow (http.followRedirects=false).
var redirectError = regexp.MustCompile(`returned error: 30[12378]\b`)

// redirected reports whether git's error output says the server answered
// with a redirect.
func redirected(stderr string) bool {
	return redirectError.MatchString(stderr)
}

// follow reads the redirect the server answers the first request of git's
// smart HTTP protocol with (at the repository's URL as git rewrites it
// with url.<base>.insteadOf), and, when it leads to another repository
// address on the same host (scheme, host and port) that the client's
// WithRedirectCheck accepts, makes that the repository's URL for the runs
// of git that follow (rule 6). The request carries the headers of
// WithHeader, as git's would, to the host they were given for; the
// redirect itself is not followed.
func (r *repo) follow(ctx context.Context) error {
	if r.hops >= maxRedirects {
		return fmt.Errorf("%s: %w: more than %d redirects", r.shown, source.ErrRedirected, maxRedirects)
	}
	// git asked the URL after the user's url.<base>.insteadOf rewrites,
	// which ls-remote --get-url applies without asking the remote.
	at := r.url
	if out, err := r.run(ctx, "ls-remote", "--get-url", "origin"); err == nil {
		if u, err := url.Parse(out); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			at = u
		}
	}
	probe := *at
	probe.Path = strings.TrimSuffix(probe.Path, "/") + "/info/refs"
	probe.RawPath, probe.RawQuery, probe.Fragment = "", "service=git-upload-pack", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe.String(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w: the server redirects, and the redirect cannot be read: %s", r.shown, source.ErrRedirected, r.clean(err.Error()))
	}
	for _, h := range r.c.headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	req.Header.Set("Git-Protocol", "version=2")
	client := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       r.c.stall,
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w: the server redirects, and the redirect cannot be read: %s", r.shown, source.ErrRedirected, r.clean(err.Error()))
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		return fmt.Errorf("%s: %w: the server redirected git, but answers %s without a redirect now (try again)", r.shown, source.ErrRedirected, resp.Status)
	}
	to, err := probe.Parse(loc)
	if err != nil {
		return fmt.Errorf("%s: %w: the server redirects to %q, which is not a URL", r.shown, source.ErrRedirected, redact.URL(loc))
	}
	to.User = nil
	if !sameHost(at, to) {
		return fmt.Errorf("%s: %w: the server redirects to %s, another host; a git source follows a redirect only within its host (write the repository's address there as the source, if you trust it)",
			r.shown, source.ErrRedirected, redact.URL(to.String()))
	}
	base, ok := strings.CutSuffix(to.Path, "/info/refs")
	if !ok || to.RawQuery != "service=git-upload-pack" || base == "" {
		return fmt.Errorf("%s: %w: the server redirects to %s, which is not a repository's address", r.shown, source.ErrRedirected, redact.URL(to.String()))
	}
	to.Path, to.RawPath, to.RawQuery, to.Fragment = base, "", "", ""
	if r.c.redirect != nil {
		if err := r.c.redirect(ctx, to.String()); err != nil {
			return fmt.Errorf("%s: %w: the server redirects to %s: %w", r.shown, source.ErrRedirected, to, err)
		}
	}
	to.User = at.User // the same host: the same account
	r.url, r.env, r.hops = to, r.c.environ(r.dir, to.String()), r.hops+1
	return nil
}

// sameHost reports whether a and b have one scheme, host and port, the
// scheme's default port written or not.
func sameHost(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return strings.TrimLeft(p, "0")
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}
