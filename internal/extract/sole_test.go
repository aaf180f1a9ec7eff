package extract

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSoleFolder checks rule 17 on listings of a root.
func TestSoleFolder(t *testing.T) {
	type entry struct {
		name string
		dir  bool
	}
	tests := []struct {
		entries []entry
		want    string
	}{
		{[]entry{{"kit", true}}, "kit"},
		{[]entry{{".git", true}, {"kit", true}}, "kit"},
		{[]entry{{"kit", true}, {".HG", false}}, "kit"},
		{nil, ""},
		{[]entry{{"kit", false}}, ""},
		{[]entry{{"kit", true}, {"other", true}}, ""},
		{[]entry{{"README.md", false}, {"kit", true}}, ""},
		{[]entry{{"kit", true}, {"SKILL.md", false}}, ""},
		{[]entry{{".git", true}}, ""},
	}
	for _, tt := range tests {
		got := SoleFolder(func(yield func(string, bool) bool) {
			for _, e := range tt.entries {
				if !yield(e.name, e.dir) {
					return
				}
			}
		})
		if got != tt.want {
			t.Errorf("SoleFolder(%v) = %q, want %q", tt.entries, got, tt.want)
		}
	}
}

// TestWrapped checks rule 13's archive of one folder in each way an
// archive is read (zip, tar in one pass, tar.gz in two): the files come
// back relative to the folder, which is written under the root as the
// archive names it, and Wrapped hears its name only on success; without
// Wrapped, with a subpath, or listing several skills (AnyTree), the
// archive reads as before. Hostile shapes fail and leave nothing behind.
func TestWrapped(t *testing.T) {
	one := []tarEntry{tDir("kit/"), tReg("kit/SKILL.md", skillMD), tExec("kit/scripts/run.sh", "echo\n")}
	wrappedOpts := func(got *string) Options {
		o := testOptions()
		o.Wrapped = func(f string) {
			if *got != "" {
				t.Errorf("Wrapped called twice: %q, then %q", *got, f)
			}
			*got = f
		}
		return o
	}
	for _, format := range []string{"zip", "tar", "tar.gz", "tar.gz twice"} {
		t.Run(format, func(t *testing.T) {
			build := func(entries ...tarEntry) []byte {
				switch format {
				case "zip":
					var z []zipEntry
					for _, e := range entries {
						switch e.Typeflag {
						case 0, '0':
							f := zFile(e.Name, e.body)
							if e.Mode&0o111 != 0 {
								f.SetMode(0o755)
							}
							z = append(z, f)
						case '5':
							d := zFile(e.Name, "")
							d.SetMode(os.ModeDir | 0o755)
							z = append(z, d)
						default:
							return nil // links: the tar cases cover them
						}
					}
					return zipBytes(t, z...)
				case "tar":
					return tarBytes(t, entries...)
				}
				return gz(t, tarBytes(t, entries...))
			}
			extract := func(data []byte, opts Options) (map[string]bool, []File, error) {
				dst := t.TempDir()
				root, err := os.OpenRoot(dst)
				if err != nil {
					t.Fatal(err)
				}
				defer root.Close()
				opts.Format = strings.TrimSuffix(format, " twice")
				if format == "tar.gz twice" {
					opts.Scratch = func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "scratch") }
				}
				files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts)
				written := map[string]bool{}
				filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						rel, _ := filepath.Rel(dst, p)
						written[filepath.ToSlash(rel)] = true
					}
					return nil
				})
				return written, files, err
			}
			paths := func(files []File) []string {
				var out []string
				for _, f := range files {
					out = append(out, f.Path)
				}
				slices.Sort(out)
				return out
			}

			var folder string
			written, files, err := extract(build(one...), wrappedOpts(&folder))
			if err != nil || folder != "kit" {
				t.Fatalf("Archive(one folder, Wrapped) = %v, folder %q; want folder kit", err, folder)
			}
			if got, want := paths(files), []string{"SKILL.md", "scripts/run.sh"}; !slices.Equal(got, want) {
				t.Errorf("Archive(one folder) files = %v, want %v", got, want)
			}
			if got, want := slices.Sorted(maps.Keys(written)), []string{"kit/SKILL.md", "kit/scripts/run.sh"}; !slices.Equal(got, want) {
				t.Errorf("Archive(one folder) wrote %v, want %v", got, want)
			}
			for _, f := range files {
				if f.Path == "scripts/run.sh" && !f.Exec {
					t.Errorf("scripts/run.sh lost its executable bit")
				}
			}

			// Implied folders, "./" names and .git beside it are the same.
			folder = ""
			if _, _, err := extract(build(tReg("./kit/SKILL.md", skillMD), tReg(".git/config", "[core]\n")), wrappedOpts(&folder)); err != nil || folder != "kit" {
				t.Errorf("Archive(./kit/SKILL.md beside .git) = %v, folder %q; want folder kit", err, folder)
			}

			// Without Wrapped, with a subpath, or with AnyTree, as before.
			if _, _, err := extract(build(one...), testOptions()); !errors.Is(err, ErrFormat) || !strings.HasSuffix(err.Error(), "no SKILL.md file at the archive root") {
				t.Errorf("Archive(one folder) without Wrapped = %v, want ErrFormat", err)
			}
			folder = ""
			sub := wrappedOpts(&folder)
			sub.Subpath = "kit"
			if _, files, err := extract(build(one...), sub); err != nil || folder != "" || !slices.Equal(paths(files), []string{"SKILL.md", "scripts/run.sh"}) {
				t.Errorf("Archive(one folder, subpath kit) = %v, %v, folder %q; want the skill, Wrapped not called", paths(files), err, folder)
			}
			any := wrappedOpts(&folder)
			any.AnyTree = true
			if _, files, err := extract(build(one...), any); err != nil || folder != "" || !slices.Equal(paths(files), []string{"kit/SKILL.md", "kit/scripts/run.sh"}) {
				t.Errorf("Archive(one folder, AnyTree) = %v, %v, folder %q; want the archive's names, Wrapped not called", paths(files), err, folder)
			}
			// A root with SKILL.md is the skill, whatever else it holds.
			if _, files, err := extract(build(append(one, tReg("SKILL.md", skillMD))...), wrappedOpts(&folder)); err != nil || folder != "" || len(files) != 3 {
				t.Errorf("Archive(SKILL.md at the root beside kit) = %v, %v, folder %q; want the root's skill", paths(files), err, folder)
			}

			for _, tt := range []struct {
				name    string
				entries []tarEntry
				kind    error
				says    string
			}{
				{"two folders", append(slices.Clone(one), tReg("other/SKILL.md", skillMD)), ErrFormat, "nor is the root one folder that holds it"},
				{"a file and a folder", append(slices.Clone(one), tReg("README.md", "hi\n")), ErrFormat, "nor is the root one folder that holds it"},
				{"a folder without SKILL.md", []tarEntry{tReg("kit/docs/SKILL.md", skillMD)}, ErrFormat, `nor in "kit", its one folder`},
				{"a link as the folder", []tarEntry{tSymlink("kit", "elsewhere"), tReg("kit/SKILL.md", skillMD)}, ErrUnsafe, "is both a file and a folder"},
				{"a link alone", []tarEntry{tSymlink("kit", "../outside")}, ErrUnsafe, "leaves the skill"},
				{"a link out of the folder", append(slices.Clone(one), tSymlink("kit/up", "../../etc/passwd")), ErrUnsafe, "leaves the skill"},
			} {
				data := build(tt.entries...)
				if data == nil {
					continue
				}
				folder = ""
				written, _, err := extract(data, wrappedOpts(&folder))
				if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.says) || folder != "" || len(written) > 0 {
					t.Errorf("Archive(%s) = %v, folder %q, wrote %v; want %v saying %q, nothing written", tt.name, err, folder, written, tt.kind, tt.says)
				}
			}
		})
	}
}
