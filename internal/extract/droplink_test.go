package extract

import (
	"archive/tar"
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDropLink checks rule 15: with Options.DropLink, a link that rule 8
// refuses is left out, never written or followed, and reported; the rest
// of the archive is written; a write through a dropped link, a name
// clash and the other rules still fail the whole archive.
func TestDropLink(t *testing.T) {
	t.Parallel()
	tars := []struct {
		name    string
		entries []tarEntry
		want    []DroppedLink // nil when the archive must fail
	}{
		{"symlink out", []tarEntry{tSymlink("l", "../victim.txt")}, []DroppedLink{{"l", "../victim.txt", LinkOut}}},
		{"symlink absolute", []tarEntry{tSymlink("l", "$TMP/victim")}, []DroppedLink{{"l", "$TMP/victim", LinkOut}}},
		{"symlink with backslash", []tarEntry{tSymlink("l", `..\victim.txt`)}, []DroppedLink{{"l", `..\victim.txt`, LinkOut}}},
		{"symlink to a folder", []tarEntry{tDir("d/"), tReg("d/f", "x"), tSymlink("l", "d")}, []DroppedLink{{"l", "d", LinkToFolder}}},
		{"symlink to an implied folder", []tarEntry{tReg("d/f", "x"), tSymlink("l", "d")}, []DroppedLink{{"l", "d", LinkToFolder}}},
		{"symlink to the root", []tarEntry{tSymlink("l", ".")}, []DroppedLink{{"l", ".", LinkToFolder}}},
		{"symlink to a symlink", []tarEntry{tSymlink("a", "SKILL.md"), tSymlink("b", "a")}, []DroppedLink{{"b", "a", LinkToLink}}},
		{"symlink to a dropped symlink", []tarEntry{tSymlink("a", "../x"), tSymlink("b", "a")}, []DroppedLink{{"a", "../x", LinkOut}, {"b", "a", LinkToLink}}},
		{"symlink to nothing", []tarEntry{tSymlink("l", "missing.md")}, []DroppedLink{{"l", "missing.md", LinkMissing}}},
		{"symlink to version control", []tarEntry{tReg(".git/config", "x"), tSymlink("l", ".git/config")}, []DroppedLink{{"l", ".git/config", LinkOut}}},
		{"hardlink out", []tarEntry{tLink("h", "../../etc/shadow")}, []DroppedLink{{"h", "../../etc/shadow", LinkOut}}},
		{"hardlink to a folder", []tarEntry{tDir("d/"), tLink("h", "d")}, []DroppedLink{{"h", "d", LinkToFolder}}},
		{"hardlink to nothing", []tarEntry{tLink("h", "missing")}, []DroppedLink{{"h", "missing", LinkMissing}}},
		{"write through a dropped link", []tarEntry{tSymlink("l", "$TMP/victim"), tReg("l/secret.txt", "pwned")}, nil},
		{"fold clash with a dropped link", []tarEntry{tSymlink("tmp", "$TMP"), tReg("Tmp/test-file", "pwned")}, nil},
		{"dropped link then regular", []tarEntry{tLink("x", "missing"), tReg("x", "replaced")}, nil},
		{"device", []tarEntry{tSpecial("null", tar.TypeChar)}, nil},
	}
	for _, tc := range tars {
		for _, format := range []string{"tar", "tar.gz", "zip"} {
			if _, ok := asZip(tc.entries); format == "zip" && !ok {
				continue // hard links and devices: tar only
			}
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				s := newSandbox(t)
				all := []tarEntry{tReg("SKILL.md", skillMD), tReg("keep.md", "kept")}
				for _, e := range tc.entries {
					e.Name, e.Linkname = s.expand(e.Name), s.expand(e.Linkname)
					all = append(all, e)
				}
				data := tarBytes(t, all...)
				switch format {
				case "tar.gz":
					data = gz(t, data)
				case "zip":
					zipped, _ := asZip(all)
					data = zipBytes(t, zipped...)
				}
				var got []DroppedLink
				opts := testOptions()
				opts.DropLink = func(d DroppedLink) { got = append(got, d) }
				_, err := s.extract(t, data, opts)
				s.checkUntouched(t)
				if tc.want == nil {
					if !errors.Is(err, ErrUnsafe) {
						t.Errorf("Archive(%q) with DropLink = %v, want ErrUnsafe", tc.name, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Archive(%q) with DropLink = %v, want the link left out", tc.name, err)
				}
				want := make([]DroppedLink, len(tc.want))
				for i, d := range tc.want {
					want[i] = DroppedLink{Name: d.Name, Target: s.expand(d.Target), Problem: d.Problem}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Archive(%q) dropped (-want +got):\n%s", tc.name, diff)
				}
				for _, d := range got {
					for _, w := range s.written(t) {
						if w == d.Name {
							t.Errorf("Archive(%q) wrote the dropped link %s", tc.name, d.Name)
						}
					}
				}
				if w := s.written(t); !slices.Contains(w, "keep.md") || !slices.Contains(w, "SKILL.md") {
					t.Errorf("Archive(%q) wrote %q, want the other files", tc.name, s.written(t))
				}
				// Without DropLink the same archive fails whole (rule 8).
				if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), nil, testOptions()); !errors.Is(err, ErrUnsafe) {
					t.Errorf("Archive(%q) without DropLink = %v, want ErrUnsafe", tc.name, err)
				}
			})
		}
	}
}

// asZip returns tar entries as zip entries, reporting whether zip can
// hold them all (regular files, folders and symbolic links).
func asZip(entries []tarEntry) ([]zipEntry, bool) {
	var out []zipEntry
	for _, e := range entries {
		switch e.Typeflag {
		case tar.TypeReg:
			out = append(out, zFile(e.Name, e.body))
		case tar.TypeDir:
			out = append(out, zDir(e.Name))
		case tar.TypeSymlink:
			out = append(out, zSymlink(e.Name, e.Linkname))
		default:
			return nil, false
		}
	}
	return out, true
}
