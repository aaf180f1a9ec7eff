package git

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Client runs the system git. It is safe for concurrent use.
type Client struct {
	git      string
	headers  []string // "Key: value", for http.extraHeader
	tmp      string
	stall    time.Duration
	maxFetch int64
	redirect func(ctx context.Context, repoURL string) error // WithRedirectCheck, or nil
	stallFix string                                          // how messages name WithStallTimeout (WithSettingNames)
	authFix  string                                          // the advice on an authentication failure, in the words of WithSettingNames
}

type config struct {
	git     string
	headers []string
	tmp     string
	stall   time.Duration
	cache   *skill.Cache
	err     error
	// redirect checks a redirect's new repository URL (WithRedirectCheck)
	redirect func(ctx context.Context, repoURL string) error
	names    map[string]string // WithSettingNames
}

// DefaultStallTimeout is the default of [WithStallTimeout].
const DefaultStallTimeout = 30 * time.Second

// Option configures a [Client].
type Option func(*config)

// WithGit sets the git program, a path or a name looked up on PATH.
// Default: "git".
func WithGit(program string) Option {
	return func(c *config) { c.git = program }
}

// WithHeader adds an HTTP header that git sends to http(s) remotes, as
// http.extraHeader through the environment (rule 6), for example
// WithHeader("Authorization", "Bearer "+token). Headers accumulate.
// They are sent to the source's host only: a redirect to another host is
// refused before any request goes there (rule 6). Default: none.
func WithHeader(key, value string) Option {
	return func(c *config) {
		if key == "" || !validHeaderKey(key) || strings.ContainsAny(value, "\r\n\x00") {
			c.err = fmt.Errorf("WithHeader(%q): %w: not a valid HTTP header", key, source.ErrInvalid)
			return
		}
		c.headers = append(c.headers, key+": "+value)
	}
}

