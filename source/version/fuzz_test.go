package version_test

import (
	"errors"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// FuzzParseRange checks that any text either parses as a range whose
// pick from tags is a tag it admits (or source.ErrNotFound), or fails
// with source.ErrInvalid; nothing panics.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"^1.2", "~1.2", "1.x", ">=1.0 <2", "^1 || ^2", "1.2 - 1.4", "=1.2.3", "^^1", "", "*", "^1.2.0-rc.1", "^99999999999999999999"} {
		f.Add(s, "v1.2.3")
	}
	f.Fuzz(func(t *testing.T, text, tag string) {
		r, err := version.ParseRange(text)
		if err != nil {
			if !errors.Is(err, source.ErrInvalid) {
				t.Fatalf("ParseRange(%q) = %v, want source.ErrInvalid", text, err)
			}
			return
		}
		got, err := r.Pick([]string{tag, "v1.0.0", "main"})
		if err != nil {
			if !errors.Is(err, source.ErrNotFound) {
				t.Fatalf("Pick = %v, want source.ErrNotFound", err)
			}
			return
		}
		if !r.Admits(got) {
			t.Fatalf("ParseRange(%q).Pick = %q, which it does not admit", text, got)
		}
	})
}
