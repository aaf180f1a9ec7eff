package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/version"
	"github.com/agentadaptor/agentadaptor/trust"
)

// parseRemote tells whether text is a published source, and reads it:
// source.Parse tells the kind (package source, rules 16 to 21), and the
// kind's package reads the rest. A bare OWNER/REPO is a GitHub source
// only when, as typed (not recorded in a lock file with a pin), no file
// or folder of that name exists; as typed, one whose OWNER exists here as
// a file or folder is refused as a mistyped path (typoError). Every kind
// is then used through source.Remote alone; a local path or a URL is nil.
func (in *Installer) parseRemote(text string) (source.Remote, error) {
	return in.parseSource(text, true)
}

func (in *Installer) parseSource(text string, typed bool) (source.Remote, error) {
	spec, err := source.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	switch spec.Kind {
	case source.OCI:
		ref, err := oci.ParseReference(spec.Text)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		// oras-go's retry client, as package oci uses by default.
		return oci.NewRemote(ref, oci.WithCache(in.cache), oci.WithHTTPClient(watchedClient(retry.DefaultClient))), nil
	case source.Git:
		src, err := parseGit(spec)
		if err != nil {
			return nil, err
		}
		// git stops a fetch that stalls for the download timeout (rule
		// 10) or grows past the cache's archive size.
		return git.NewRemote(src, git.WithStallTimeout(in.timeout), git.WithCache(in.cache), in.gitRedirects(src),
			// The installer sets neither git's program nor its headers:
			// its messages advise neither.
			git.WithSettingNames(map[string]string{git.SettingStallTimeout: in.setting(SettingDownloadTimeout), git.SettingGit: "", git.SettingHeader: ""})), nil
	case source.GitHub:
		src, ok, err := parseGitHub(text, spec, typed)
		if err != nil || !ok {
			return nil, err
		}
		return github.NewRemote(src, github.WithHTTPClient(watchedClient(in.http))), nil
	}
	return nil, nil
}

