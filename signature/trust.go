package signature

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	"github.com/theupdateframework/go-tuf/v2/metadata/fetcher"
)

// tufTimeout bounds the whole fetch of Sigstore's public-good trusted
// root, every request of it together (rule 4).
const tufTimeout = 30 * time.Second

// tufCacheDays is how long a fetched public-good root is used from the
// cache without asking the TUF repository again.
const tufCacheDays = 1

// trustedMaterial is r's trusted root: its own, or v's default.
func (v verifier) trustedMaterial(r Requirement) (root.TrustedMaterial, error) {
	if len(r.TrustedRoot) == 0 {
		return v.trust()
	}
	tr, err := root.NewTrustedRootFromJSON(r.TrustedRoot)
	if err != nil {
		return nil, fmt.Errorf("%w: the trusted root is not a Sigstore trusted_root.json: %v", ErrRequirement, err)
	}
	return tr, nil
}

// publicGood fetches Sigstore's public-good trusted root through TUF,
// caching it in the user's cache folder.
func publicGood() (root.TrustedMaterial, error) {
	return fetchTrustedRoot(tuf.DefaultMirror, tufCache(), tufTimeout)
}

// tufCache is the TUF cache folder: os.UserCacheDir()/agent-adaptor/
// sigstore-tuf, else under the temporary folder.
func tufCache() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "agent-adaptor", "sigstore-tuf")
}

// fetchTrustedRoot fetches trusted_root.json from the TUF repository at
// url, caching it in cache, all requests together bounded by timeout.
func fetchTrustedRoot(url, cache string, timeout time.Duration) (root.TrustedMaterial, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	f := fetcher.NewDefaultFetcher()
	f.SetHTTPClient(&http.Client{Transport: deadlineTransport{ctx: ctx, base: http.DefaultTransport}})
	opts := tuf.DefaultOptions().
		WithRepositoryBaseURL(url).
		WithCachePath(cache).
		WithCacheValidity(tufCacheDays).
		WithFetcher(f)
	tr, err := root.FetchTrustedRootWithOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: Sigstore's public-good trusted root cannot be fetched from %s (%v); pass a trusted root (a trusted_root.json) to verify offline", ErrRequirement, url, err)
	}
	return tr, nil
}

// deadlineTransport sends every request under ctx, so that one deadline
// bounds them all.
type deadlineTransport struct {
	ctx  context.Context
	base http.RoundTripper
}

func (t deadlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.base.RoundTrip(r.WithContext(t.ctx))
}
