//go:build unix

package git_test

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestWholeRepositoryOneFetch checks rule 8 for a source without a
// folder, every file of which is read: Fetch and the pin's Opener each
// make one fetch, without the blob filter, and run neither the listing
// of missing blobs nor their second fetch, and the archive holds every
// file; a source with a folder still fetches filtered.
func TestWholeRepositoryOneFetch(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	gitIn(t, r.bare, "config", "uploadpack.allowFilter", "true")
	for _, c := range []struct {
		path   string
		filter bool
		files  []string
	}{
		{"", false, []string{"SKILL.md", "docs/other.md", "skills/review/SKILL.md", "skills/review/scripts/check.sh"}},
		{"skills/review", true, []string{"skills/review/SKILL.md", "skills/review/notes.md"}},
	} {
		t.Run("path="+c.path, func(t *testing.T) {
			program, log := wrapper(t, "")
			tmp := t.TempDir()
			cl := newClient(t, git.WithGit(program), git.WithTempDir(tmp))
			text := r.fileURL() + "#ref=main"
			if c.path != "" {
				text += "&path=" + c.path
			}
			src, err := git.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			pin, rc, err := cl.Fetch(t.Context(), src)
			if err != nil {
				t.Fatal(err)
			}
			names := tarNames(t, rc)
			rc.Close()
			open, err := cl.Opener(pin)(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if opened := tarNames(t, open); strings.Join(opened, ",") != strings.Join(names, ",") {
				t.Errorf("the Opener's archive holds %q, Fetch's %q", opened, names)
			}
			open.Close()
			for _, f := range c.files {
				if !strings.Contains(","+strings.Join(names, ",")+",", ","+f+",") {
					t.Errorf("the archive lacks %s: %q", f, names)
				}
			}
			data, _ := os.ReadFile(log)
			var fetches, filtered int
			for _, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(line, "ARGS fetch ") {
					fetches++
					if strings.Contains(line, "--filter=") {
						filtered++
					}
				}
			}
			if c.filter {
				if filtered == 0 {
					t.Errorf("the fetches of a folder are not filtered:\n%s", data)
				}
				return
			}
			if fetches != 2 || filtered != 0 || strings.Contains(string(data), "ARGS rev-list") || strings.Contains(string(data), "ARGS config") {
				t.Errorf("Fetch and Opener of the whole repository ran, want one unfiltered fetch each and nothing else:\n%s", data)
			}
			emptyTemp(t, tmp)
		})
	}
}

// TestWholeRepositoryBounded checks rule 12 for a fetch without the
// filter: a repository holding a 20 MiB file, read whole under a 1 MiB
// archive size limit, fails at the limit even from a server that
// filters.
func TestWholeRepositoryBounded(t *testing.T) {
	hermetic(t)
	r := bigRepo(t, 20<<20)
	gitIn(t, r.bare, "config", "uploadpack.allowFilter", "true")
	tmp := t.TempDir()
	cache, _ := materializer(t, skill.WithMaxArchiveSize(1<<20))
	c := newClient(t, git.WithTempDir(tmp), git.WithCache(cache))
	src, err := git.Parse(r.fileURL())
	if err != nil {
		t.Fatal(err)
	}
	if _, rc, err := c.Fetch(t.Context(), src); !errors.Is(err, skill.ErrArchiveLimit) {
		if rc != nil {
			rc.Close()
		}
		t.Fatalf("Fetch of the whole repository = %v, want skill.ErrArchiveLimit", err)
	}
	emptyTemp(t, tmp)
}

// tarNames reads the archive r and returns the names of its files.
func tarNames(t *testing.T, r io.Reader) []string {
	t.Helper()
	var names []string
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			names = append(names, h.Name)
		}
	}
}
