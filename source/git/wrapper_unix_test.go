//go:build unix

package git_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// wrapper writes a script that logs each git command line and its
// environment's GIT_CONFIG entries, then runs the real git, or does what
// extra says first.
func wrapper(t *testing.T, extra string) (program, log string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	log = filepath.Join(dir, "argv.log")
	program = filepath.Join(dir, "git")
	script := "#!/bin/sh\nprintf '%s\\n' \"ARGS $*\" >>" + log + "\n" + extra + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(program, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return program, log
}

// TestSecretsNotOnCommandLine runs the client through a git that logs
// its command lines: the header's value and the repository's URL reach
// git only through the environment (rule 6).
func TestSecretsNotOnCommandLine(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	const token = "argv-secret-token-4242"
	srv := httpServer(t, r, token, nil)
	program, log := wrapper(t, "")
	c := newClient(t, git.WithGit(program), git.WithHeader("Authorization", "Bearer "+token))
	src := git.Source{URL: srv.URL + "/skills.git", Ref: "v1", Path: "skills/review"}
	pin, err := c.Resolve(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := materializer(t)
	if _, err := m.Materialize(t.Context(), c.Skill("review", pin)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	argv := string(data)
	for _, want := range []string{"ARGS fetch --depth=1", "ARGS archive --format=tar --end-of-options " + pin.Commit + " skills/review"} {
		if !strings.Contains(argv, want) {
			t.Errorf("git command lines:\n%s\nwant one with %q", argv, want)
		}
	}
	for _, secret := range []string{token, srv.URL} {
		if strings.Contains(argv, secret) {
			t.Errorf("git command lines:\n%s\nhold %q", argv, secret)
		}
	}
}

// TestArchiveFailureIsAnError makes git archive write half an archive and
// fail: the read must fail, never end as a short archive, and nothing may
// land in the cache.
func TestArchiveFailureIsAnError(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	program, _ := wrapper(t, `if [ "$1" = archive ]; then "`+mustLook(t)+`" "$@" | head -c 1536; echo "fatal: the disk fell off" >&2; exit 1; fi`)
	tmp := t.TempDir()
	c := newClient(t, git.WithGit(program), git.WithTempDir(tmp))
	pin, err := c.Resolve(t.Context(), git.Source{URL: strings.TrimPrefix(r.fileURL(), "git+"), Path: "skills/review"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.Opener(pin)(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	rc.Close()
	if err == nil || !strings.Contains(err.Error(), "the disk fell off") {
		t.Errorf("reading the archive = %d bytes, %v, want an error with git's message", n, err)
	}
	m, root := materializer(t)
	if _, err := m.Materialize(t.Context(), c.Skill("review", pin)); err == nil || !strings.Contains(err.Error(), "the disk fell off") {
		t.Errorf("Materialize = %v, want git's error", err)
	}
	cachetest.Empty(t, root)
	emptyTemp(t, tmp)
}

// TestCloseEarly closes the reader before the end: git is stopped and
// the temporary repository removed.
func TestCloseEarly(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	tmp := t.TempDir()
	c := newClient(t, git.WithTempDir(tmp))
	pin, err := c.Resolve(t.Context(), git.Source{URL: strings.TrimPrefix(r.fileURL(), "git+")})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.Opener(pin)(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var b [10]byte
	if _, err := rc.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if _, err := rc.Read(b[:]); err == nil {
		t.Error("Read after Close succeeded, want an error")
	}
	emptyTemp(t, tmp)
}

func mustLook(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return p
}

// TestFetchResolvesAndOpensInOneFetch checks that Fetch gives the pin
// Resolve gives and the folder the pin's Opener gives, from one git
// fetch, and leaves no repository behind once the reader is closed.
func TestFetchResolvesAndOpensInOneFetch(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	program, log := wrapper(t, "")
	tmp := t.TempDir()
	c := newClient(t, git.WithGit(program), git.WithTempDir(tmp))
	src, err := git.Parse(r.fileURL() + "#ref=v1&path=skills/review")
	if err != nil {
		t.Fatal(err)
	}
	pin, rc, err := c.Fetch(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	fetched, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	if n := strings.Count(string(data), "ARGS fetch "); n != 1 || pin.Commit != r.v1 {
		t.Errorf("Fetch = pin %s after %d fetches, want %s after one:\n%s", pin.Commit, n, r.v1, data)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("Fetch left %d entries in its temporary folder after Close", len(entries))
	}
	// The same bytes as the pin's opener streams.
	open, err := c.Opener(pin)(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	opened, err := io.ReadAll(open)
	open.Close()
	if err != nil || string(opened) != string(fetched) {
		t.Errorf("Opener(pin) gave %d bytes (%v), Fetch %d: want the same archive", len(opened), err, len(fetched))
	}
	// A ref that does not exist fails as Resolve does, leaving nothing.
	bad, _ := git.Parse(r.fileURL() + "#ref=nope")
	if _, rc, err := c.Fetch(t.Context(), bad); !errors.Is(err, source.ErrNotFound) || rc != nil {
		t.Errorf("Fetch(ref nope) = %v, %v, want ErrNotFound and no reader", rc, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("a failed Fetch left %d entries in its temporary folder", len(entries))
	}
}
