package signature

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
)

// TestPublicGoodUnreachable checks rule 4's fallback: with no trusted root
// named, a TUF repository that cannot be reached, or that does not answer,
// is an error saying to pass a trusted root, within the time bound.
func TestPublicGoodUnreachable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)

	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) })

	vs := newSigstore(t)
	d := testDigest("manifest")
	b := keylessBundle(t, vs, releaseIdentity, actionsIssuer, d, keylessOptions{})
	for _, tt := range []struct{ name, url string }{
		{"refused", closedURL},
		{"404", notFound.URL},
		{"no answer", hanging.URL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			v := verifier{trust: func() (root.TrustedMaterial, error) {
				return fetchTrustedRoot(tt.url, cache, 500*time.Millisecond)
			}}
			_, err := v.verify(b, d, []Requirement{{Identity: releaseIdentity, Issuer: actionsIssuer}})
			if !errors.Is(err, ErrRequirement) || !strings.Contains(err.Error(), "pass a trusted root") || !strings.Contains(err.Error(), tt.url) {
				t.Fatalf("verify() = %v, want ErrRequirement naming %s and saying to pass a trusted root", err, tt.url)
			}
		})
	}
}

// TestTUFCache checks the cache folder of rule 4.
func TestTUFCache(t *testing.T) {
	if got := tufCache(); !strings.HasSuffix(got, "sigstore-tuf") || !strings.Contains(got, "agent-adaptor") {
		t.Errorf("tufCache() = %q, want .../agent-adaptor/sigstore-tuf", got)
	}
}
