package git_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// silentServer accepts connections and never answers, until the test
// ends.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // read nothing, answer nothing
		}
	}()
	t.Cleanup(func() {
		close(done)
		l.Close()
		<-accepted
	})
	return "http://" + l.Addr().String()
}

// bigRepo makes a repository whose main holds a small skill at
// skills/small and a file of size bytes of random data beside it; the
// root's .gitattributes leaves skills/small/ignored.txt out of archives.
func bigRepo(t *testing.T, size int) *testRepo {
	t.Helper()
	root := t.TempDir()
	r := &testRepo{dir: filepath.Join(root, "work"), bare: filepath.Join(root, "srv", "skills.git")}
	gitIn(t, root, "init", "--quiet", "--initial-branch=main", r.dir)
	writeFile(t, filepath.Join(r.dir, "skills/small/SKILL.md"), skillMD("small", "v1"), 0o644)
	writeFile(t, filepath.Join(r.dir, "skills/small/ignored.txt"), "not exported\n", 0o644)
	writeFile(t, filepath.Join(r.dir, ".gitattributes"), "skills/small/ignored.txt export-ignore\n", 0o644)
	big := make([]byte, size)
	rand.NewChaCha8([32]byte{1}).Read(big)
	writeFile(t, filepath.Join(r.dir, "data/big.bin"), string(big), 0o644)
	gitIn(t, r.dir, "add", "-A")
	gitIn(t, r.dir, "commit", "--quiet", "-m", "big")
	r.main = gitIn(t, r.dir, "rev-parse", "HEAD")
	gitIn(t, root, "clone", "--quiet", "--bare", r.dir, r.bare)
	return r
}

// TestStall fetches from servers that stop sending: git is stopped after
// the stall timeout, and the error wraps ErrStalled (rule 11).
func TestStall(t *testing.T) {
	hermetic(t)
	const stall = time.Second
	r := bigRepo(t, 4<<20)
	backend := httpServer(t, r, "", nil)
	// midBody answers the pack request's headers and the first part of
	// its body, then sends nothing more.
	midBody := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !strings.HasSuffix(req.URL.Path, "/git-upload-pack") {
			backend.Config.Handler.ServeHTTP(w, req)
			return
		}
		rec := httptest.NewRecorder()
		backend.Config.Handler.ServeHTTP(rec, req)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		body := rec.Body.Bytes()
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		<-req.Context().Done()
	}))
	t.Cleanup(midBody.Close)
	tests := []struct {
		name, url string
	}{
		{"a server that accepts and never answers", silentServer(t) + "/skills.git"},
		{"a server that stops in the middle of the pack", midBody.URL + "/skills.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp), git.WithStallTimeout(stall))
			// The context's deadline is far beyond the stall: only the
			// watch can end the fetch in time, with ErrStalled.
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Resolve(ctx, git.Source{URL: tt.url})
			took := time.Since(start)
			if !errors.Is(err, source.ErrStalled) {
				t.Fatalf("Resolve(%s) = %v after %v, want %v", tt.url, err, took, source.ErrStalled)
			}
			if took > 10*stall {
				t.Errorf("Resolve(%s) took %v, want about the stall timeout %v", tt.url, took, stall)
			}
			t.Logf("after %v: %v", took, err)
			emptyTemp(t, tmp)
		})
	}
}

