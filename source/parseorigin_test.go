package source_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
)

// ParseOrigin reads KIND:LOCATION.
func TestParseOrigin(t *testing.T) {
	wd, _ := os.Getwd()
	tests := []struct {
		text string
		want source.Origin
		err  bool
	}{
		{"github:acme/tools", source.Origin{Kind: source.GitHub, Location: "acme/tools", Display: "github:acme/tools"}, false},
		{"oci:ghcr.io/acme/x", source.Origin{Kind: source.OCI, Location: "ghcr.io/acme/x", Display: "oci:ghcr.io/acme/x"}, false},
		{"local:skills/x", source.Origin{Kind: source.Local, Location: filepath.ToSlash(filepath.Join(wd, "skills", "x")), Display: "local:skills/x"}, false},
		{"acme/tools", source.Origin{}, true},
		{"ftp:x", source.Origin{}, true},
		{"oci:", source.Origin{}, true},
	}
	for _, tt := range tests {
		got, err := source.ParseOrigin(tt.text)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseOrigin(%q) = %+v, %v, want %+v, error %v", tt.text, got, err, tt.want, tt.err)
		}
	}
}

// ParseOrigin makes the location canonical; a github location on
// another host is that host's git repository.
func TestParseOriginCanonical(t *testing.T) {
	for text, want := range map[string]source.Origin{
		"oci:GHCR.IO:0443/acme/x":       {Kind: source.OCI, Location: "ghcr.io/acme/x", Display: "oci:GHCR.IO:0443/acme/x"},
		"git:git.acme.corp//team/x.git": {Kind: source.Git, Location: "git.acme.corp/team/x", Display: "git:git.acme.corp//team/x.git"},
		"github:ghe.acme.corp/Acme/X":   {Kind: source.Git, Location: "ghe.acme.corp/acme/x", Display: "github:ghe.acme.corp/Acme/X"},
	} {
		if got, err := source.ParseOrigin(text); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %+v, %v; want %+v", text, got, err, want)
		}
	}
	if got, err := source.ParseOrigin("oci:ghcr.io:99999/acme/x"); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("ParseOrigin(a port out of range) = %+v, %v; want ErrInvalid", got, err)
	}
}

// ParseOrigin checks a git path as written before it resolves it: a ".."
// element is refused, never read away.
func TestParseOriginDotSegmentNotResolved(t *testing.T) {
	base := filepath.ToSlash(t.TempDir())
	if s, err := source.ParseOrigin("git:" + base + "/a/../b"); err == nil {
		t.Errorf("ParseOrigin(git:%s/a/../b) = %+v, want an error", base, s)
	}
}
