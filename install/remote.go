package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// remote is a published source (rule 13): a moving reference that
// resolves to a pin, and the content at a pin, read as an archive.
type remote interface {
	// resolve returns the pin the source's reference names now.
	resolve(ctx context.Context) (string, error)
	// fetch writes the content at pin to the file dst as an archive
	// (zip, tar or tar.gz) and returns the folder inside it that the
	// source names ("" for its root). With within, only that folder of
	// the content is needed. The bytes received are also written to
	// count, for progress.
	fetch(ctx context.Context, pin, within string, dst, count io.Writer) (string, error)
	// identity names the repository, whatever the reference.
	identity() string
	// release frees what resolve kept for fetch and fetch did not use.
	release()
}

// parseRemote tells whether source is a published source, and reads it:
// oci://..., a GitHub address (https://github.com/...), or
// OWNER/REPO[/PATH][@REF] when it does not start like a path (".", "/",
// "~") and, as typed (not recorded in a lock file with a pin), no file
// or folder of that name exists.
func (in *Installer) parseRemote(source string) (remote, error) {
	return in.parseSource(source, true)
}

func (in *Installer) parseSource(source string, typed bool) (remote, error) {
	switch {
	case strings.HasPrefix(source, oci.Scheme):
		ref, err := oci.ParseReference(source)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		return &ociSource{in: in, ref: ref, opts: []oci.Option{oci.WithCache(in.cache)}}, nil
	case strings.HasPrefix(source, "git+"):
		src, err := git.Parse(source)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		return &gitSource{in: in, src: src}, nil
	case strings.HasPrefix(source, "https://github.com/"), strings.HasPrefix(source, "http://github.com/"):
		src, err := github.Parse(source)
		if err != nil {
			return nil, nil // another page of GitHub: a URL of an archive
		}
		return &githubSource{in: in, src: src}, nil
	case isURL(source), source == "", strings.ContainsAny(source[:1], ".~/\\"), filepath.IsAbs(source), filepath.VolumeName(source) != "":
		return nil, nil
	}
	if _, err := os.Lstat(source); typed && err == nil {
		return nil, nil
	}
	src, err := github.Parse(source)
	if err != nil {
		return nil, nil // not a GitHub source either: a local path that does not exist
	}
	return &githubSource{in: in, src: src}, nil
}

// githubSource is a folder of a GitHub repository at a ref.
type githubSource struct {
	in     *Installer
	src    github.Source
	pinned *github.Pin // set by resolve
}

func (g *githubSource) release() {}

func (g *githubSource) identity() string {
	return "github:" + strings.ToLower(g.src.Owner+"/"+g.src.Repo)
}