// parseGitHub reads text, a GitHub source as source.Parse read it
// (spec), with github.Parse; ok is false when it is a local path: a bare
// OWNER/REPO typed where a file or folder of that name exists, or that
// github.Parse does not take. As typed, a bare OWNER/REPO whose OWNER
// exists here is refused as a mistyped path (typoError).
func parseGitHub(text string, spec source.Spec, typed bool) (_ github.Source, ok bool, _ error) {
	if spec.Bare && typed {
		if _, err := os.Lstat(text); err == nil {
			return github.Source{}, false, nil // a local path of that name
		}
	}
	src, err := github.Parse(spec.Text)
	switch {
	case err != nil && spec.Bare:
		if _, ref, ok := strings.Cut(text, "@"); ok && version.IsRange(ref) {
			return github.Source{}, false, fmt.Errorf("%w: %w", ErrInvalidSource, err) // OWNER/REPO@RANGE with a range that is not one
		}
		return github.Source{}, false, nil // not a GitHub source either: a local path that does not exist
	case err != nil:
		return github.Source{}, false, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	if spec.Bare && typed {
		owner, _, _ := strings.Cut(text, "/")
		if _, err := os.Lstat(owner); err == nil {
			return github.Source{}, false, typoError(text)
		}
	}
	return src, true, nil
}

// parseGit reads a git source, spec of kind source.Git: a git+URL, or a
// git host's web address.
func parseGit(spec source.Spec) (git.Source, error) {
	parse := git.ParseWeb
	if strings.HasPrefix(spec.Text, "git+") {
		parse = git.Parse
	}
	src, err := parse(spec.Text)
	if err != nil {
		return git.Source{}, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return src, nil
}

// sourceError classifies an error of a published source (rule 8):
// ErrInvalidSource when the source itself is wrong and trying again will
// not help (it is not a source, what it names does not exist, holds no
// skill, or its archive is refused), else ErrSourceUnavailable (a stall
// among them).
func sourceError(err error) error {
	if errors.Is(err, ErrSourceUnavailable) || errors.Is(err, ErrInvalidSource) || errors.Is(err, trust.ErrRefused) || errors.Is(err, source.ErrIntegrity) {
		return err // classified already
	}
	if errors.Is(err, source.ErrRedirected) {
		return refusedBy("", "", err) // Trust rule 1
	}
	if !errors.Is(err, source.ErrStalled) {
		for _, target := range []error{source.ErrInvalid, source.ErrNotFound, source.ErrNoSkill, source.ErrNotServer,
			skill.ErrArchiveFormat, skill.ErrArchiveUnsafe, skill.ErrArchiveLimit} {
			if errors.Is(err, target) {
				return fmt.Errorf("%w: %w", ErrInvalidSource, err)
			}
		}
	}
	return fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
}

// copyRemote copies the content of rs at pin to dst, and returns the
// folder in it that the source names. Its errors are classified.
func copyRemote(ctx context.Context, w *remoteWatchdog, rs source.Remote, pin, within string, dst, progress io.Writer) (string, error) {
	a, err := rs.Open(ctx, pin, within, progress)
	if err != nil {
		return "", w.classify(ctx, err)
	}
	defer a.Close()
	var r io.Reader = a
	if w.armed.Load() {
		r = w.reader(a) // the rest of a download from the network
	}
	if _, err := io.Copy(dst, r); err != nil {
		return "", w.classify(ctx, err)
	}
	return a.Subpath, nil
}

// limitedWriter fails the write that would take what it has written over
// max bytes, so a download over the archive size limit stops there.
type limitedWriter struct {
	w      io.Writer
	n, max int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n+int64(len(p)) > l.max {
		return 0, skillcache.NewLimitError("MaxArchiveSize", l.max, "larger than %d bytes", l.max)
	}
	n, err := l.w.Write(p)
	l.n += int64(n)
	return n, err
}

// fromRemote reads a published source at pin (resolving its reference
// first when pin is ""): it fetches the content into a temporary file and
// finds its skills there, under the folder the source names, or, with
// within, takes the skills at the subpaths given (a sync, which knows
// where they are). With rc (a re-add, readd.go), the reference is
// resolved with rc.resolve and, once the pin is verified, the skills
// rc.at gives for it are taken instead of downloading.
func (in *Installer) fromRemote(ctx context.Context, rs source.Remote, rec, pin string, within []string, st *sourceTrust, rc *recall) (string, []candidate, func(), error) {
	tmp, err := os.MkdirTemp("", "agentskills-remote-*")
	if err != nil {
		return "", nil, nil, err
	}
	defer os.RemoveAll(tmp)
	name := filepath.Join(tmp, "archive")
	pin, base, err := in.fetchRemote(ctx, rs, rec, pin, commonFolder(within), name, st, rc)
	if err != nil {
		return "", nil, nil, err
	}
	if rc != nil && rc.skills != nil {
		return pin, withVersion(rc.skills, rs), func() {}, nil
	}
	cands, cleanup, err := in.fromArchive(ctx, name, rec, base, within, true)
	return pin, withVersion(cands, rs), cleanup, err
}

// withVersion marks cands with the tag the version range of rs picked
// when it was resolved (the lock file's "version"), if it has one.
func withVersion(cands []candidate, rs source.Remote) []candidate {
	if v, ok := rs.(source.Versioned); ok && v.Version() != "" {
		for i := range cands {
			cands[i].version = v.Version()
		}
	}
	return cands
}

// fetchRemote resolves the reference of rs when pin is "", writes the
// content at the pin to a new file name, and returns the pin and the
// folder the source names in it. With WithProgress, resolving and
// fetching are one download on the progress line. One watchdog watches
// both (rule 10). Between the two, st verifies the pin (# Trust). With
// rc, the reference is resolved with rc.resolve, and nothing is
// downloaded when rc.at takes the skills from the skill cache (base is
// then "").
func (in *Installer) fetchRemote(ctx context.Context, rs source.Remote, rec, pin, within, name string, st *sourceTrust, rc *recall) (string, string, error) {
	var progress io.Writer
	if in.progress != nil {
		p := in.startDownload(ctx, rec)
		defer p.done()
		progress = p
	}
	defer rs.Close()
	ctx, w := startRemoteWatchdog(ctx, in.timeout)
	defer w.stop()
	if pin == "" {
		resolve := rs.Resolve
		if rc != nil {
			resolve = rc.resolve
		}
		var err error
		if pin, err = resolve(ctx); err != nil {
			return "", "", fmt.Errorf("%s: %w", rec, w.classify(ctx, err))
		}
	}
	if err := st.verifyPin(ctx, rs, pin); err != nil { // before the content is downloaded (# Trust)
		return "", "", err
	}
	if rc != nil && rc.at(pin) {
		return pin, "", nil // taken from the skill cache
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", err
	}
	base, err := copyRemote(ctx, w, rs, pin, within, &limitedWriter{w: f, max: in.cache.Limits().MaxArchiveSize}, progress)
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
func shortPin(pin string) string { return sourceloc.ShortPin(pin) }

// watchdogKey is the context key of a remoteWatchdog.
type watchdogKey struct{}

// remoteWatchdog is the watchdog of a published source's download (rule
// 10). It travels in the context of the source's calls, and its timer
// starts at the first request of a client made by watchedClient: a source
// that sends none (git, whose fetches git times itself; an OCI pin whose
// blobs are cached) is not timed by it.
type remoteWatchdog struct {
	*watchdog
	armed atomic.Bool
}

// startRemoteWatchdog returns a context that carries a new remoteWatchdog
// of timeout d, and the watchdog; stop must be called once the download
// ends.
func startRemoteWatchdog(ctx context.Context, d time.Duration) (context.Context, *remoteWatchdog) {
	ctx, w := newWatchdog(ctx, d, false)
	rw := &remoteWatchdog{watchdog: w}
	return context.WithValue(ctx, watchdogKey{}, rw), rw
}

// arm starts the timer, once.
func (w *remoteWatchdog) arm() {
	if w.armed.CompareAndSwap(false, true) {
		w.timer.Reset(w.d)
	}
}

// classify returns the error of a download watched by w that failed
// with err: a stall when w ended it (rule 10), else err as sourceError
// classifies it.
func (w *remoteWatchdog) classify(ctx context.Context, err error) error {
	if context.Cause(ctx) == w.stalled {
		return fmt.Errorf("%w: %w", ErrSourceUnavailable, w.stalled)
	}
	return sourceError(err)
}

// watchedClient returns a copy of base whose requests start the timer of
// the remoteWatchdog their context carries, and whose responses restart
// it: when their headers arrive, and at every read of their body that
// returns bytes. Connecting and waiting for the headers count as
// receiving nothing. A request whose context carries no watchdog is not
// watched.
func watchedClient(base *http.Client) *http.Client {
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = &watchedTransport{rt: rt}
	return &c
}

// watchedTransport is the transport of a watchedClient.
type watchedTransport struct {
	rt http.RoundTripper
}

func (t *watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w, _ := req.Context().Value(watchdogKey{}).(*remoteWatchdog)
	if w == nil {
		return t.rt.RoundTrip(req)
	}
	w.arm()
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	w.timer.Reset(w.d)
	resp.Body = &watchedBody{Reader: w.reader(resp.Body), Closer: resp.Body}
	return resp, nil
}

// watchedBody is a response body whose reads restart a watchdog's timer.
type watchedBody struct {
	io.Reader
	io.Closer
}

// gitRedirects returns the check of each redirect the git source src
// follows within its host (package source/git, rule 6; one to another
// host it refuses itself), when a policy is in force: the repository's
// new address is checked as a git source of its own (Trust rule 1), as
// the redirects of a download are, before git asks it for anything.
// Whether the source is pinned is the source's, checked already. The
// signature rules were chosen for the source's address, so a new address
// that a signers or commits rule names and the source's does not is
// refused: the content would come from there without that rule's check.
// Without a policy it returns nil, which git.New ignores.
func (in *Installer) gitRedirects(src git.Source) git.Option {
	if in.trust == nil {
		return nil
	}
	p := in.trust.effectivePolicy()
	fromKind, from, _ := sourceloc.GitLocation(src.URL)
	applies := func(kind, loc string) (map[string]bool, error) {
		s := source.Origin{Kind: source.Kind(kind), Location: loc, Pinned: true}
		signers, err := p.SignerRules(s)
		rules := map[string]bool{}
		for _, r := range signers {
			rules[r.Rule.String()] = true
		}
		for _, r := range p.CommitRules(s) {
			rules[r.Rule.String()] = true
		}
		return rules, err
	}
	return git.WithRedirectCheck(func(_ context.Context, to string) error {
		shown := redact.URL(to)
		kind, loc, err := sourceloc.GitLocation(to)
		if err != nil {
			return dotSegmentError(to)
		}
		if err := p.Check(source.Origin{Kind: source.Kind(kind), Location: loc, Pinned: true, Display: shown}); err != nil {
			return refusedBy(redact.URL(src.URL), "redirected to "+shown, err)
		}
		had, err := applies(fromKind, from)
		if err != nil {
			return refusedBy(redact.URL(src.URL), "redirected to "+shown, err)
		}
		now, err := applies(kind, loc)
		if err != nil {
			return refusedBy(redact.URL(src.URL), "redirected to "+shown, err)
		}
		for rule := range now {
			if !had[rule] {
				return refusedBy(redact.URL(src.URL), fmt.Sprintf("the policy's %s applies to %s and not to the source's own address; add the repository by its new address, so that the rule is checked", rule, shown), nil)
			}
		}
		return nil
	})
}
