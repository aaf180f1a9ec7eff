package extract

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"
)

// TestLeftOut checks rule 14's names: every version-control folder, in
// any ASCII case, and nothing that merely looks like one.
func TestLeftOut(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{".git", true},
		{".GIT", true},
		{".Git/config", true},
		{"docs/.git", true},
		{"a/b/.hg/hgrc", true},
		{".svn/wc.db", true},
		{".jj/repo/config.toml", true},
		{".bzr", true},
		{"_darcs/prefs", true},
		{".pijul", true},
		{".fslckout", true},
		{"_FOSSIL_", true},
		{"SKILL.md", false},
		{".gitignore", false},
		{".github/workflows/x.yml", false},
		{"git", false},
		{"docs/.gitkeep", false},
		{".git-hooks/pre-commit", false},
		{"a.git/b", false},
	}
	for _, tt := range tests {
		if got := LeftOutPath(tt.path); got != tt.want {
			t.Errorf("LeftOutPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestArchiveLeavesOutVersionControl checks rule 14 in an archive: the
// entries are not written, still count against the entry limit, and a
// link to a file under them fails as a link out of the skill.
func TestArchiveLeavesOutVersionControl(t *testing.T) {
	build := func(extra ...*tar.Header) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		write := func(h *tar.Header, body string) {
			h.Size = int64(len(body))
			if h.Typeflag == 0 {
				h.Typeflag = tar.TypeReg
			}
			if h.Mode == 0 {
				h.Mode = 0o644
			}
			tw.WriteHeader(h)
			tw.Write([]byte(body))
		}
		write(&tar.Header{Name: "SKILL.md"}, skillMD)
		write(&tar.Header{Name: ".git/config"}, "[core]\n\tfsmonitor = touch /tmp/pwned\n")
		write(&tar.Header{Name: "ref/.hg/hgrc"}, "[hooks]\n")
		write(&tar.Header{Name: "ref/a.md"}, "a\n")
		for _, h := range extra {
			tw.WriteHeader(h)
		}
		tw.Close()
		return buf.Bytes()
	}

	data := build()
	dst, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), dst, testOptions())
	if err != nil {
		t.Fatalf("Archive = %v", err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	slices.Sort(got)
	if want := []string{"SKILL.md", "ref/a.md"}; !slices.Equal(got, want) {
		t.Errorf("Archive wrote %q, want %q", got, want)
	}
	for _, p := range []string{".git", "ref/.hg"} {
		if _, err := dst.Lstat(p); err == nil {
			t.Errorf("Archive created %s", p)
		}
	}

	opts := testOptions()
	opts.MaxArchiveEntries = 5 // SKILL.md, .git, .git/config, ref, ref/.hg, ref/.hg/hgrc, ref/a.md: 7
	if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), nil, opts); !errors.Is(err, ErrLimit) {
		t.Errorf("Archive(7 entries, limit 5) = %v, want ErrLimit", err)
	}

	link := build(&tar.Header{Name: "config", Typeflag: tar.TypeSymlink, Linkname: ".git/config"})
	if _, err := Archive(t.Context(), bytes.NewReader(link), int64(len(link)), nil, testOptions()); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Archive(link to .git/config) = %v, want ErrUnsafe", err)
	}
}
