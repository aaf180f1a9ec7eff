package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// pathOf returns a path of exactly n bytes made of elements of at most 255
// bytes, so only the total length is at stake.
func pathOf(n int) string {
	var elems []string
	for n > 0 {
		l := min(n, MaxNameLen)
		if n > l && n-l < 2 {
			l = n - 2 // leave room for "/" and a one-byte element
		}
		elems = append(elems, strings.Repeat("p", l))
		n -= l
		if n > 0 {
			n-- // the slash
		}
	}
	return strings.Join(elems, "/")
}

func TestCheckPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ok   bool
	}{
		// Rule 1: relative, slash-separated, no empty, "." or ".." elements.
		{"SKILL.md", true},
		{"scripts/run.sh", true},
		{"a/b/c/d.txt", true},
		{"", false},
		{".", false},
		{"..", false},
		{"./a", false}, // the extractor strips "./" before checking; CheckPath does not
		{"a/", false},
		{"/a", false},
		{"/", false},
		{"a//b", false},
		{"a/./b", false},
		{"a/../b", false},
		{"../a", false},
		{"a/..", false},
		{".hidden", true},
		{"a/.b", true},
		{"...x", true},

		// Rule 2: no control characters, backslashes or colons.
		{"a\x00b", false},
		{"a\x01b", false},
		{"a\tb", false},
		{"a\nb", false},
		{"a\rb", false},
		{"a\x1fb", false},
		{"a\x7fb", false},
		{"a\x20b", true}, // space, the first byte past the control range
		{`a\b`, false},
		{`..\..\x`, false},
		{`C:\x`, false},
		{"C:x", false},
		{"a:b", false},
		{"file.txt:stream", false},
		{"\xff", false}, // not UTF-8

		// Rule 3: the portable set, no leading space, no trailing dot or space.
		{"a b", true},
		{"!#$%&()+,-.=@[]^_{}~", true},
		{"a*b", false},
		{"a?b", false},
		{"a<b", false},
		{"a>b", false},
		{"a|b", false},
		{`a"b`, false},
		{"a'b", false},
		{"a`b", false},
		{"a;b", false},
		{"caf\u00e9", true},            // NFC é is a letter
		{"cafe\u0301", false},          // NFD: a combining mark
		{"日本語", true},                  // letters of another script
		{"Привет", true},               // Cyrillic
		{"a\u00a0b", false},            // no-break space
		{"a\u200bb", false},            // zero-width space
		{"a\u202eb", false},            // right-to-left override
		{"a\ufeffb", false},            // byte order mark
		{"a\uff0fb", false},            // fullwidth solidus
		{"a\u2215b", false},            // division slash
		{"a\u20acb", false},            // euro sign: a symbol, not a letter
		{"a\U0001F600b", false},        // emoji
		{"\u212Aelvin", true},          // Kelvin sign is a letter; it folds to k
		{"\ufb01le", true},             // ligature fi is a letter; it folds to fi
		{"foo.", false},                // trailing dot
		{"foo ", false},                // trailing space
		{"foo..", false},               // trailing dots
		{"dir./x", false},              // trailing dot inside
		{"dir /x", false},              // trailing space inside
		{" foo", false},                // leading space
		{"a/ b", false},                // leading space inside
		{"foo.txt", true},              // an inner dot
		{"foo .txt", true},             // an inner space
		{"COM1.", false},               // trailing dot on a reserved name
		{"a.b.c", true},                // several inner dots
		{"a-b_c~d", true},              // marks that are allowed
		{"x~", true},                   // a tilde at the end is not a short name
		{"~", true},                    // nor a lone tilde
		{"foo~bar", true},              // nor a tilde followed by letters
		{"x~1a", true},                 // nor by digits then a letter
		{"GIT~1", false},               // 8.3 short name
		{"git~1", false},               // in any case
		{"PROGRA~12.txt", false},       // with more digits and an extension
		{"~1", false},                  // with nothing before the tilde
		{"dir/GIT~1/config", false},    // as a folder
		{"COM¹", false},                // superscript one is not a letter, nor allowed
		{"LPT²", false},                // superscript two
		{"COM³.txt", false},            // superscript three
		{"COM\u2074", false},           // superscript four: not a letter either
		{"\u00b9", false},              // superscript one alone
		{"n\u0303", false},             // NFD ñ
		{"\u00f1", true},               // NFC ñ
		{"\u0130stanbul", true},        // dotted capital I is a letter
		{"i\u0307stanbul", false},      // i and a combining dot above
		{"\u00df", true},               // sharp s
		{"\u03a3\u03b1\u03c2", true},   // Greek with final sigma
		{"\u0661\u0662", false},        // Arabic-Indic digits are not letters
		{"\u4e00/\u4e01", true},        // CJK folders
		{"\u3000", false},              // ideographic space
		{"a\u2028b", false},            // line separator
		{"a\u0085b", false},            // next line, a C1 control
		{"a\u009bb", false},            // CSI, a C1 control
		{"e\u0301\u0301\u0301", false}, // stacked combining marks

		// Rule 4: Windows device names, with or without an extension, in
		// any case, and their aliases.
		{"CON", false},
		{"con", false},
		{"Con.txt", false},
		{"PRN", false},
		{"AUX", false},
		{"aux.c", false},
		{"NUL", false},
		{"nul.txt", false},
		{"nul.tar.gz", false},
		{"COM0", false},
		{"COM1", false},
		{"com9.log", false},
		{"LPT1", false},
		{"lpt9.txt", false},
		{"CONIN$", false},
		{"conin$.txt", false},
		{"CONOUT$", false},
		{"docs/CON", false},
		{"CON/x", false},
		{"CON .txt", false}, // Windows trims the space before the extension
		{"CONSOLE", true},
		{"CONIN", true},
		{"CONIN$x", true},
		{"COM", true},
		{"COM10", true},
		{"COMA", true},
		{"LPT", true},
		{"nul_", true},
		{"auxiliary", true},
		{"prn-notes.md", true},
		{"xCON", true},

		// Rule 5: element, path and depth limits, both sides.
		{strings.Repeat("e", MaxNameLen), true},
		{strings.Repeat("e", MaxNameLen+1), false},
		{"d/" + strings.Repeat("e", MaxNameLen), true},
		{"d/" + strings.Repeat("e", MaxNameLen+1), false},
		{strings.Repeat("é", 127) + "e", true},         // 255 bytes of two-byte letters
		{strings.Repeat("é", 128), false},              // 256 bytes
		{pathOf(MaxPathLen), true},                     // exactly the path limit
		{pathOf(MaxPathLen + 1), false},                // one byte over
		{strings.Repeat("d/", MaxDepth-1) + "f", true}, // exactly the depth limit
		{strings.Repeat("d/", MaxDepth) + "f", false},  // one level too deep
		{strings.Repeat("d/", 3000) + "f", false},      // far too deep, and too long
		{strings.Repeat("a", 65535), false},            // the longest zip name
		{strings.Repeat("abcdefg/", 128) + "x", false}, // 1025 bytes
	}
	for _, tc := range cases {
		t.Run(short(tc.name), func(t *testing.T) {
			err := CheckPath(tc.name)
			if tc.ok && err != nil {
				t.Errorf("CheckPath(%q) = %v, want nil", short(tc.name), err)
			}
			if !tc.ok && !errors.Is(err, ErrUnsafe) {
				t.Errorf("CheckPath(%q) = %v, want %v", short(tc.name), err, ErrUnsafe)
			}
			for _, other := range []error{ErrFormat, ErrLimit} {
				if errors.Is(err, other) {
					t.Errorf("CheckPath(%q) = %v, which wraps %v, want only %v", short(tc.name), err, other, ErrUnsafe)
				}
			}
		})
	}
}

