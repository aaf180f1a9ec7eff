package oci

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
)

func TestParseReference(t *testing.T) {
	d := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		in   string
		want Reference
	}{
		{"oci://ghcr.io/acme/review:1.2", Reference{Host: "ghcr.io", Repository: "acme/review", Tag: "1.2"}},
		{"oci://localhost:5000/a/b/c:latest", Reference{Host: "localhost:5000", Repository: "a/b/c", Tag: "latest"}},
		{"oci://ghcr.io/acme/review@" + d, Reference{Host: "ghcr.io", Repository: "acme/review", Digest: d}},
		{"oci://ghcr.io/acme/review:v1@" + d, Reference{Host: "ghcr.io", Repository: "acme/review", Tag: "v1", Digest: d}},
		{"oci://[::1]:5000/r:t", Reference{Host: "[::1]:5000", Repository: "r", Tag: "t"}},
	}
	for _, tt := range tests {
		got, err := ParseReference(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseReference(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		if s := got.String(); s != tt.in {
			t.Errorf("ParseReference(%q).String() = %q, want it back", tt.in, s)
		}
	}
}

func TestParseReferenceRefusals(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ghcr.io/acme/review:1", "not an OCI reference"},
		{"https://ghcr.io/acme/review:1", "not an OCI reference"},
		{"oci://ghcr.io", "needs a host and a repository"},
		{"oci:///review:1", "needs a host and a repository"},
		{"oci://ghcr.io/", "needs a host and a repository"},
		{"oci://ghcr.io/acme/review", "names no tag or digest"},
		{"oci://ghcr.io/Acme/review:1", "invalid repository"},
		{"oci://ghcr.io/acme//review:1", "invalid repository"},
		{"oci://ghcr.io/acme/review:-1", "invalid tag"},
		{"oci://ghcr.io/acme/review:" + strings.Repeat("t", 129), "invalid tag"},
		{"oci://ghcr.io/acme/review@sha256:abc", "invalid digest"},
		{"oci://ghcr.io/acme/review@md5:" + strings.Repeat("a", 32), "invalid digest"},
		{"oci://user@ghcr.io/acme/review:1", "not an OCI reference"},
		{"oci://ghcr.io:0/acme/review:1", "invalid host"},
		{"oci://ghcr.io:99999/acme/review:1", "invalid host"},
		{"oci://ghcr io/acme/review:1", "invalid host"},
	}
	for _, tt := range tests {
		if got, err := ParseReference(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseReference(%q) = %+v, %v; want an error saying %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseReference(f *testing.F) {
	for _, s := range []string{"oci://ghcr.io/a/b:1", "oci://h/r@sha256:" + strings.Repeat("0", 64), "oci://h:1/r:t@x", "oci://@/:", "oci://h/r:t:u"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReference(s)
		if err != nil {
			return
		}
		again, err := ParseReference(r.String())
		if err != nil || again != r {
			t.Errorf("ParseReference(%q) = %+v, but its String %q parses as %+v, %v", s, r, r.String(), again, err)
		}
	})
}

// Reference.Origin is the canonical host and repository (package source
// (# Canonical locations), rule 10), pinned by a digest; one that cannot be made canonical
// is an error.
func TestReferenceOrigin(t *testing.T) {
	dgst := "sha256:" + strings.Repeat("ab", 32)
	for _, tt := range []struct {
		ref, loc string
		pinned   bool
	}{
		{"oci://GHCR.IO:0443/acme/review:1", "ghcr.io/acme/review", false},
		{"oci://ghcr.io/acme/review@" + dgst, "ghcr.io/acme/review", true},
		{"oci://ghcr.io/acme/review:1@" + dgst, "ghcr.io/acme/review", true},
	} {
		r, err := ParseReference(tt.ref)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Origin()
		want := source.Origin{Kind: source.OCI, Location: tt.loc, Pinned: tt.pinned, Display: r.String()}
		if err != nil || got != want {
			t.Errorf("ParseReference(%s).Origin() = %+v, %v; want %+v", tt.ref, got, err, want)
		}
	}
	r := Reference{Host: "ghcr.io:99999", Repository: "acme/review", Tag: "1"}
	if got, err := r.Origin(); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Origin() of a port out of range = %+v, %v; want ErrInvalid", got, err)
	}
}
