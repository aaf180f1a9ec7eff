package oci

import (
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// TestNilOptionIsIgnored checks that a nil Option is skipped, as every
// package's options are (docs/DESIGN-NOTES.md, "Options", rule 3).
func TestNilOptionIsIgnored(t *testing.T) {
	c, err := newConfig([]Option{nil, WithVersion("1.0.0"), nil})
	if err != nil {
		t.Fatalf("newConfig(nil, WithVersion, nil) = %v, want no error", err)
	}
	if got := c.annotations[ocispec.AnnotationVersion]; got != "1.0.0" {
		t.Errorf("newConfig(nil, WithVersion(%q), nil) annotates the version %q, want %q", "1.0.0", got, "1.0.0")
	}
}