// TestPathOf checks the helper that builds paths of an exact length.
func TestPathOf(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 255, 256, 257, 511, 512, MaxPathLen, MaxPathLen + 1} {
		p := pathOf(n)
		if len(p) != n {
			t.Errorf("len(pathOf(%d)) = %d, want %d", n, len(p), n)
		}
		for e := range strings.SplitSeq(p, "/") {
			if e == "" || len(e) > MaxNameLen {
				t.Errorf("pathOf(%d) has element of %d bytes, want 1-%d", n, len(e), MaxNameLen)
			}
		}
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ok   bool
	}{
		{"code-review", true},
		{"kit", true},
		{"Skill_1", true},
		{"caf\u00e9", true},
		{strings.Repeat("n", MaxNameLen), true},
		{strings.Repeat("n", MaxNameLen+1), false},
		{"", false},
		{".", false},
		{"..", false},
		{".hidden", false},
		{".git", false},
		{"a/b", false},
		{"a/", false},
		{"/a", false},
		{`a\b`, false},
		{"a:b", false},
		{"CON", false},
		{"nul.txt", false},
		{"COM¹", false},
		{"CONIN$", false},
		{"GIT~1", false},
		{"foo.", false},
		{"foo ", false},
		{" foo", false},
		{"a\x00b", false},
		{"cafe\u0301", false},
	}
	for _, tc := range cases {
		t.Run(short(tc.name), func(t *testing.T) {
			err := CheckName(tc.name)
			if tc.ok && err != nil {
				t.Errorf("CheckName(%q) = %v, want nil", tc.name, err)
			}
			if !tc.ok && !errors.Is(err, ErrUnsafe) {
				t.Errorf("CheckName(%q) = %v, want %v", tc.name, err, ErrUnsafe)
			}
		})
	}
}

