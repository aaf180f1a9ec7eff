// Package ocireg starts an OCI registry on loopback for a test: the
// registry of go-containerregistry, quiet; and publishes skills in it as
// other tools lay them out (PushToolHive). It imports nothing of this
// module, so that the tests of package source/oci itself use it too;
// package ocitest builds its publisher and keys on it.
package ocireg

import (
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Start starts a registry, with the referrers API when referrers is set,
// closed when t ends, and returns it and its HOST:PORT.
func Start(t testing.TB, referrers bool) (*httptest.Server, string) {
	t.Helper()
	opts := []registry.Option{registry.Logger(log.New(io.Discard, "", 0))}
	if referrers {
		opts = append(opts, registry.WithReferrersSupport(true))
	}
	srv := httptest.NewServer(registry.New(opts...))
	t.Cleanup(srv.Close)
	return srv, strings.TrimPrefix(srv.URL, "http://")
}
