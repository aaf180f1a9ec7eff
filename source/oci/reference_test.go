package oci

import (
	"strings"
	"testing"
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
