package oci

import (
	"bytes"
	"io"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRemote checks the source.Remote of a reference: Resolve gives the
// manifest digest, Open the layer, with the download's bytes as progress
// the first time and none once the layer is cached.
func TestRemote(t *testing.T) {
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	text := "oci://" + host + "/acme/review:1"
	if _, err := Push(t.Context(), newSkill(t, "review"), text, opts...); err != nil {
		t.Fatal(err)
	}
	ref, err := ParseReference(text)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRemote(ref, opts...)
	if got, want := r.Repository(), "oci:"+host+"/acme/review"; got != want {
		t.Errorf("Repository() = %q, want %q", got, want)
	}
	pin, err := r.Resolve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i, downloads := range []bool{true, false} {
		var progress bytes.Buffer
		a, err := r.Open(t.Context(), pin, "", &progress)
		if err != nil {
			t.Fatalf("Open %d = %v", i, err)
		}
		data, err := io.ReadAll(a)
		a.Close()
		if err != nil || len(data) == 0 || a.Format != skill.FormatTarGz || a.Subpath != "" {
			t.Errorf("Open %d = %d bytes (%v), %v at %q; want tar.gz at the root", i, len(data), err, a.Format, a.Subpath)
		}
		if got := bytes.Equal(progress.Bytes(), data); got != downloads {
			t.Errorf("Open %d gave progress %d bytes of %d; want the download's bytes: %v", i, progress.Len(), len(data), downloads)
		}
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if _, err := r.Open(t.Context(), "sha256:"+string(bytes.Repeat([]byte("0"), 64)), "", nil); err == nil {
		t.Error("Open of a digest the registry does not have succeeded")
	}
}
