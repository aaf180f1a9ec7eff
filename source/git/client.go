package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"
)

// Client runs the system git. It is safe for concurrent use.
type Client struct {
	git     string
	headers []string // "Key: value", for http.extraHeader
	tmp     string
}

type config struct {
	git     string
	headers []string
	tmp     string
	err     error
}

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
// Default: none.
func WithHeader(key, value string) Option {
	return func(c *config) {
		if key == "" || !validHeaderKey(key) || strings.ContainsAny(value, "\r\n\x00") {
			c.err = fmt.Errorf("%w: header %q is not a valid HTTP header", ErrInvalidSource, key)
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

// WithTempDir sets the folder under which each call makes its temporary
// repository. Default: [os.TempDir].
func WithTempDir(dir string) Option {
	return func(c *config) { c.tmp = dir }
}

// New returns a Client. It fails when git cannot be found, or an option
// is not usable.
func New(opts ...Option) (*Client, error) {
	c := config{git: "git"}
	for _, o := range opts {
		o(&c)
	}
	if c.err != nil {
		return nil, c.err
	}
	path, err := exec.LookPath(c.git)
	if err != nil {
		return nil, fmt.Errorf("git sources need the git command: %w (install git, or name it with WithGit)", err)
	}
	return &Client{git: path, headers: c.headers, tmp: c.tmp}, nil
}

// Resolve fetches the commit src's ref names now (the remote's HEAD
// without a ref) and returns the pin (rule 7).
func (c *Client) Resolve(ctx context.Context, src Source) (Pin, error) {
	repo, pin, err := c.resolve(ctx, src)
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
	repo, pin, err := c.resolve(ctx, src)
	if err != nil {
		return Pin{}, nil, err
	}
	rc, err := repo.startArchive(ctx, src, pin.Commit)
	if err != nil {
		repo.remove()
		return Pin{}, nil, fmt.Errorf("fetch commit %s of %s: %w", pin.Commit, src.URL, err)
	}
	return pin, rc, nil
}

// resolve fetches the commit src's ref names into a new repository, which
// it returns with the pin; the caller removes it.
func (c *Client) resolve(ctx context.Context, src Source) (*repo, Pin, error) {
	if err := src.check(); err != nil {
		return nil, Pin{}, fmt.Errorf("%w %q: %w", ErrInvalidSource, src.String(), err)
	}
	repo, err := c.newRepo(ctx, src)
	if err != nil {
		return nil, Pin{}, err
	}
	ref, what := src.Ref, "ref "+src.Ref
	if ref == "" {
		ref, what = "HEAD", "the default branch"
	}
	commit, err := repo.fetch(ctx, ref)
	if err == nil {
		err = repo.hasFolder(ctx, commit, src.Path)
	}
	if err != nil {
		repo.remove()
		return nil, Pin{}, fmt.Errorf("resolve %s of %s: %w", what, src.URL, err)
	}
	return repo, Pin{Source: src, Commit: commit}, nil
}

// Opener returns an Opener of the pinned folder as an uncompressed tar,
// fetched anew at each call (rule 8). It is what [Client.Skill] wraps; a
// caller that looks for skills under the pinned folder can write it to a
// file once and read the skills from that.
func (c *Client) Opener(p Pin) skill.Opener {
	return func(ctx context.Context) (io.ReadCloser, error) {
		src := p.Source
		if err := src.check(); err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrInvalidSource, src.String(), err)
		}
		commit := strings.ToLower(p.Commit)
		if !isCommit(commit) {
			return nil, fmt.Errorf("%w %q: the pin's commit %q is not a full hex commit id (resolve the source first)", ErrInvalidSource, src.String(), p.Commit)
		}
		repo, err := c.newRepo(ctx, src)
		if err != nil {
			return nil, err
		}
		rc, err := repo.archive(ctx, src, commit)
		if err != nil {
			repo.remove()
			return nil, fmt.Errorf("fetch commit %s of %s: %w", commit, src.URL, err)
		}
		return rc, nil
	}
}

// Skill returns the skill at the pinned folder under key: an archive
// source with [Client.Opener], [skill.FormatTar], the folder as its
// subpath and the commit as its fingerprint. Nothing is fetched until it
// is materialized. To build one skill of several found under a source's
// folder, set the pin's Source.Path to that skill's folder.
func (c *Client) Skill(key string, p Pin) skill.Skill {
	return skill.Archive(key, c.Opener(p),
		skill.WithFormat(skill.FormatTar),
		skill.WithSubpath(p.Source.Path),
		skill.WithFingerprint(strings.ToLower(p.Commit)))
}

// repo is a temporary bare repository with origin set to one source.
type repo struct {
	c   *Client
	dir string
	env []string
}

func (c *Client) newRepo(ctx context.Context, src Source) (*repo, error) {
	dir, err := os.MkdirTemp(c.tmp, "agentskills-git-")
	if err != nil {
		return nil, fmt.Errorf("make a temporary repository: %w", err)
	}
	r := &repo{c: c, dir: dir, env: c.environ(dir, src.URL)}
	if _, err := r.run(ctx, "init", "--bare", "--quiet"); err != nil {
		r.remove()
		return nil, fmt.Errorf("make a temporary repository: %w", err)
	}
	return r, nil
}

func (r *repo) remove() { os.RemoveAll(r.dir) }

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

// environ is the environment of every git run (rules 5 and 6).
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
	config := []string{"remote.origin.url", url}
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

// command is git with args in the repository, with no standard input.
func (r *repo) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.c.git, args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	cmd.WaitDelay = 5 * time.Second
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

// failure classifies a failed git run by its error output (rule 10).
func (r *repo) failure(ctx context.Context, what string, err error, stderr string) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("git %s: %w", what, ctxErr)
	}
	var lines []string
	for line := range strings.Lines(stderr) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	msg := r.c.clean(strings.Join(lines, "; "))
	if msg == "" {
		msg = err.Error()
	}
	low := strings.ToLower(msg)
	switch {
	case containsAny(low, "authentication failed", "could not read username", "could not read password",
		"terminal prompts disabled", "permission denied (publickey", "access denied",
		"returned error: 401", "returned error: 403", "host key verification failed"):
		return fmt.Errorf("%w: %s (set up a git credential helper or an SSH key for this host, or pass a header)", ErrAuthRequired, msg)
	case containsAny(low, "couldn't find remote ref", "not our ref", "unadvertised object", "no such remote ref"):
		return fmt.Errorf("%w: %s", errNoRef, msg)
	case containsAny(low, "does not appear to be a git repository", "repository not found", "not found",
		"returned error: 404", "no such file or directory"):
		return fmt.Errorf("%w: %s (check the repository's URL)", ErrNotFound, msg)
	}
	return fmt.Errorf("git %s: %s", what, msg)
}