// TestFetchBounded fetches a 75-byte skill from a repository that also
// holds a 20 MiB file, under a 1 MiB archive size limit (rule 12): a
// server that filters blobs sends only the skill's; from one that does
// not, git is stopped at the limit with an error that names it.
func TestFetchBounded(t *testing.T) {
	hermetic(t)
	const limit = 1 << 20
	r := bigRepo(t, 20<<20)
	var posts atomic.Int64 // requests for a pack
	for _, filter := range []bool{true, false} {
		gitIn(t, r.bare, "config", "uploadpack.allowFilter", map[bool]string{true: "true", false: "false"}[filter])
		srv := httpServer(t, r, "", func(req *http.Request) {
			if req.Method == http.MethodPost {
				posts.Add(1)
			}
		})
		for transport, base := range map[string]string{"file": r.fileURL(), "http": "git+" + srv.URL + "/skills.git"} {
			name := transport + " without a filter"
			if filter {
				name = transport + " with uploadpack.allowFilter"
			}
			t.Run(name, func(t *testing.T) {
				tmp := t.TempDir()
				cache, root := materializer(t, skill.WithMaxArchiveSize(limit))
				c := newClient(t, git.WithTempDir(tmp), git.WithCache(cache))
				src, err := git.Parse(base + "#path=skills/small")
				if err != nil {
					t.Fatal(err)
				}
				pin, rc, err := c.Fetch(t.Context(), src)
				if !filter {
					var over *extract.LimitError
					if !errors.As(err, &over) || over.Max != limit || !errors.Is(err, skill.ErrArchiveLimit) || !strings.Contains(err.Error(), "uploadpack.allowFilter") {
						t.Fatalf("Fetch(%s) = %v, want a limit error of %d bytes that says what to do", src, err, limit)
					}
					t.Logf("error: %v", err)
					emptyTemp(t, tmp)
					return
				}
				if err != nil {
					t.Fatalf("Fetch(%s) = %v", src, err)
				}
				// git archive finds every blob it reads fetched already:
				// the folder's files and the root's .gitattributes.
				before := posts.Load()
				if _, err := io.Copy(io.Discard, rc); err != nil {
					t.Fatal(err)
				}
				rc.Close()
				if n := posts.Load() - before; n != 0 {
					t.Errorf("git archive asked the server %d more times, want none", n)
				}
				// The opener fetches the pin anew, bounded the same way.
				dir, err := cache.Materialize(t.Context(), c.Skill("small", pin))
				if err != nil {
					t.Fatalf("Materialize(%s) = %v", pin, err)
				}
				got, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
				if err != nil || string(got) != skillMD("small", "v1") {
					t.Errorf("materialized SKILL.md = %q, %v, want the skill's", got, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "ignored.txt")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("ignored.txt was materialized (%v), want it left out by the root's export-ignore", err)
				}
				_ = root
				emptyTemp(t, tmp)
			})
		}
	}
}

// TestStallNamesSetting checks that a stalled fetch names the setting that
// gives it longer: WithStallTimeout, or the name WithSettingNames gives it
// (package install's timeout, a command-line tool's flag).
func TestStallNamesSetting(t *testing.T) {
	hermetic(t)
	url := silentServer(t) + "/skills.git"
	for _, tt := range []struct {
		name string
		opts []git.Option
		want string
	}{
		{"this package's names", nil, "give it longer with WithStallTimeout,"},
		{"a caller's names", []git.Option{git.WithSettingNames(map[string]string{git.SettingStallTimeout: "--timeout"})}, "give it longer with --timeout,"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, append(tt.opts, git.WithStallTimeout(200*time.Millisecond))...)
			_, err := c.Resolve(t.Context(), git.Source{URL: url})
			if !errors.Is(err, source.ErrStalled) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Resolve(a silent server) = %v; want ErrStalled saying %q", err, tt.want)
			}
		})
	}
}

// TestAdviceNamesSettings checks that the messages on a missing git and on
// a refused authentication name WithGit and WithHeader by the caller's
// names, and leave the advice out when the caller maps them to "" (its
// user cannot set them).
func TestAdviceNamesSettings(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	srv := httpServer(t, r, "git-secret-token-31337", nil)
	src := git.Source{URL: srv.URL + "/skills.git", Ref: "v1", Path: "skills/review"}
	for _, tt := range []struct {
		name      string
		names     map[string]string
		git, auth string // in the message; "": says no "or"
	}{
		{"this package's names", nil, "or name it with WithGit)", "or pass a header with WithHeader)"},
		{"a caller's names", map[string]string{git.SettingGit: "--git", git.SettingHeader: "--header"}, "or name it with --git)", "or pass a header with --header)"},
		{"settings the caller has not", map[string]string{git.SettingGit: "", git.SettingHeader: ""}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := []git.Option{git.WithSettingNames(tt.names)}
			_, err := git.New(append(opts, git.WithGit(filepath.Join(t.TempDir(), "no-git")))...)
			says(t, "New(no git)", err, "(install git", tt.git)
			_, err = newClient(t, opts...).Resolve(t.Context(), src)
			if !errors.Is(err, source.ErrAuthRequired) {
				t.Fatalf("Resolve(no token) = %v, want %v", err, source.ErrAuthRequired)
			}
			says(t, "Resolve(no token)", err, "(set up a git credential helper", tt.auth)
		})
	}
}

// says checks that err's message holds advice, and then or, or no "or "
// after advice when or is "".
func says(t *testing.T, call string, err error, advice, or string) {
	t.Helper()
	msg := fmt.Sprint(err)
	i := strings.Index(msg, advice)
	switch {
	case i < 0:
		t.Errorf("%s = %v, want it to say %q", call, err, advice)
	case or == "" && strings.Contains(msg[i:], ", or "):
		t.Errorf("%s = %v, want no advice on a setting", call, err)
	case or != "" && !strings.Contains(msg[i:], or):
		t.Errorf("%s = %v, want it to say %q", call, err, or)
	}
}