func validHeaderKey(k string) bool {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// WithRedirectCheck sets a check of each redirect the package follows
// (rule 6): check is given the repository's new URL, without user
// information, before any request is sent there, and an error it
// returns stops the call. Default: none (a redirect within the host is
// followed, one to another host never is).
func WithRedirectCheck(check func(ctx context.Context, repoURL string) error) Option {
	return func(c *config) { c.redirect = check }
}

// WithTempDir sets the folder under which each call makes its temporary
// repository. Default: [os.TempDir].
func WithTempDir(dir string) Option {
	return func(c *config) { c.tmp = dir }
}

// WithStallTimeout sets how long a fetch may receive nothing before git
// is stopped and the call fails with [source.ErrStalled] (rule 11). Default:
// [DefaultStallTimeout]; values <= 0 mean the default.
func WithStallTimeout(d time.Duration) Option {
	return func(c *config) { c.stall = d }
}

// WithSettingNames has the client's messages that tell the user which
// setting to change name each by names[SETTING], SETTING its name here
// (the Setting constants): a caller that sets it through a setting of
// its own (package install's download timeout, a command-line tool's
// flag) maps it to that. A setting mapped to "" is one the caller's user
// cannot set: the message then leaves out the advice to set it. Default:
// this package's names.
func WithSettingNames(names map[string]string) Option {
	return func(c *config) { c.names = names }
}

// The settings that the client's messages name: the keys of
// [WithSettingNames].
const (
	SettingStallTimeout = "WithStallTimeout"
	SettingGit          = "WithGit"
	SettingHeader       = "WithHeader"
)

// advice is fix, followed by ", or " and then or with the caller's name
// of setting (%s in or), unless names maps setting to "".
func advice(names map[string]string, fix, setting, or string) string {
	name, ok := names[setting]
	if !ok {
		name = setting
	}
	if name == "" {
		return fix
	}
	return fix + ", or " + fmt.Sprintf(or, name)
}

// WithCache sets the skill cache whose limits bound a fetch: git is
// stopped when its temporary repository grows by more than the cache's
// MaxArchiveSize (rule 12). Give it the cache the materializer uses.
// Default: the limits of skill.NewCache(); nil also means the default.
func WithCache(cache *skill.Cache) Option {
	return func(c *config) { c.cache = cache }
}

// New returns a Client. It fails when git cannot be found, or an option
// is not usable.
func New(opts ...Option) (*Client, error) {
	c := config{git: "git"}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	path, err := exec.LookPath(c.git)
	if err != nil {
		return nil, fmt.Errorf("git sources need the git command: %w (%s)", err, advice(c.names, "install git", SettingGit, "name it with %s"))
	}
	if c.stall <= 0 {
		c.stall = DefaultStallTimeout
	}
	if c.cache == nil {
		c.cache = skill.NewCache()
	}
	return &Client{git: path, headers: c.headers, tmp: c.tmp, stall: c.stall, maxFetch: c.cache.Limits().MaxArchiveSize, redirect: c.redirect,
		stallFix: cmp.Or(c.names[SettingStallTimeout], SettingStallTimeout),
		authFix:  advice(c.names, "set up a git credential helper or an SSH key for this host", SettingHeader, "pass a header with %s")}, nil
}

// Resolve fetches the commit src's ref names now (the remote's HEAD
// without a ref) and returns the pin (rule 7).
func (c *Client) Resolve(ctx context.Context, src Source) (Pin, error) {
	repo, pin, err := c.resolve(ctx, src, false)
	if err != nil {
		return Pin{}, err
	}
	repo.remove()
	return pin, nil
}

// Fetch is Resolve and the pin's Opener in one fetch: it resolves src's
// ref and returns the pin with the pinned folder as an uncompressed tar,
// read from the one shallow fetch that resolved it (rules 7 and 8). The
// caller closes the reader, which removes the fetched repository.
func (c *Client) Fetch(ctx context.Context, src Source) (Pin, io.ReadCloser, error) {
	repo, pin, err := c.resolve(ctx, src, src.Path == "")
	if err != nil {
		return Pin{}, nil, err
	}
	rc, err := repo.startArchive(ctx, src, pin.Commit)
	if err != nil {
		repo.remove()
		return Pin{}, nil, fmt.Errorf("fetch commit %s of %s: %w", pin.Commit, repo.shown, err)
	}
	return pin, rc, nil
}

// resolve fetches the commit src's ref names into a new repository, which
// it returns with the pin; the caller removes it. With whole, the fetch
// takes every file of the commit (rule 8).
func (c *Client) resolve(ctx context.Context, src Source, whole bool) (*repo, Pin, error) {
	if err := src.check(); err != nil {
		return nil, Pin{}, invalid(src.String(), err)
	}
	repo, err := c.newRepo(ctx, src)
	if err != nil {
		return nil, Pin{}, err
	}
	repo.whole = whole
	ref, what := src.Ref, "ref "+src.Ref
	if ref == "" {
		ref, what = "HEAD", "the default branch"
	}
	var tag string
	if version.IsRange(src.Ref) {
		t, err := repo.pickTag(ctx, src.Ref)
		if err != nil {
			repo.remove()
			return nil, Pin{}, fmt.Errorf("resolve version range %s of %s: %w", src.Ref, repo.shown, err)
		}
		tag = t.Name
		ref, what = "refs/tags/"+tag, "tag "+tag+" (version range "+src.Ref+")"
	}
	commit, err := repo.fetch(ctx, ref)
	if err == nil {
		err = repo.hasFolder(ctx, commit, src.Path)
	}
	if err != nil {
		repo.remove()
		return nil, Pin{}, fmt.Errorf("resolve %s of %s: %w", what, repo.shown, err)
	}
	return repo, Pin{Source: src, Commit: commit, Version: tag}, nil
}

// Opener returns an Opener of the pinned folder as an uncompressed tar,
// fetched anew at each call (rule 8). It is what [Client.Skill] wraps; a
// caller that looks for skills under the pinned folder can write it to a
// file once and read the skills from that.
func (c *Client) Opener(p Pin) skill.Opener {
	return func(ctx context.Context) (io.ReadCloser, error) {
		src := p.Source
		if err := src.check(); err != nil {
			return nil, invalid(src.String(), err)
		}
		commit := strings.ToLower(p.Commit)
		if !gitsyntax.IsCommit(commit) {
			return nil, invalid(src.String(), fmt.Errorf("the pin's commit %q is not a full hex commit id (resolve the source first)", p.Commit))
		}
		repo, err := c.newRepo(ctx, src)
		if err != nil {
			return nil, err
		}
		repo.whole = src.Path == "" // every file is read (rule 8)
		rc, err := repo.archive(ctx, src, commit)
		if err != nil {
			repo.remove()
			return nil, fmt.Errorf("fetch commit %s of %s: %w", commit, repo.shown, err)
		}
		return rc, nil
	}
}

// repo is a temporary bare repository with origin set to one source.
type repo struct {
	c     *Client
	dir   string
	env   []string
	url   *url.URL // the repository's URL, for cleaning git's messages
	shown string   // the URL as messages show it (rule 13)
	base  int64    // the object folder's size before the first fetch
	// whole is whether fetches take every file of the commit (no blob
	// filter), for a git archive of the whole repository (rule 8).
	whole bool
	hops  int // the redirects followed (rule 6)
}

func (c *Client) newRepo(ctx context.Context, src Source) (*repo, error) {
	dir, err := os.MkdirTemp(c.tmp, "agentskills-git-")
	if err != nil {
		return nil, fmt.Errorf("make a temporary repository: %w", err)
	}
	u, _ := url.Parse(src.URL) // checked by src.check
	r := &repo{c: c, dir: dir, env: c.environ(dir, src.URL), url: u, shown: redact.URL(src.URL)}
	// No template: the sample hooks and the description a template holds
	// are files a fetch never reads, and a user's template hooks (which
	// a fetch could run) have no place in it.
	if _, err := r.run(ctx, "init", "--bare", "--quiet", "--template="); err != nil {
		r.remove()
		return nil, fmt.Errorf("make a temporary repository: %w", err)
	}
	r.base = folderSize(r.objects())
	return r, nil
}

func (r *repo) remove() { os.RemoveAll(r.dir) }

// objects is the repository's object folder, where a fetch writes what
// it receives.
func (r *repo) objects() string { return filepath.Join(r.dir, "objects") }

// scrubbed are variables of the caller's environment that would point git
// at another repository or change how it reads paths and messages.
var scrubbed = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
	"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS",
	"GIT_LITERAL_PATHSPECS", "GIT_TERMINAL_PROMPT", "GCM_INTERACTIVE",
	"GIT_CONFIG_COUNT", "LC_ALL", "LANGUAGE",
}

