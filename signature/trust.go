package signature

import (
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
// root (rule 4).
const tufTimeout = 30 * time.Second

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
	return fetchTrustedRoot(tuf.DefaultOptions().RepositoryBaseURL, tufCache())
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
// url, with every request bounded by tufTimeout and no retries.
func fetchTrustedRoot(url, cache string) (root.TrustedMaterial, error) {
	f := fetcher.NewDefaultFetcher()
	f.SetHTTPClient(&http.Client{Timeout: tufTimeout})
	f.SetRetry(0, 1)
	opts := tuf.DefaultOptions().WithRepositoryBaseURL(url).WithCachePath(cache).WithFetcher(f)
	tr, err := root.FetchTrustedRootWithOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: Sigstore's public-good trusted root cannot be fetched from %s (%v); pass a trusted root (a trusted_root.json) to verify offline", ErrRequirement, url, err)
	}
	return tr, nil
}
