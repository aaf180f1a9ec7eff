package git_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestRemote checks the source.Remote of a git source: Open reads what
// Resolve fetched, a later Open (another commit, a folder within) fetches
// anew, Close removes what was kept, and a missing git fails each call.
func TestRemote(t *testing.T) {
	hermetic(t)
	repo := newRepo(t)
	src, err := git.Parse(repo.fileURL() + "#ref=main&path=skills/review")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	r := git.NewRemote(src, git.WithTempDir(tmp))
	if got, want := r.Repository(), "git:"+src.URL; got != want {
		t.Errorf("Repository() = %q, want %q", got, want)
	}
	pin, err := r.Resolve(t.Context())
	if err != nil || pin != repo.main {
		t.Fatalf("Resolve = %q, %v; want %s", pin, err, repo.main)
	}
	for _, tt := range []struct{ pin, within, subpath string }{
		{pin, "", "skills/review"},
		{pin, "skills/review/scripts", "skills/review/scripts"},
		{repo.v1, "", "skills/review"},
	} {
		var progress bytes.Buffer
		a, err := r.Open(t.Context(), tt.pin, tt.within, &progress)
		if err != nil {
			t.Fatalf("Open(%s, %q) = %v", tt.pin, tt.within, err)
		}
		data, err := io.ReadAll(a)
		a.Close()
		if err != nil || len(data) == 0 || !bytes.Equal(progress.Bytes(), data) {
			t.Errorf("Open(%s, %q) read %d bytes (%v), progress %d; want them all in progress", tt.pin, tt.within, len(data), err, progress.Len())
		}
		if a.Format != skill.FormatTar || a.Subpath != tt.subpath {
			t.Errorf("Open(%s, %q) = %v at %q, want tar at %q", tt.pin, tt.within, a.Format, a.Subpath, tt.subpath)
		}
	}
	if _, err := r.Resolve(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	emptyTemp(t, tmp)
	if got := git.NewRemote(git.Source{URL: "https://token1234@git.example.com/r.git"}).Repository(); got != "git:https://git.example.com/r.git" {
		t.Errorf("Repository() of a URL with a user = %q, want it without", got)
	}
	missing := git.NewRemote(src, git.WithGit("no-such-git-program"))
	if _, err := missing.Resolve(t.Context()); err == nil {
		t.Error("Resolve without git succeeded")
	}
	if _, err := missing.Open(t.Context(), pin, "", nil); err == nil {
		t.Error("Open without git succeeded")
	}
}

// TestRemoteLookUp checks that LookUp resolves the ref as Resolve does,
// keeps nothing in the temporary folder, that Open then reads the
// folder at that commit, and that a missing git or ref fails it.
func TestRemoteLookUp(t *testing.T) {
	hermetic(t)
	repo := newRepo(t)
	src, err := git.Parse(repo.fileURL() + "#ref=main&path=skills/review")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	r := git.NewRemote(src, git.WithTempDir(tmp))
	pin, err := r.LookUp(t.Context())
	if err != nil || pin != repo.main {
		t.Fatalf("LookUp = %q, %v; want %s", pin, err, repo.main)
	}
	emptyTemp(t, tmp)
	a, err := r.Open(t.Context(), pin, "", nil)
	if err != nil {
		t.Fatalf("Open after LookUp = %v", err)
	}
	data, err := io.ReadAll(a)
	a.Close()
	if err != nil || len(data) == 0 || a.Subpath != "skills/review" {
		t.Errorf("Open after LookUp read %d bytes (%v) at %q", len(data), err, a.Subpath)
	}
	r.Close()
	emptyTemp(t, tmp)
	bad, err := git.Parse(repo.fileURL() + "#ref=no-such-branch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git.NewRemote(bad, git.WithTempDir(tmp)).LookUp(t.Context()); err == nil {
		t.Error("LookUp of a missing ref succeeded")
	}
	if _, err := git.NewRemote(src, git.WithGit("no-such-git-program")).LookUp(t.Context()); err == nil {
		t.Error("LookUp without git succeeded")
	}
}