// environ is the environment of every git run (rules 5, 6 and 11).
func (c *Client) environ(dir, url string) []string {
	var env []string
	count := 0
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == "GIT_CONFIG_COUNT" {
			count, _ = strconv.Atoi(v)
		}
		if !isScrubbed(k) {
			env = append(env, kv)
		}
	}
	// The caller's GIT_CONFIG_KEY_n/VALUE_n stay; ours follow them.
	config := []string{
		"remote.origin.url", url,
		// curl gives up a transfer slower than 1 byte a second for the
		// stall timeout; the watch of the fetch covers the other
		// transports (rule 11).
		"http.lowSpeedLimit", "1",
		"http.lowSpeedTime", strconv.Itoa(int((c.stall + time.Second - 1) / time.Second)),
		// The blobs a partial fetch left out are asked for by id; a
		// negotiation would tell the server the commit that holds them
		// is here, and it would leave them out again.
		"fetch.negotiationAlgorithm", "noop",
		// A received pack is kept as it arrives, never unpacked into
		// loose objects, which git would write only once each is whole:
		// the repository grows with every byte received (rules 11 and
		// 12).
		"fetch.unpackLimit", "1",
		// A fetch would then run git maintenance run --auto, one more
		// process, in a repository removed when the call is done.
		"maintenance.auto", "false",
		// git follows no redirect: curl would send the extra headers
		// to whatever host a server names. The package follows one
		// within the host itself (rule 6).
		"http.followRedirects", "false",
	}
	for _, h := range c.headers {
		config = append(config, "http.extraHeader", h)
	}
	for i := 0; i < len(config); i += 2 {
		n := strconv.Itoa(count + i/2)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+config[i], "GIT_CONFIG_VALUE_"+n+"="+config[i+1])
	}
	return append(env,
		"GIT_CONFIG_COUNT="+strconv.Itoa(count+len(config)/2),
		"GIT_DIR="+dir,
		"GIT_TERMINAL_PROMPT=0",
		"GCM_INTERACTIVE=never",
		"GIT_LITERAL_PATHSPECS=1",
		"LC_ALL=C",
		"LANGUAGE=C",
	)
}

