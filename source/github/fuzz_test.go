package github_test

import (
	"archive/tar"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source/github"
)

// FuzzParse checks that Parse never panics and that what it accepts
// prints in a form it reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"o/r", "o/r/a/b@main", "o/r@feature/x", "https://github.com/o/r/tree/main/a",
		"https://github.com/o/r.git", "o/r/../x", "o/r@a..b", "https://user@github.com/o/r", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		src, err := github.Parse(text)
		if err != nil {
			return
		}
		back, err := github.Parse(src.String())
		if err != nil || back.Owner != src.Owner || back.Repo != src.Repo || back.Path != src.Path || back.Ref != src.Ref {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", src.String(), back, err, src)
		}
	})
}

// FuzzOpener feeds arbitrary bytes through the opener as a tarball: it
// must never panic, and whatever it passes on stays under the folder.
func FuzzOpener(f *testing.F) {
	f.Add(repoTarball(f, top, commitA, pdfSkill(entry{name: "skills/pdf/x.sh", body: "#!/bin/sh\n", mode: 0o755})...))
	f.Add(repoTarball(f, top, "", pdfSkill(entry{name: "skills/pdf/l", typ: tar.TypeSymlink, link: "SKILL.md"})...))
	f.Add([]byte("not gzip"))
	fake := newFake(f)
	fake.repos["o/r"] = true
	var data []byte
	fake.hook = func(w http.ResponseWriter, r *http.Request) bool {
		w.Write(data)
		return true
	}
	c := fake.client(f)
	pin := github.Pin{Source: github.Source{Owner: "o", Repo: "r", Path: "skills/pdf"}, Commit: commitA}
	f.Fuzz(func(t *testing.T, in []byte) {
		data = in
		rc, err := c.Opener(pin)(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		out, _ := io.ReadAll(rc)
		for name := range tarNames(out) {
			if name != "skills/pdf/" && !strings.HasPrefix(name, "skills/pdf/") {
				t.Errorf("opener passed on %q, outside skills/pdf", name)
			}
		}
	})
}

// tarNames yields the names of a tar's entries, stopping at the first
// error.
func tarNames(data []byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		tr := tar.NewReader(bytes.NewReader(data))
		for {
			h, err := tr.Next()
			if err != nil || !yield(h.Name) {
				return
			}
		}
	}
}