// TestCheckPathNamesEntry checks that a refusal names the path (long ones
// abbreviated) so a user can find it in the archive.
func TestCheckPathNamesEntry(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"../evil", `a\b`, "CON", "cafe\u0301", "a\x00b", strings.Repeat("d/", 40) + "f"} {
		err := CheckPath(name)
		if err == nil {
			t.Fatalf("CheckPath(%q) = nil, want an error", name)
		}
		want := fmt.Sprintf("%q", name)
		if len(name) > 80 {
			want = name[:40] // long names are abbreviated
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPath(%q) = %v, want an error naming it", name, err)
		}
	}
}

// TestFoldKey checks which names collide on a case-insensitive,
// normalizing file system.
func TestFoldKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b    string
		collide bool
	}{
		{"README.md", "readme.md", true},
		{"m.go", "M.GO", true},
		{"SKILL.md", "Skill.MD", true},
		{"\u212A", "k", true},     // Kelvin sign and k
		{"\u212Aey", "KEY", true}, // Kelvin sign and K
		{"\ufb01", "fi", true},    // ligature fi
		{"\ufb01le.txt", "FILE.txt", true},
		{"\u03a3\u0391\u03a3", "\u03c3\u03b1\u03c2", true}, // Greek capital and final sigma
		{"\uff21", "a", true},                              // fullwidth A (NFKC)
		{"caf\u00e9", "CAF\u00c9", true},
		{"Docs/a", "docs/A", true},
		{"a.md", "b.md", false},
		{"caf\u00e9", "cafe", false},
		{"k", "x", false},
		{"fi", "f", false},
		{"a/b", "a.b", false},
	}
	f := newCaseFolder()
	for _, tc := range cases {
		t.Run(tc.a+"|"+tc.b, func(t *testing.T) {
			ka, kb := f.key(tc.a), f.key(tc.b)
			if got := ka == kb; got != tc.collide {
				t.Errorf("key(%q) == key(%q) is %v (%q, %q), want %v", tc.a, tc.b, got, ka, kb, tc.collide)
			}
		})
	}
}

// TestFoldCollisionsInArchive checks that the fold key is applied to whole
// archives, for files and for the folders above them.
func TestFoldCollisionsInArchive(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a, b string
	}{
		{"README.md and readme.md", "README.md", "readme.md"},
		{"Kelvin sign", "k.txt", "\u212A.txt"},
		{"ligature", "file.txt", "\ufb01le.txt"},
		{"NFKC fullwidth", "a.txt", "\uff41.txt"},
		{"folder and file", "Docs/a.md", "docs"},
		{"folder and folder", "Docs/a.md", "DOCS/b.md"},
		{"ligature folder", "fi/a", "\ufb01/b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range [][2]string{{tc.a, tc.b}, {tc.b, tc.a}} {
				p := newPlan(testOptions())
				if err := p.add(order[0], kindFile, false, 1, ""); err != nil {
					t.Fatalf("add(%q) = %v, want nil", order[0], err)
				}
				err := p.add(order[1], kindFile, false, 1, "")
				if !errors.Is(err, ErrUnsafe) {
					t.Errorf("add(%q) after add(%q) = %v, want %v", order[1], order[0], err, ErrUnsafe)
				}
			}
		})
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stat := func(name string) fs.FileInfo {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	mapInfo, err := fs.Stat(fstest.MapFS{"a": {Data: []byte("a")}}, "a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		a, b fs.FileInfo
		want bool
	}{
		{"one file twice", stat("a"), stat("a"), true},
		{"two files", stat("a"), stat("b"), false},
		{"a description without identity", stat("a"), mapInfo, true},
		{"none", nil, stat("a"), true},
	}
	for _, tt := range tests {
		if got := sameFile(tt.a, tt.b); got != tt.want {
			t.Errorf("sameFile(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIsReservedName(t *testing.T) {
	for name, want := range map[string]bool{"NUL": true, "con": true, "aux.json1": true, "COM1": true, "lpt1.x": true, "CONIN$": true,
		"console": false, "com10": false, "nulls": false, "lpt": false, "x.con": false, "": false} {
		if got := IsReservedName(name); got != want {
			t.Errorf("IsReservedName(%q) = %v, want %v", name, got, want)
		}
	}
}