func isScrubbed(k string) bool {
	for _, s := range scrubbed {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// command is git with args in the repository, with no standard input,
// in a process group of its own where the system has them, so that
// stopping it stops the helpers it started (git-remote-http, ssh).
func (r *repo) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.c.git, args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	return cmd
}

// run runs git and returns its output; a failure carries the end of its
// error output.
func (r *repo) run(ctx context.Context, args ...string) (string, error) {
	cmd := r.command(ctx, args...)
	var stdout bytes.Buffer
	stderr := &tail{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &limitedBuffer{buf: &stdout, max: 1 << 20}, stderr
	if err := cmd.Run(); err != nil {
		return "", r.failure(ctx, args[0], err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// watchEvery is how often a fetch's repository is measured.
const watchEvery = 50 * time.Millisecond

// runFetch runs a git fetch with stdin as its input, watched (rules 11
// and 12): git is stopped when nothing arrives for the stall timeout (no
// progress message, no growth of the repository), or when the
// repository grows by more than the fetch limit.
func (r *repo) runFetch(ctx context.Context, stdin io.Reader, args ...string) error {
	return r.runWatched(ctx, stdin, io.Discard, args...)
}

// runWatched is runFetch giving git's output to stdout, whose writes
// count as receiving. A redirect git was given instead of an answer is
// followed as rule 6 says, and git run again at the new address.
func (r *repo) runWatched(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	for {
		redirect, err := r.runOnce(ctx, stdin, stdout, args...)
		if !redirect || (r.url.Scheme != "http" && r.url.Scheme != "https") {
			return err
		}
		if seeker, ok := stdin.(io.Seeker); stdin != nil && !ok {
			return err
		} else if ok {
			if _, serr := seeker.Seek(0, io.SeekStart); serr != nil {
				return err
			}
		}
		if err := r.follow(ctx); err != nil {
			return err
		}
	}
}

// runOnce is one run of runWatched; redirect reports that git failed
// because the server answered with a redirect, which it does not follow.
func (r *repo) runOnce(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) (redirect bool, _ error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := r.c.stall
	stalled := fmt.Errorf("git fetch: %w: nothing received for %v, and git was stopped (give it longer with %s, or try again later)", source.ErrStalled, stall, r.c.stallFix)
	timer := time.AfterFunc(stall, func() { cancel(stalled) })
	defer timer.Stop()
	kick := func() { timer.Reset(stall) }

	cmd := r.command(ctx, args...)
	cmd.Stdin = stdin
	stderr := &tail{max: 4 << 10, kick: kick}
	cmd.Stdout, cmd.Stderr = kickWriter{stdout, kick}, stderr
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start git %s: %w", args[0], err)
	}
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		r.watch(done, kick, cancel)
	}()
	err := cmd.Wait()
	close(done)
	<-watched
	if err != nil {
		return context.Cause(ctx) == nil && redirected(stderr.String()), r.failure(ctx, args[0], err, stderr.String())
	}
	// A fetch faster than the watch is measured once more.
	return false, r.overLimit(folderSize(r.objects()))
}

// overLimit returns the error of a repository of n bytes that grew by
// more than the fetch limit, or nil.
func (r *repo) overLimit(n int64) error {
	if n-r.base <= r.c.maxFetch {
		return nil
	}
	return skillcache.NewLimitError(skill.LimitArchiveSize, r.c.maxFetch,
		"git fetched more than %d bytes, the archive size limit; a server that filters blobs (uploadpack.allowFilter) sends only the skill's files", r.c.maxFetch)
}

// watch measures the repository until done is closed: growth kicks the
// stall timer, growth over the fetch limit cancels the fetch.
func (r *repo) watch(done <-chan struct{}, kick func(), cancel context.CancelCauseFunc) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	last := r.base
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		n := folderSize(r.objects())
		if err := r.overLimit(n); err != nil {
			cancel(err)
			return
		}
		if n > last {
			last = n
			kick()
		}
	}
}

// folderSize is the bytes of the objects under dir, as far as they can
// be read while git writes them: packs and loose objects, which hold
// what a fetch received, and not the indexes git computes from them.
func folderSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !isIndex(d.Name()) {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// isIndex reports whether name is a file git derives from a pack.
func isIndex(name string) bool {
	return strings.HasSuffix(name, ".idx") || strings.HasSuffix(name, ".rev") ||
		strings.HasSuffix(name, ".bitmap") || strings.HasPrefix(name, "tmp_idx_") || strings.HasPrefix(name, "tmp_rev_")
}

// failure classifies a failed git run by its error output (rule 10).
func (r *repo) failure(ctx context.Context, what string, err error, stderr string) error {
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, source.ErrStalled) || errors.Is(cause, skill.ErrArchiveLimit) {
			return cause // the watch's own, which says what happened
		}
		return fmt.Errorf("git %s: %w", what, cause)
	}
	msg := r.clean(strings.Join(messages(stderr), "; "))
	if msg == "" {
		msg = err.Error()
	}
	low := strings.ToLower(msg)
	switch {
	case containsAny(low, "operation too slow", "operation timed out", "connection timed out"):
		return fmt.Errorf("git fetch: %w: %s (give it longer with %s, or try again later)", source.ErrStalled, msg, r.c.stallFix)
	case containsAny(low, "authentication failed", "could not read username", "could not read password",
		"terminal prompts disabled", "permission denied (publickey", "access denied",
		"returned error: 401", "returned error: 403", "host key verification failed"):
		return fmt.Errorf("%w: %s (%s)", source.ErrAuthRequired, msg, r.c.authFix)
	case containsAny(low, "couldn't find remote ref", "not our ref", "unadvertised object", "no such remote ref"):
		return fmt.Errorf("%w: %s", errNoRef, msg)
	case containsAny(low, "does not appear to be a git repository", "repository not found", "not found",
		"returned error: 404", "no such file or directory"):
		return fmt.Errorf("%w: %s (check the repository's URL)", source.ErrNotFound, msg)
	}
	return fmt.Errorf("git %s: %s", what, msg)
}

