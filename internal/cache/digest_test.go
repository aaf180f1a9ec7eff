package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
)

// file is the File for a regular file holding content.
func file(path string, exec bool, content string) File {
	return File{Path: path, Exec: exec, Size: int64(len(content)), Sum: sha256.Sum256([]byte(content))}
}

const (
	greetSkill = "---\nname: greet\ndescription: Says hello.\n---\nSay hello.\n"
	greetSh    = "#!/bin/sh\necho hello\n"
)

// The digests below were computed from the encoding in the package doc by
// a separate implementation, not by Digest. A change of any of them
// changes the digest of every published tree and of every lock file entry:
// it needs a new encoding version (see the package doc), never a new
// value here.
func TestDigestKnownAnswers(t *testing.T) {
	tests := []struct {
		name  string
		tree  string
		files []File
		links []Link
		want  string
	}{
		{
			name: "empty tree",
			tree: "kit",
			want: "a301e60d853a1bb44ab03394d2fd4672d7e8cdf1b8ccfd1309c7359e6cf58b96",
		},
		{
			name:  "one file",
			tree:  "a",
			files: []File{file("b", false, "c")},
			want:  "64b59d003cef7f1f60bff8b09851a708be3ef0cf053d6b529557b8c55885a309",
		},
		{
			name:  "skill with a script",
			tree:  "greet",
			files: []File{file("scripts/hello.sh", true, greetSh), file("SKILL.md", false, greetSkill)},
			want:  "5eeeda55a61d2e8d6cb029901a6b4d62157395db1f13105ec80d03c497ce10cb",
		},
		{
			name:  "skill with a script and a link",
			tree:  "greet",
			files: []File{file("scripts/hello.sh", true, greetSh), file("SKILL.md", false, greetSkill)},
			links: []Link{{Path: "docs/latest", Target: "../SKILL.md"}},
			want:  "312d66b023394ef336332e43eeb34449160abb3388360b94fbf9be385791fbdf",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DigestTree(tt.tree, tt.files, tt.links); got != tt.want {
				t.Errorf("DigestTree(%q, %v, %v) = %s, want %s", tt.tree, tt.files, tt.links, got, tt.want)
			}
			if tt.links == nil {
				if got := Digest(tt.tree, tt.files); got != tt.want {
					t.Errorf("Digest(%q, %v) = %s, want %s", tt.tree, tt.files, got, tt.want)
				}
			}
		})
	}
}

// TestDigestEncoding spells out the encoding of small trees, byte for
// byte, as the package doc defines it.
func TestDigestEncoding(t *testing.T) {
	sumC := sha256.Sum256([]byte("c"))
	tests := []struct {
		name  string
		tree  string
		files []File
		links []Link
		enc   string
	}{
		{
			name:  "a file",
			tree:  "a",
			files: []File{file("b", false, "c")},
			enc: "agentadaptor skill tree v1\x00" +
				"\x00\x00\x00\x00\x00\x00\x00\x01" + "a" + // name
				"\x00\x00\x00\x00\x00\x00\x00\x01" + // one entry
				"\x00\x00\x00\x00\x00\x00\x00\x01" + "b" + // path
				"\x00" + // a regular file
				"\x00\x00\x00\x00\x00\x00\x00\x01" + // size
				string(sumC[:]),
		},
		{
			name:  "an executable file and a link",
			tree:  "a",
			files: []File{file("c", true, "c")},
			links: []Link{{Path: "b", Target: "c"}},
			enc: "agentadaptor skill tree v1\x00" +
				"\x00\x00\x00\x00\x00\x00\x00\x01" + "a" + // name
				"\x00\x00\x00\x00\x00\x00\x00\x02" + // two entries
				"\x00\x00\x00\x00\x00\x00\x00\x01" + "b" + // path
				"\x02" + // a link
				"\x00\x00\x00\x00\x00\x00\x00\x01" + "c" + // target
				"\x00\x00\x00\x00\x00\x00\x00\x01" + "c" + // path
				"\x01" + // an executable regular file
				"\x00\x00\x00\x00\x00\x00\x00\x01" + // size
				string(sumC[:]),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := sha256.Sum256([]byte(tt.enc))
			if got, want := DigestTree(tt.tree, tt.files, tt.links), hex.EncodeToString(sum[:]); got != want {
				t.Errorf("DigestTree(%q, %v, %v) = %s, want SHA-256 of the documented encoding, %s", tt.tree, tt.files, tt.links, got, want)
			}
		})
	}
}

func TestDigestLinkIsNotAFile(t *testing.T) {
	base := []File{file("SKILL.md", false, greetSkill)}
	link := DigestTree("greet", base, []Link{{Path: "docs/latest", Target: "../SKILL.md"}})
	for name, files := range map[string][]File{
		// What a link was encoded as before it had an entry of its own.
		"file named as the old link encoding": append(slices.Clone(base), file("docs/latest -> link", false, "../SKILL.md")),
		"file holding the target":             append(slices.Clone(base), file("docs/latest", false, "../SKILL.md")),
	} {
		if d := Digest("greet", files); d == link {
			t.Errorf("Digest of a tree with a %s = %s, the digest of the tree with a link", name, d)
		}
	}
	if other := DigestTree("greet", base, []Link{{Path: "docs/latest", Target: "../README.md"}}); other == link {
		t.Errorf("DigestTree ignores a link's target")
	}
	if other := DigestTree("greet", base, []Link{{Path: "docs/newest", Target: "../SKILL.md"}}); other == link {
		t.Errorf("DigestTree ignores a link's path")
	}
}

func TestDigestIgnoresInputOrder(t *testing.T) {
	// Equal paths never occur in a real tree, but the digest must not
	// depend on the order of the input even then.
	files := []File{
		file("a", false, "1"), file("a", false, "2"), file("a", true, "1"), file("a", false, "22"),
		file("b/c", false, "x"), file("b", true, "y"),
	}
	links := []Link{{Path: "a", Target: "z"}, {Path: "a", Target: "y"}, {Path: "a", Target: "yy"}, {Path: "b/b", Target: "a"}}
	want := DigestTree("kit", files, links)
	for i := range 20 {
		f, l := slices.Clone(files), slices.Clone(links)
		// A fixed sequence of shuffles: rotate and reverse.
		f = append(f[i%len(f):], f[:i%len(f)]...)
		l = append(l[i%len(l):], l[:i%len(l)]...)
		if i%2 == 1 {
			slices.Reverse(f)
			slices.Reverse(l)
		}
		if got := DigestTree("kit", f, l); got != want {
			t.Fatalf("DigestTree(%v, %v) = %s, want %s (the same entries in another order)", f, l, got, want)
		}
	}
}
