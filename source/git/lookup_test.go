package git_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestLookUpAsResolve checks rule 7's lookup: LookUp gives the commit
// Resolve fetches for every kind of ref (a branch, an annotated tag, a
// ref holding "/", a full name, the default branch, a commit id, a
// version range, and a name that is both a tag and a branch, where git
// fetch takes the tag), and the same Version for a range; a ref the
// remote lacks fails with source.ErrNotFound.
func TestLookUpAsResolve(t *testing.T) {
	hermetic(t)
	repo := newRepo(t)
	// "both" is a branch at main and an annotated tag at v1.
	gitIn(t, repo.bare, "branch", "both", repo.main)
	gitIn(t, repo.bare, "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "-m", "both", "both", repo.v1)
	gitIn(t, repo.bare, "tag", "v1.2.0", repo.v1) // for the range ^1
	for _, ref := range []string{"main", "v1", "feature/x", "refs/heads/main", "", repo.v1, strings.ToUpper(repo.feature), "^1", "both"} {
		t.Run(ref, func(t *testing.T) {
			text := repo.fileURL()
			if ref != "" {
				text += "#ref=" + strings.ReplaceAll(ref, "^", "%5E")
			}
			src, err := git.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			resolver := git.NewRemote(src, git.WithTempDir(t.TempDir()))
			want, werr := resolver.Resolve(t.Context())
			resolver.Close()
			tmp := t.TempDir()
			r := git.NewRemote(src, git.WithTempDir(tmp))
			got, err := r.LookUp(t.Context())
			if err != nil || werr != nil || got != want {
				t.Fatalf("LookUp = %q, %v; Resolve = %q, %v", got, err, want, werr)
			}
			if r.Version() != resolver.Version() {
				t.Errorf("LookUp's Version = %q, Resolve's %q", r.Version(), resolver.Version())
			}
			emptyTemp(t, tmp)
		})
	}
	src, err := git.Parse(repo.fileURL() + "#ref=no-such-branch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git.NewRemote(src, git.WithTempDir(t.TempDir())).LookUp(t.Context()); !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), "no-such-branch") {
		t.Errorf("LookUp of a missing ref = %v, want source.ErrNotFound naming it", err)
	}
}

// TestLookUpFetchesNothing checks that LookUp over smart HTTP asks the
// server for its refs alone: the advertisement (GET info/refs) and, in
// git's protocol version 2, the ls-refs command, never a fetch command,
// whatever the folder holds.
func TestLookUpFetchesNothing(t *testing.T) {
	hermetic(t)
	repo := newRepo(t)
	var mu sync.Mutex
	var commands []string
	srv := httpServer(t, repo, "", func(req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		commands = append(commands, requestCommand(t, req))
	})
	src, err := git.Parse("git+" + srv.URL + "/skills.git#ref=main&path=skills/review")
	if err != nil {
		t.Fatal(err)
	}
	r := git.NewRemote(src, git.WithTempDir(t.TempDir()))
	if got, err := r.LookUp(t.Context()); err != nil || got != repo.main {
		t.Fatalf("LookUp = %q, %v; want %s", got, err, repo.main)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(commands) == 0 {
		t.Fatal("the server saw no request")
	}
	for _, c := range commands {
		if c != "info/refs" && c != "ls-refs" {
			t.Errorf("LookUp asked the server for %q; want only the refs (%q)", c, commands)
		}
	}
}

// requestCommand names what a smart-HTTP request of git asks: "info/refs"
// for the advertisement, the command of a protocol version 2 request
// ("ls-refs", "fetch"), or "pack" for a version 0 request for a pack. It
// puts the body back for the server.
func requestCommand(t *testing.T, req *http.Request) string {
	if req.Method == http.MethodGet {
		if strings.HasSuffix(req.URL.Path, "/info/refs") {
			return "info/refs"
		}
		return "GET " + req.URL.Path
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Error(err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	text := body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			text, err = io.ReadAll(zr)
		}
		if err != nil {
			t.Error(err)
		}
	}
	if _, after, ok := bytes.Cut(text, []byte("command=")); ok {
		for _, cmd := range []string{"ls-refs", "fetch", "object-info"} {
			if bytes.HasPrefix(after, []byte(cmd)) {
				return cmd
			}
		}
		return "command " + string(after[:min(len(after), 20)])
	}
	return "pack"
}