// messages returns the lines of git's error output without its progress
// reports, which are rewritten in place with "\r", and without the
// warning of a server that does not filter (rule 7 expects it).
func messages(stderr string) []string {
	var lines []string
	for _, line := range strings.FieldsFunc(stderr, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(line)
		if line == "" || isProgress(line) || strings.HasPrefix(line, "warning: filtering not recognized by server") {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}

// isProgress reports whether line is one of git's progress reports
// ("Receiving objects:  50% (1/2)", "remote: Total 3 (delta 0)").
func isProgress(line string) bool {
	line = strings.TrimPrefix(line, "remote: ")
	return strings.Contains(line, "% (") || strings.HasSuffix(line, ", done.") ||
		strings.HasPrefix(line, "Total ") || strings.HasPrefix(line, "Enumerating objects:")
}

// errNoRef marks a ref or commit the server does not give.
var errNoRef = fmt.Errorf("%w (no such ref or commit)", source.ErrNotFound)

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// clean removes from text git wrote the header values and the
// credentials of the repository's URL (rule 13).
func (r *repo) clean(text string) string {
	text = r.c.clean(text)
	return cleanUser(text, r.url)
}

// clean removes header values from text git wrote.
func (c *Client) clean(text string) string {
	for _, h := range c.headers {
		_, v, _ := strings.Cut(h, ": ")
		if v != "" {
			text = strings.ReplaceAll(text, v, "[header]")
		}
	}
	return text
}

// fetch fetches ref shallowly, leaving out the blobs where the server can
// (rule 12) unless the repository is for a whole one (r.whole), and
// returns the commit it names.
func (r *repo) fetch(ctx context.Context, ref string) (string, error) {
	args := []string{"fetch", "--depth=1", "--filter=blob:none", "--no-tags", "--progress", "--end-of-options", "origin", ref}
	if r.whole {
		args = slices.Delete(args, 2, 3)
	}
	if err := r.runFetch(ctx, nil, args...); err != nil {
		return "", err
	}
	commit, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: the ref names no commit", source.ErrNotFound)
	}
	if !gitsyntax.IsCommit(commit) {
		return "", fmt.Errorf("git rev-parse answered %q, not a commit id", commit)
	}
	return commit, nil
}

// fetchBlobs fetches, in one fetch, the blobs git archive of path at
// commit reads that a partial fetch left out: the files of path and the
// .gitattributes of the folders above it. Without them git archive
// would fetch them itself, unwatched.
func (r *repo) fetchBlobs(ctx context.Context, commit, path string) error {
	args := []string{"rev-list", "--objects", "--missing=print", "--end-of-options", commit}
	if path != "" {
		args = append(args, "--", path)
		prefix := "" // each folder above path, path's own being in it
		for _, dir := range strings.Split(path, "/") {
			args = append(args, prefix+".gitattributes")
			prefix += dir + "/"
		}
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return err
	}
	var missing strings.Builder
	for line := range strings.Lines(out) {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "?"); ok && gitsyntax.IsCommit(id) {
			missing.WriteString(id + "\n")
		}
	}
	if missing.Len() == 0 {
		return nil
	}
	return r.runFetch(ctx, strings.NewReader(missing.String()), "fetch", "--no-tags", "--no-write-fetch-head", "--filter=blob:none", "--progress", "--stdin", "origin")
}

