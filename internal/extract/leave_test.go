package extract

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestLeave checks rule 16: with Options.Leave, the files and links it
// names are not written, shown or returned, and no folder is made for
// them, whatever the format; they still count against the limits and
// the rules; a written link to a file left out fails the archive.
func TestLeave(t *testing.T) {
	t.Parallel()
	leave := func(rel string) bool { return strings.HasPrefix(rel, "docs/") }
	entries := []tarEntry{
		tReg("SKILL.md", skillMD),
		tReg("docs/a.md", "left"),
		tReg("docs/deep/b.md", "left too"),
		tSymlink("docs/link.md", "../SKILL.md"),
		tReg("scripts/run.sh", "kept"),
	}
	for _, format := range []string{"tar", "tar.gz", "zip"} {
		t.Run(format, func(t *testing.T) {
			data := tarBytes(t, entries...)
			switch format {
			case "tar.gz":
				data = gz(t, data)
			case "zip":
				zipped, _ := asZip(entries)
				data = zipBytes(t, zipped...)
			}
			s := newSandbox(t)
			opts := testOptions()
			opts.Leave = leave
			shown := newShown()
			opts.Content = shown.content
			files, err := s.extract(t, data, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
			}
			slices.Sort(got)
			if want := []string{"SKILL.md", "scripts/run.sh"}; !slices.Equal(got, want) {
				t.Errorf("Archive with Leave returned %q, want %q", got, want)
			}
			if w := s.written(t); slices.ContainsFunc(w, func(p string) bool { return strings.HasPrefix(p, "docs") }) {
				t.Errorf("Archive with Leave wrote %q, want nothing under docs", w)
			}
			for rel := range shown.closed {
				if leave(rel) {
					t.Errorf("Archive with Leave showed %s", rel)
				}
			}

			// A file left out still counts against the total.
			opts = testOptions()
			opts.Leave = leave
			opts.MaxTotalSize = int64(len(skillMD) + len("kept") + 2)
			if _, err := newSandbox(t).extract(t, data, opts); !errors.Is(err, ErrLimit) {
				t.Errorf("Archive with Leave, over the total only with the files left out = %v, want ErrLimit", err)
			}
		})
	}
	// A written link to a file left out fails.
	data := tarBytes(t, tReg("SKILL.md", skillMD), tReg("docs/a.md", "left"), tSymlink("see.md", "docs/a.md"))
	opts := testOptions()
	opts.Leave = leave
	if _, err := newSandbox(t).extract(t, data, opts); err == nil {
		t.Errorf("Archive with Leave, a written link to a file left out = nil error")
	}
}
