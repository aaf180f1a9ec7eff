package oci

import (
	"fmt"
	"io"
	"net/http"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/agentadaptor/agentadaptor/skill"
)

// maxManifestSize caps a manifest or index read from a registry or the
// local cache.
const maxManifestSize = 4 << 20

// config collects Option values.
type config struct {
	cache       *skill.Cache
	client      *http.Client
	credentials credentials.Store
	progress    io.Writer
	annotations map[string]string
	format      Format
}

// Option configures [Resolve], [Fetch], [Skill], [Push], [Sign] and
// [Verify].
type Option func(*config)

// WithCache sets the skill cache: manifests and layers are kept under
// the .oci folder of its root once fetched, so that a pinned reference
// needs no network afterwards, and its limits apply: a layer larger than
// its MaxArchiveSize is refused before it is downloaded (and one that
// sends more is cut off), and layers, fetched or packed, must pass its
// archive rules. Give it the cache the materializer uses. Default:
// skill.NewCache(); nil also means the default.
func WithCache(cache *skill.Cache) Option {
	return func(c *config) { c.cache = cache }
}

// WithHTTPClient sets the HTTP client that talks to registries; the
// credentials are added on top of it. Default: oras-go's retry client,
// which retries a request on 429 and 5xx answers and network errors with
// backoff; nil also means the default.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) { c.client = client }
}

// WithCredentials sets where credentials for a registry come from.
// Default: the Docker configuration ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json) and the credential helpers it names, as "docker
// login" leaves them; a host it has nothing for is accessed anonymously.
func WithCredentials(store credentials.Store) Option {
	return func(c *config) { c.credentials = store }
}

// WithProgress sets a writer that [Fetch] gives a copy of the layer's
// bytes as they arrive from the registry (not when it reads them from the
// cache), for a caller that shows a download's progress; a write error
// fails the download. Default: none; nil also means none.
func WithProgress(w io.Writer) Option {
	return func(c *config) { c.progress = w }
}

// WithVersion sets the org.opencontainers.image.version annotation that
// [Push] writes. Default: none.
func WithVersion(version string) Option {
	return withAnnotation(ocispec.AnnotationVersion, version)
}

// WithSourceURL sets the org.opencontainers.image.source annotation that
// [Push] writes: the URL of the skill's source code. Default: none.
func WithSourceURL(url string) Option {
	return withAnnotation(ocispec.AnnotationSource, url)
}

// WithRevision sets the org.opencontainers.image.revision annotation that
// [Push] writes: the source revision (a commit) the skill was built from.
// Default: none.
func WithRevision(revision string) Option {
	return withAnnotation(ocispec.AnnotationRevision, revision)
}

// Format is a layout [Push] writes a skill in (the rules are under The
// format Push writes in the package doc).
type Format string

// The formats of [Push].
const (
	// FormatImage is an OCI image index over linux/amd64 and linux/arm64
	// image manifests that share the one layer: an image a container
	// runtime mounts.
	FormatImage Format = "image"
	// FormatArtifact is an image-spec 1.1 artifact of type
	// [ArtifactType] with one layer of [LayerMediaType], which no runtime
	// mounts.
	FormatArtifact Format = "artifact"
)

// WithFormat sets the format [Push] writes. Default: [FormatImage]; ""
// also means the default.
func WithFormat(f Format) Option {
	return func(c *config) { c.format = f }
}

func withAnnotation(key, value string) Option {
	return func(c *config) {
		if c.annotations == nil {
			c.annotations = make(map[string]string)
		}
		if value == "" {
			delete(c.annotations, key)
		} else {
			c.annotations[key] = value
		}
	}
}

// newConfig applies opts and fills in the defaults.
func newConfig(opts []Option) (*config, error) {
	c := cacheConfig(opts)
	if c.client == nil {
		c.client = retry.DefaultClient
	}
	if c.credentials == nil {
		store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
		if err != nil {
			return nil, fmt.Errorf("read the Docker configuration for registry credentials: %w (fix or move the file, or set DOCKER_CONFIG to another folder)", err)
		}
		c.credentials = store
	}
	return c, nil
}

// cacheConfig applies opts and fills in the default cache only: the
// configuration of what reads no registry ([Pack]).
func cacheConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.cache == nil {
		c.cache = skill.NewCache()
	}
	return c
}