// hasFolder checks that path is a folder of commit.
func (r *repo) hasFolder(ctx context.Context, commit, path string) error {
	if path == "" {
		return nil
	}
	kind, err := r.run(ctx, "cat-file", "-t", commit+":"+path)
	if err != nil || kind != "tree" {
		return fmt.Errorf("%w: no folder %q in commit %s", source.ErrNotFound, path, commit)
	}
	return nil
}

// archive fetches the pinned commit and starts git archive of the folder.
func (r *repo) archive(ctx context.Context, src Source, commit string) (io.ReadCloser, error) {
	if err := r.fetchPinned(ctx, src, commit); err != nil {
		return nil, err
	}
	if err := r.hasFolder(ctx, commit, src.Path); err != nil {
		return nil, err
	}
	return r.startArchive(ctx, src, commit)
}

// fetchPinned fetches the pinned commit, by id, or by src's ref when the
// server gives no commits by id (rule 8).
func (r *repo) fetchPinned(ctx context.Context, src Source, commit string) error {
	got, err := r.fetch(ctx, commit)
	if err != nil && errors.Is(err, errNoRef) && src.Ref != "" && src.Ref != commit {
		// The server gives no commits by id: its ref must still point at
		// the pin.
		got, err = r.fetch(ctx, src.Ref)
		if err == nil && got != commit {
			return fmt.Errorf("%w: the server does not give commits by id, and ref %s now points at %s: resolve the source again", source.ErrNotFound, src.Ref, got)
		}
	}
	if err != nil {
		return err
	}
	if got != commit {
		return fmt.Errorf("the server gave commit %s for %s", got, commit)
	}
	return nil
}

// startArchive fetches the blobs of src's folder at commit that the
// repository lacks, then starts git archive of the folder.
func (r *repo) startArchive(ctx context.Context, src Source, commit string) (io.ReadCloser, error) {
	if !r.whole { // a whole fetch left nothing out
		if err := r.prepareArchive(ctx, commit, src.Path); err != nil {
			return nil, err
		}
	}
	args := []string{"archive", "--format=tar", "--end-of-options", commit}
	if src.Path != "" {
		args = append(args, src.Path)
	}
	cmd := r.command(ctx, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &tail{max: 4 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git archive: %w", err)
	}
	return &archiveReader{ctx: ctx, repo: r, cmd: cmd, stdout: stdout, stderr: stderr}, nil
}

// prepareArchive fetches the blobs of path at commit that a filtered
// fetch left out, and makes origin no promisor remote.
func (r *repo) prepareArchive(ctx context.Context, commit, path string) error {
	if err := r.fetchBlobs(ctx, commit, path); err != nil {
		return err
	}
	// git archive would fetch from a promisor remote blobs it only looks
	// at (outside the folder), unwatched; it has all it reads, so origin
	// stops being one. The filtered fetch wrote remote.origin.promisor
	// and .partialclonefilter into the repository's configuration (either
	// makes origin a promisor, and a later false in the environment
	// cannot undo it): their section goes.
	if _, err := r.run(ctx, "config", "--remove-section", "remote.origin"); err != nil && !strings.Contains(err.Error(), "no such section") {
		return err
	}
	return nil
}

// archiveReader streams git archive's output. A failure of git shows as
// an error of the last Read, never as a short archive; Close stops git
// and removes the repository.
type archiveReader struct {
	ctx    context.Context
	repo   *repo
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr *tail
	done   bool
	err    error
}

func (a *archiveReader) Read(p []byte) (int, error) {
	if a.done {
		return 0, a.err
	}
	n, err := a.stdout.Read(p)
	if err == io.EOF {
		a.done = true
		a.err = io.EOF
		if werr := a.cmd.Wait(); werr != nil {
			a.err = a.repo.failure(a.ctx, "archive", werr, a.stderr.String())
		}
		return n, a.err
	}
	return n, err
}

func (a *archiveReader) Close() error {
	if !a.done {
		a.done = true
		a.err = errors.New("closed")
		a.cmd.Process.Kill()
		a.stdout.Close()
		a.cmd.Wait()
	}
	a.repo.remove()
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	max  int
	buf  []byte
	kick func() // called at every write, when set
}

func (t *tail) Write(p []byte) (int, error) {
	if t.kick != nil && len(p) > 0 {
		t.kick()
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