// client returns a client whose requests w watches (rule 10).
func (g *githubSource) client(w *watchdog) (*github.Client, error) {
	c, err := github.New(github.WithHTTPClient(w.client(g.in.http)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return c, nil
}

func (g *githubSource) resolve(ctx context.Context) (string, error) {
	ctx, w := startWatchdog(ctx, g.in.timeout)
	defer w.stop()
	c, err := g.client(w)
	if err != nil {
		return "", err
	}
	pin, err := c.Resolve(ctx, g.src)
	if err != nil {
		return "", w.classify(ctx, err, githubError)
	}
	g.pinned = &pin
	return pin.Commit, nil
}

func (g *githubSource) fetch(ctx context.Context, commit, within string, dst, count io.Writer) (string, error) {
	ctx, w := startWatchdog(ctx, g.in.timeout)
	defer w.stop()
	c, err := g.client(w)
	if err != nil {
		return "", err
	}
	pin := github.Pin{Source: g.src, Commit: commit}
	if g.pinned != nil && g.pinned.Commit == commit {
		pin = *g.pinned
	}
	if within != "" {
		pin.Source.Path = within
	}
	if err := copyOpened(ctx, c.Opener(pin), dst, count, githubError); err != nil {
		return "", w.classify(ctx, err, githubError)
	}
	return pin.Source.Path, nil
}

// githubError classifies an error of package github.
func githubError(err error) error {
	return sourceError(err, github.ErrInvalidSource, github.ErrNotFound)
}

// gitSource is a folder of a repository on any git host, read through
// the system git.
type gitSource struct {
	in     *Installer
	src    git.Source
	pinned *git.Pin      // set by resolve
	opened io.ReadCloser // the pinned folder as resolve fetched it, until fetch reads it
}

// identity is the repository's URL without user information: the same
// repository whoever connects to it.
func (g *gitSource) identity() string {
	if u, err := url.Parse(g.src.URL); err == nil && u.User != nil {
		u.User = nil
		return "git:" + u.String()
	}
	return "git:" + g.src.URL
}

// client returns a git client that stops a fetch that stalls for the
// download timeout (rule 10) or grows past the cache's archive size.
func (g *gitSource) client() (*git.Client, error) {
	c, err := git.New(git.WithStallTimeout(g.in.timeout), git.WithCache(g.in.cache))
	if err != nil {
		return nil, gitError(err)
	}
	return c, nil
}

// resolve resolves the ref and keeps what that one fetch brought for
// fetch, so that adding a git source fetches it once.
func (g *gitSource) resolve(ctx context.Context) (string, error) {
	c, err := g.client()
	if err != nil {
		return "", err
	}
	pin, rc, err := c.Fetch(ctx, g.src)
	if err != nil {
		return "", gitError(err)
	}
	g.release()
	g.pinned, g.opened = &pin, rc
	return pin.Commit, nil
}

func (g *gitSource) fetch(ctx context.Context, commit, within string, dst, count io.Writer) (string, error) {
	if rc := g.opened; rc != nil && g.pinned.Commit == commit && within == "" {
		g.opened = nil
		opened := func(context.Context) (io.ReadCloser, error) { return rc, nil }
		return g.pinned.Source.Path, copyOpened(ctx, opened, dst, count, gitError)
	}
	g.release()
	c, err := g.client()
	if err != nil {
		return "", err
	}
	pin := git.Pin{Source: g.src, Commit: commit}
	if g.pinned != nil && g.pinned.Commit == commit {
		pin = *g.pinned
	}
	if within != "" {
		pin.Source.Path = within
	}
	if err := copyOpened(ctx, c.Opener(pin), dst, count, gitError); err != nil {
		return "", err
	}
	return pin.Source.Path, nil
}

// release closes what resolve fetched and fetch has not read.
func (g *gitSource) release() {
	if g.opened != nil {
		g.opened.Close()
		g.opened = nil
	}
}

// gitError classifies an error of package git; a stalled fetch is
// ErrDownloadStalled, as a stalled download is.
func gitError(err error) error {
	if errors.Is(err, git.ErrStalled) {
		return fmt.Errorf("%w (%w): %w", ErrSourceUnavailable, ErrDownloadStalled, err)
	}
	return sourceError(err, git.ErrInvalidSource, git.ErrNotFound)
}

// ociSource is a skill in an OCI registry.
type ociSource struct {
	in   *Installer
	ref  oci.Reference
	opts []oci.Option
}

// options returns the source's options with an HTTP client whose
// requests w watches (rule 10): oras-go's retry client, as package oci
// uses by default.
func (o *ociSource) options(w *watchdog, more ...oci.Option) []oci.Option {
	opts := append(o.opts[:len(o.opts):len(o.opts)], oci.WithHTTPClient(w.client(retry.DefaultClient)))
	return append(opts, more...)
}

func (o *ociSource) release() {}

func (o *ociSource) identity() string {
	return "oci:" + o.ref.Host + "/" + o.ref.Repository
}

func (o *ociSource) resolve(ctx context.Context) (string, error) {
	ctx, w := startWatchdog(ctx, o.in.timeout)
	defer w.stop()
	d, err := oci.Resolve(ctx, o.ref.String(), o.options(w)...)
	if err != nil {
		return "", w.classify(ctx, err, ociError)
	}
	return d, nil
}

func (o *ociSource) fetch(ctx context.Context, digest, _ string, dst, count io.Writer) (string, error) {
	ref := o.ref
	ref.Digest = digest
	// The layer is downloaded into the OCI cache, then copied from there.
	wctx, w := startWatchdog(ctx, o.in.timeout)
	art, err := oci.Fetch(wctx, ref.String(), o.options(w, oci.WithProgress(count))...)
	if err != nil {
		err = w.classify(wctx, err, ociError)
	}
	w.stop()
	if err != nil {
		return "", err
	}
	// The download was counted as it came (WithProgress above).
	if err := copyOpened(ctx, art.Open, dst, io.Discard, ociError); err != nil {
		return "", err
	}
	return art.Subpath, nil
}

// ociError classifies an error of package oci.
func ociError(err error) error {
	return sourceError(err, oci.ErrNotFound, oci.ErrNoSkill, oci.ErrNotRegistry)
}

// sourceError classifies an error of a remote source: ErrInvalidSource
// when it is one of invalid or the archive's content is refused (the
// source itself is wrong, and trying again will not help), else
// ErrSourceUnavailable.
func sourceError(err error, invalid ...error) error {
	invalid = append(invalid, skill.ErrArchiveFormat, skill.ErrArchiveUnsafe, skill.ErrArchiveLimit)
	for _, target := range invalid {
		if errors.Is(err, target) {
			return fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
	}
	return fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
}

// copyOpened opens an archive and copies it to dst and count, with the
// errors classified by classify.
func copyOpened(ctx context.Context, open skill.Opener, dst, count io.Writer, classify func(error) error) error {
	rc, err := open(ctx)
	if err != nil {
		return classify(err)
	}
	defer rc.Close()
	if _, err := io.Copy(io.MultiWriter(dst, count), rc); err != nil {
		return classify(err)
	}
	return nil
}

// limitedWriter fails the write that would take what it has written over
// max bytes, so a download over the archive size limit stops there.
type limitedWriter struct {
	w      io.Writer
	n, max int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n+int64(len(p)) > l.max {
		return 0, skill.NewLimitError("MaxArchiveSize", l.max, "larger than %d bytes", l.max)
	}
	n, err := l.w.Write(p)
	l.n += int64(n)
	return n, err
}

// fromRemote reads a published source at pin (resolving its reference
// first when pin is ""): it fetches the content into a temporary file and
// finds its skills there, under the folder the source names, or, with
// within, takes the skills at the subpaths given (a sync, which knows
// where they are).
func (in *Installer) fromRemote(ctx context.Context, rs remote, rec, pin string, within []string) (string, []candidate, func(), error) {
	tmp, err := os.MkdirTemp("", "agentskills-remote-*")
	if err != nil {
		return "", nil, nil, err
	}
	defer os.RemoveAll(tmp)
	name := filepath.Join(tmp, "archive")
	pin, base, err := in.fetchRemote(ctx, rs, rec, pin, commonFolder(within), name)
	if err != nil {
		return "", nil, nil, err
	}
	cands, cleanup, err := in.fromArchive(ctx, name, rec, base, within)
	return pin, cands, cleanup, err
}

// fetchRemote resolves the reference of rs when pin is "", writes the
// content at the pin to a new file name, and returns the pin and the
// folder the source names in it. With WithProgress, resolving and
// fetching are one download on the progress line.
func (in *Installer) fetchRemote(ctx context.Context, rs remote, rec, pin, within, name string) (string, string, error) {
	count := io.Discard
	if in.progress != nil {
		p := startProgress(in.progress, rec, in.clock)
		defer p.done()
		count = p
	}
	defer rs.release()
	if pin == "" {
		var err error
		if pin, err = rs.resolve(ctx); err != nil {
			return "", "", fmt.Errorf("%s: %w", rec, err)
		}
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", err
	}
	base, err := rs.fetch(ctx, pin, within, &limitedWriter{w: f, max: in.cache.Limits().MaxArchiveSize}, count)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", fmt.Errorf("%s at %s: %w", rec, shortPin(pin), err)
	}
	return pin, base, nil
}

// commonFolder returns the deepest folder that holds every subpath.
func commonFolder(subpaths []string) string {
	if len(subpaths) == 0 {
		return ""
	}
	common := subpaths[0]
	for _, s := range subpaths[1:] {
		for common != "" && s != common && !strings.HasPrefix(s, common+"/") {
			common = path.Dir(common)
			if common == "." {
				common = ""
			}
		}
	}
	return common
}

// shortPin shortens a commit or digest for messages.
func shortPin(pin string) string {
	if _, hex, ok := strings.Cut(pin, ":"); ok && len(hex) > 12 {
		return pin[:len(pin)-len(hex)+12]
	}
	if len(pin) > 12 {
		return pin[:12]
	}
	return pin
}

// classify returns the error of a download watched by w that failed
// with err: ErrDownloadStalled when w ended it (rule 10), else err as
// classify says.
func (w *watchdog) classify(ctx context.Context, err error, classify func(error) error) error {
	if context.Cause(ctx) == w.stalled {
		return fmt.Errorf("%w: %w", ErrSourceUnavailable, w.stalled)
	}
	if errors.Is(err, ErrSourceUnavailable) || errors.Is(err, ErrInvalidSource) {
		return err // classified already
	}
	return classify(err)
}

// client returns a copy of base whose responses restart w's timer: when
// their headers arrive, and at every read of their body that returns
// bytes. Connecting and waiting for the headers count as receiving
// nothing.
func (w *watchdog) client(base *http.Client) *http.Client {
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = &watchedTransport{rt: rt, w: w}
	return &c
}

// watchedTransport is the transport of a watchdog's client.
type watchedTransport struct {
	rt http.RoundTripper
	w  *watchdog
}

func (t *watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	t.w.timer.Reset(t.w.d)
	resp.Body = &watchedBody{Reader: t.w.reader(resp.Body), Closer: resp.Body}
	return resp, nil
}

// watchedBody is a response body whose reads restart a watchdog's timer.
type watchedBody struct {
	io.Reader
	io.Closer
}
