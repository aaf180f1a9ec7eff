package github_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// TestRemote checks the source.Remote of a web address whose ref holds
// "/": Open at the pin reads the folder as Resolve split ref and path,
// within narrows it, and a bad option fails each call.
func TestRemote(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	src, err := github.Parse("https://github.com/o/r/tree/feature/x/skills/pdf")
	if err != nil {
		t.Fatal(err)
	}
	r := github.NewRemote(src, github.WithAPIURL(f.api.URL), github.WithToken(""))
	if got := r.Repository(); got != "github:o/r" {
		t.Errorf("Repository() = %q, want github:o/r", got)
	}
	pin, err := r.Resolve(t.Context())
	if err != nil || pin != commitC {
		t.Fatalf("Resolve = %q, %v; want %s", pin, err, commitC)
	}
	for _, tt := range []struct{ within, subpath string }{{"", "skills/pdf"}, {"skills/docx", "skills/docx"}} {
		var progress bytes.Buffer
		a, err := r.Open(t.Context(), pin, tt.within, &progress)
		if err != nil {
			t.Fatalf("Open(%s, %q) = %v", pin, tt.within, err)
		}
		data, err := io.ReadAll(a)
		a.Close()
		if err != nil || len(data) == 0 || !bytes.Equal(progress.Bytes(), data) {
			t.Errorf("Open(%s, %q) read %d bytes (%v), progress %d; want them all in progress", pin, tt.within, len(data), err, progress.Len())
		}
		if a.Format != skill.FormatTar || a.Subpath != tt.subpath {
			t.Errorf("Open(%s, %q) = %v at %q, want tar at %q", pin, tt.within, a.Format, a.Subpath, tt.subpath)
		}
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	bad := github.NewRemote(src, github.WithAPIURL("ftp://api.example.com"))
	if _, err := bad.Resolve(t.Context()); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Resolve with a bad API address = %v, want %v", err, source.ErrInvalid)
	}
	if _, err := bad.Open(t.Context(), commitA, "", nil); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Open with a bad API address = %v, want %v", err, source.ErrInvalid)
	}
	if _, err := r.Open(t.Context(), "not-a-commit", "", nil); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Open of a pin that is no commit = %v, want %v", err, source.ErrInvalid)
	}
}
