package skill_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/skill"
)

// hostFolder is a host's own source type that is a folder by its accessor.
type hostFolder struct{ dir string }

func (hostFolder) SkillSource()        {}
func (h hostFolder) SkillPath() string { return h.dir }

// opaque is a host's own source type of no known kind.
type opaque struct{ id int }

func (opaque) SkillSource() {}

func TestSourceDiff(t *testing.T) {
	fsA, fsB := fstest.MapFS{}, fstest.MapFS{}
	open := skill.ArchiveBytes(nil)
	arch := func(format skill.Format, subpath, fp string) skill.ArchiveSource {
		return skill.ArchiveSource{Archive: open, Format: format, Subpath: subpath, Fingerprint: fp}
	}
	var nilPath *skill.PathSource
	tests := []struct {
		name string
		a, b skill.Source
		want string // a phrase of the difference; "" means the same source
	}{
		{"folder spelled twice", skill.PathSource{Path: "a/b"}, skill.PathSource{Path: "./a/b/"}, ""},
		{"folder and pointer to it", skill.PathSource{Path: "a"}, &skill.PathSource{Path: "a"}, ""},
		{"folder and host folder", skill.PathSource{Path: "a"}, hostFolder{dir: "a"}, ""},
		{"other folder", skill.PathSource{Path: "a"}, skill.PathSource{Path: "b"}, "folder"},
		{"inline", skill.InlineSource{SkillMD: "x"}, &skill.InlineSource{SkillMD: "x"}, ""},
		{"other inline", skill.InlineSource{SkillMD: "x"}, skill.InlineSource{SkillMD: "y"}, "inline SKILL.md"},
		{"fs root spellings", skill.FSSource{FS: fsA, Root: ""}, skill.FSSource{FS: fsA, Root: "/"}, ""},
		{"other fs", skill.FSSource{FS: fsA}, skill.FSSource{FS: fsB}, "fs.FS"},
		{"other fs root", skill.FSSource{FS: fsA, Root: "a"}, skill.FSSource{FS: fsA, Root: "b"}, "root"},
		{"archives with one fingerprint", arch("", "/s/", "v1"), &skill.ArchiveSource{Archive: open, Subpath: "s", Fingerprint: "v1"}, ""},
		{"archives without fingerprint", arch("", "", ""), arch("", "", ""), "never assumed equal"},
		{"other fingerprint", arch("", "", "v1"), arch("", "", "v2"), "fingerprint"},
		{"other format", arch(skill.FormatZip, "", "v1"), arch(skill.FormatTar, "", "v1"), "format"},
		{"other subpath", arch("", "a", "v1"), arch("", "b", "v1"), "subpath"},
		{"other kinds", skill.PathSource{Path: "a"}, skill.InlineSource{SkillMD: "a"}, "a folder source differs from a inline source"},
		{"same host value", opaque{1}, opaque{1}, ""},
		{"other host value", opaque{1}, opaque{2}, "cannot be shown to be equal"},
		{"both missing", nil, nilPath, ""},
		{"one missing", skill.PathSource{Path: "a"}, nilPath, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := skill.SourceDiff(tt.a, tt.b)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("SourceDiff(%#v, %#v) = %q, want %q", tt.a, tt.b, got, tt.want)
			}
			if back := skill.SourceDiff(tt.b, tt.a); (back == "") != (got == "") {
				t.Errorf("SourceDiff(%#v, %#v) = %q, not symmetric with %q", tt.b, tt.a, back, got)
			}
		})
	}
}

// TestSourceDiffOfMissing: rule 7, a missing source is the same as
// another missing one and differs from every other.
func TestSourceDiffOfMissing(t *testing.T) {
	var nilInline *skill.InlineSource
	tests := []struct {
		name string
		src  skill.Source
		want bool
	}{
		{"nil", nil, true},
		{"nil pointer", nilInline, true},
		{"value", skill.InlineSource{}, false},
		{"pointer", &skill.InlineSource{}, false},
	}
	for _, tt := range tests {
		if got := skill.SourceDiff(tt.src, nil) == ""; got != tt.want {
			t.Errorf("SourceDiff(%s, nil) == \"\" is %v, want %v", tt.name, got, tt.want)
		}
	}
}