// errNoRef marks a ref or commit the server does not give.
var errNoRef = fmt.Errorf("%w (no such ref or commit)", ErrNotFound)

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
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

// fetch fetches ref shallowly and returns the commit it names.
func (r *repo) fetch(ctx context.Context, ref string) (string, error) {
	if _, err := r.run(ctx, "fetch", "--depth=1", "--no-tags", "--quiet", "--end-of-options", "origin", ref); err != nil {
		return "", err
	}
	commit, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: %s does not name a commit", ErrNotFound, ref)
	}
	if !isCommit(commit) {
		return "", fmt.Errorf("git rev-parse answered %q, not a commit id", commit)
	}
	return commit, nil
}

// hasFolder checks that path is a folder of commit.
func (r *repo) hasFolder(ctx context.Context, commit, path string) error {
	if path == "" {
		return nil
	}
	kind, err := r.run(ctx, "cat-file", "-t", commit+":"+path)
	if err != nil || kind != "tree" {
		return fmt.Errorf("%w: no folder %q in commit %s", ErrNotFound, path, commit)
	}
	return nil
}

// archive fetches the pinned commit and starts git archive of the folder.
func (r *repo) archive(ctx context.Context, src Source, commit string) (io.ReadCloser, error) {
	got, err := r.fetch(ctx, commit)
	if err != nil && errors.Is(err, errNoRef) && src.Ref != "" && src.Ref != commit {
		// The server gives no commits by id: its ref must still point at
		// the pin.
		got, err = r.fetch(ctx, src.Ref)
		if err == nil && got != commit {
			return nil, fmt.Errorf("%w: the server does not give commits by id, and ref %s now points at %s: resolve the source again", ErrNotFound, src.Ref, got)
		}
	}
	if err != nil {
		return nil, err
	}
	if got != commit {
		return nil, fmt.Errorf("the server gave commit %s for %s", got, commit)
	}
	if err := r.hasFolder(ctx, commit, src.Path); err != nil {
		return nil, err
	}
	return r.startArchive(ctx, src, commit)
}

// startArchive starts git archive of src's folder at commit, which the
// repository holds.
func (r *repo) startArchive(ctx context.Context, src Source, commit string) (io.ReadCloser, error) {
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
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
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
