package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// Media types of the format [Push] writes.
const (
	// ArtifactType is the artifact type of a skill's manifest.
	ArtifactType = "application/vnd.agentskills.skill.v1"
	// LayerMediaType is the media type of its one layer: a tar archive,
	// compressed with gzip, whose root is the skill folder.
	LayerMediaType = "application/vnd.agentskills.skill.content.v1.tar+gzip"
)

// Media types of manifests and indexes this package reads.
const (
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
	mediaTypeDockerConfig   = "application/vnd.docker.container.image.v1+json"
)

// Media types and annotations of other tools' skill images (What Fetch
// reads, rule 9).
const (
	// toolhiveArtifactType is the artifact type of ToolHive's skill
	// indexes and manifests.
	toolhiveArtifactType = "dev.toolhive.skills.v1"
	// RequiresAnnotation is the annotation in which ToolHive records the
	// skills a skill needs: a JSON array of OCI references (What Fetch
	// reads, rule 11), which Fetch and Describe report as Requires.
	RequiresAnnotation = "dev.toolhive.skills.requires"

	toolhiveName        = "dev.toolhive.skills.name"
	toolhiveDescription = "dev.toolhive.skills.description"
	toolhiveVersion     = "dev.toolhive.skills.version"
)

// Limits of what Fetch reads.
const (
	// searchDepth is how deep below a layer's root a layout seen in the
	// wild may keep its skill.
	searchDepth = 5
	// maxPlatforms bounds the platform manifests of an index that are
	// read (rule 1).
	maxPlatforms = 16
	// maxRequires and maxRequiresBytes bound the requirements annotation
	// (rule 11).
	maxRequires      = 64
	maxRequiresBytes = 64 << 10
)

// Resolve returns the digest of the manifest that ref names now: the pin
// that [Fetch] and [Skill] take and a lock file records. A ref that
// already holds a digest is returned as it is, without the network.
func Resolve(ctx context.Context, ref string, opts ...Option) (string, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return "", err
	}
	if r.Digest != "" {
		return r.Digest, nil
	}
	c, err := newConfig(opts)
	if err != nil {
		return "", err
	}
	if r.Range != "" {
		_, dgst, err := c.resolveRange(ctx, r)
		return dgst, err
	}
	return c.resolveTag(ctx, r)
}

// resolveTag returns the digest of the manifest r's tag names now.
func (c *config) resolveTag(ctx context.Context, r Reference) (string, error) {
	desc, err := c.repository(r).Resolve(ctx, r.Tag)
	if err != nil {
		return "", fmt.Errorf("%s: resolve the tag: %w", r, c.classify(ctx, r, err))
	}
	if err := checkDigest(desc.Digest); err != nil {
		return "", fmt.Errorf("%s: resolve the tag: %w: the registry answered with a digest it should not: %v", r, source.ErrNoSkill, err)
	}
	return desc.Digest.String(), nil
}

// Artifact is a skill fetched from a registry: its layer is in the local
// cache and has been checked to hold one skill.
type Artifact struct {
	// Ref is the reference fetched, with its digest.
	Ref Reference
	// Digest is the digest of the manifest (or index) Ref names: the pin.
	Digest string
	// Name is the skill's name: the manifest's title annotation when it is
	// a valid skill name, else the base name of Subpath, else the
	// repository's last path element.
	Name string
	// Subpath is the folder within the layer that holds SKILL.md, "" for
	// its root.
	Subpath string
	// Layer describes the layer that holds the skill.
	Layer ocispec.Descriptor
	// Annotations are the manifest's annotations (an index's, overlaid by
	// those of its first platform manifest).
	Annotations map[string]string
	// Requires are the references of the skills this one says it needs,
	// as its dev.toolhive.skills.requires annotation ([RequiresAnnotation])
	// writes them (HOST/REPO:TAG, HOST/REPO@DIGEST), in order; nil when it
	// has none. They are recorded, not fetched.
	Requires []string

	cfg    *config
	format skill.Format // the layer's archive format, tar.gz or tar
}

// Fetch fetches the skill that the pinned ref (oci://HOST/REPO@DIGEST, or
// oci://HOST/REPO:TAG@DIGEST) names, from the local cache when it holds
// it, else from the registry, and checks it as the package doc says. A
// ref without a digest fails with [source.ErrNotPinned]: pin it with [Resolve]
// first.
func Fetch(ctx context.Context, ref string, opts ...Option) (*Artifact, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return nil, err
	}
	if r.Digest == "" {
		return nil, fmt.Errorf("%s: %w: resolve the tag with Resolve and fetch %s@DIGEST", ref, source.ErrNotPinned, ref)
	}
	f, err := newFetcher(r, opts)
	if err != nil {
		return nil, err
	}
	defer f.blobs.Close()
	a, err := f.fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return a, nil
}

// Skill fetches the pinned ref as [Fetch] does and returns the skill,
// as [Artifact.Skill] builds it.
func Skill(ctx context.Context, ref string, opts ...Option) (skill.Skill, error) {
	a, err := Fetch(ctx, ref, opts...)
	if err != nil {
		return skill.Skill{}, err
	}
	return a.Skill(), nil
}

// Skill returns the skill: key a.Name (callers may assign another) and
// its [SkillSource] ([Artifact.Source]).
func (a *Artifact) Skill() skill.Skill {
	return skill.Skill{Key: a.Name, Source: a.Source()}
}

// Source returns the source of the skill, a [SkillSource]: an archive
// source with [Artifact.Open] as its opener, format tar.gz (tar for a
// plain tar layer), a.Subpath,
// and the manifest digest as its Fingerprint, so declarations of the
// same pin agree and a new pin is a new revision.
func (a *Artifact) Source() SkillSource {
	return SkillSource{ArchiveSource: skill.ArchiveSource{
		Archive:     a.Open,
		Format:      a.archiveFormat(),
		Subpath:     a.Subpath,
		Fingerprint: a.Digest,
	}, artifact: a}
}

// archiveFormat is the layer's archive format: tar.gz unless Fetch found
// a plain tar.
func (a *Artifact) archiveFormat() skill.Format {
	if a.format == "" {
		return skill.FormatTarGz
	}
	return a.format
}

// Open opens the layer, a [skill.Opener]: the cached copy when there is
// one, else a new download that is verified and cached first. The reader
// fails at its end when the bytes do not match the layer's digest and
// size. Open is safe for concurrent use.
func (a *Artifact) Open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if a.cfg == nil {
		return nil, errors.New("the Artifact was not made by Fetch: open what Fetch returns")
	}
	if err := checkDigest(a.Layer.Digest); err != nil {
		return nil, fmt.Errorf("%s: open layer: %w: %v", a.Ref, source.ErrNoSkill, err)
	}
	b, err := openBlobs(a.cfg.cache.Root())
	if err != nil {
		return nil, err
	}
	f, err := b.open(a.Layer)
	if errors.Is(err, fs.ErrNotExist) {
		fr := &fetcher{cfg: a.cfg, ref: a.Ref, blobs: b}
		if _, _, err = fr.download(ctx, a.Layer, ruleImage); err == nil {
			f, err = b.open(a.Layer)
		}
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: open layer %s: %w", a.Ref, a.Layer.Digest, err)
	}
	return &verifyingReader{f: f, v: a.Layer.Digest.Verifier(), desc: a.Layer, blobs: b}, nil
}

// fetcher fetches one pinned reference.
type fetcher struct {
	cfg   *config
	ref   Reference
	blobs *blobs
	repo  *remote.Repository
}

// newFetcher returns a fetcher of r configured by opts, with the cache's
// blobs open: the caller closes f.blobs.
func newFetcher(r Reference, opts []Option) (*fetcher, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	b, err := openBlobs(c.cache.Root())
	if err != nil {
		return nil, err
	}
	return &fetcher{cfg: c, ref: r, blobs: b}, nil
}

func (f *fetcher) repository() *remote.Repository {
	if f.repo == nil {
		f.repo = f.cfg.repository(f.ref)
	}
	return f.repo
}

// manifest is the part of an image manifest or index this package reads.
type manifest struct {
	MediaType    string               `json:"mediaType"`
	ArtifactType string               `json:"artifactType"`
	Config       *ocispec.Descriptor  `json:"config"`
	Layers       []ocispec.Descriptor `json:"layers"`
	Manifests    []ocispec.Descriptor `json:"manifests"`
	Annotations  map[string]string    `json:"annotations"`
}

func (f *fetcher) fetch(ctx context.Context) (*Artifact, error) {
	img, err := f.top(ctx, ocispec.Descriptor{Digest: digest.Digest(f.ref.Digest), Size: -1})
	if err != nil {
		return nil, err
	}
	subpath, format, err := f.layer(ctx, img.layer, img.rule)
	if err != nil {
		return nil, err
	}
	return &Artifact{
		Ref:         f.ref,
		Digest:      f.ref.Digest,
		Name:        nameOf(img.annotations, subpath, f.ref),
		Subpath:     subpath,
		Layer:       img.layer,
		Annotations: img.annotations,
		Requires:    img.requires,
		cfg:         f.cfg,
		format:      format,
	}, nil
}

// nameOf returns a skill's name (What Fetch reads, rule 10): the title
// annotation, else ToolHive's name annotation, when it is a valid skill
// name; else the base name of subpath; else the repository's last path
// element.
func nameOf(annotations map[string]string, subpath string, ref Reference) string {
	for _, key := range []string{ocispec.AnnotationTitle, toolhiveName} {
		if name := annotations[key]; len(name) <= 64 && skillName.MatchString(name) {
			return name
		}
	}
	if subpath != "" {
		return path.Base(subpath)
	}
	return ref.name()
}

// annotation returns the first of keys that annotations holds, "" when
// none.
func annotation(annotations map[string]string, keys ...string) string {
	for _, key := range keys {
		if v, ok := annotations[key]; ok {
			return v
		}
	}
	return ""
}

// skillName matches a valid skill name in the Agent Skills format's ASCII
// form: lowercase letters, digits and single hyphens inside (the length,
// at most 64, is checked apart).
var skillName = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// manifest returns the manifest or index desc names, of at most
// maxManifestSize bytes, parsed, and which of the two it is: told by the
// document alone (parseManifest), the same whether it comes from the
// registry or the cache. A desc.Size of -1 means unknown. A document
// that the registry serves as the other kind, or that desc's media type
// names as the other kind, is refused, and is not cached.
func (f *fetcher) manifest(ctx context.Context, desc ocispec.Descriptor) (*manifest, manifestKind, error) {
	if desc.Size > maxManifestSize {
		return nil, 0, fmt.Errorf("%w: manifest %s is %d bytes; the limit is %d", source.ErrNoSkill, desc.Digest, desc.Size, maxManifestSize)
	}
	data, ok, err := f.blobs.readSmall(desc, maxManifestSize)
	if err != nil {
		return nil, 0, err
	}
	if ok {
		return parseManifest(data, desc.MediaType)
	}
	var rc io.ReadCloser
	want := desc
	if desc.Size < 0 {
		desc, rc, err = f.repository().Manifests().FetchReference(ctx, desc.Digest.String())
	} else {
		rc, err = f.repository().Manifests().Fetch(ctx, desc)
	}
	if err != nil {
		return nil, 0, f.fetchFailed(ctx, "manifest", want, err)
	}
	defer rc.Close()
	if desc.Digest != want.Digest {
		return nil, 0, fmt.Errorf("%w: the registry answered the manifest %s with %s: it is damaged or not to be trusted; tell its owner, or fetch from another registry", errDamaged, want.Digest, desc.Digest)
	}
	if desc.Size > maxManifestSize {
		return nil, 0, fmt.Errorf("%w: manifest %s is %d bytes; the limit is %d", source.ErrNoSkill, desc.Digest, desc.Size, maxManifestSize)
	}
	var buf bytes.Buffer
	if err := copyVerified(&buf, rc, desc); err != nil {
		return nil, 0, err
	}
	m, kind, err := parseManifest(buf.Bytes(), want.MediaType, desc.MediaType)
	if err != nil {
		return nil, 0, err
	}
	tmp, name, err := f.blobs.create()
	if err == nil {
		_, err = tmp.Write(buf.Bytes())
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = f.blobs.commit(name, desc.Digest)
		} else {
			f.blobs.discard(name)
		}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cache manifest %s: %w", desc.Digest, err)
	}
	return m, kind, nil
}

// fetchFailed turns the error of fetching the manifest or layer desc
// into one that says what went wrong: content that does not match desc,
// as oras-go's checks of the response find it (a Docker-Content-Digest
// or Content-Length other than desc's), is an integrity failure
// (errDamaged, What Fetch reads, rule 5); anything else is classified.
func (f *fetcher) fetchFailed(ctx context.Context, what string, desc ocispec.Descriptor, err error) error {
	if mismatched(err) {
		if perr := f.cfg.ping(ctx, f.ref); perr != nil {
			return fmt.Errorf("fetch %s %s: %w", what, desc.Digest, perr)
		}
		return fmt.Errorf("%w: the registry answered the %s %s with other content (%v): it is damaged or not to be trusted; tell its owner, or fetch from another registry", errDamaged, what, desc.Digest, err)
	}
	return fmt.Errorf("fetch %s %s: %w", what, desc.Digest, f.cfg.classify(ctx, f.ref, err))
}

// mismatched reports whether err is oras-go's refusal of a response
// whose digest or size is not the one asked for. oras-go (v2.7) words
// these as plain errors, so their text is matched; TestPinAnsweredWithOtherContent
// holds the wording.
func mismatched(err error) bool {
	if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "invalid response; digest mismatch") || strings.Contains(msg, "mismatch Content-Length")
}

type manifestKind int

const (
	kindManifest manifestKind = iota
	kindIndex
)

func (k manifestKind) String() string {
	if k == kindIndex {
		return "an index"
	}
	return "a manifest"
}

// kindOf returns the kind that the media type mt names, and whether it
// names one.
func kindOf(mt string) (manifestKind, bool) {
	switch mt {
	case ocispec.MediaTypeImageIndex, mediaTypeDockerList:
		return kindIndex, true
	case ocispec.MediaTypeImageManifest, mediaTypeDockerManifest:
		return kindManifest, true
	}
	return 0, false
}

// parseManifest reads a manifest or index and tells which it is by the
// document alone (What Fetch reads, rule 5): a document that holds both
// manifests (an index's field) and config or layers (a manifest's) is
// refused, as one that could be read as either; else its mediaType
// field, when it has one, decides, and must agree with the fields it
// holds; else its fields do. Each of expect (the media type of the
// descriptor that named it, the media type it was served as) that names
// a manifest or index must name the same kind; others are ignored.
func parseManifest(data []byte, expect ...string) (*manifest, manifestKind, error) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, 0, fmt.Errorf("%w: the manifest is not JSON: %v", source.ErrNoSkill, err)
	}
	var fields struct{ Manifests, Config, Layers json.RawMessage }
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, 0, fmt.Errorf("%w: the manifest is not JSON: %v", source.ErrNoSkill, err)
	}
	present := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	isIndex, isManifest := present(fields.Manifests), present(fields.Config) || present(fields.Layers)
	if isIndex && isManifest {
		return nil, 0, fmt.Errorf("%w: the document holds both manifests, as an index does, and config or layers, as a manifest does, so it could be read as either: it is refused; publish an index and its manifests apart", source.ErrNoSkill)
	}
	kind, ok := kindOf(m.MediaType)
	switch {
	case m.MediaType != "" && !ok:
		return nil, 0, fmt.Errorf("%w: media type %q is not an image manifest or index", source.ErrNoSkill, clip(m.MediaType, 80))
	case ok && (kind == kindIndex && isManifest || kind == kindManifest && isIndex):
		return nil, 0, fmt.Errorf("%w: the document's media type %s says it is %s, but it holds the fields of the other kind", source.ErrNoSkill, m.MediaType, kind)
	case ok:
	case isIndex:
		kind = kindIndex
	case isManifest:
		kind = kindManifest
	default:
		return nil, 0, fmt.Errorf("%w: the document has no media type, and neither manifests nor config and layers: it is not an image manifest or index", source.ErrNoSkill)
	}
	for _, e := range expect {
		if k, ok := kindOf(e); ok && k != kind {
			return nil, 0, fmt.Errorf("%w: it is %s, but it was served or listed as %s (%s): it is refused, as a document that could be read as either", source.ErrNoSkill, kind, k, e)
		}
	}
	return &m, kind, nil
}

// layerRule is how a manifest's layer is read (What Fetch reads, rules
// 2 and 3).
type layerRule int

const (
	// ruleImage: a tar+gzip or tar archive holding one skill tree, at its
	// root or up to searchDepth deep.
	ruleImage layerRule = iota
	// ruleImageRoot: a tar+gzip or tar archive with SKILL.md at its root
	// (an image in this package's format).
	ruleImageRoot
	// ruleArtifact: a tar+gzip archive with SKILL.md at its root (this
	// package's artifact format).
	ruleArtifact
)

// pickLayer returns the layer that holds the skill, and how to read it.
func pickLayer(m *manifest) (ocispec.Descriptor, layerRule, error) {
	var config string
	if m.Config != nil {
		config = m.Config.MediaType
	}
	typ := m.ArtifactType
	if typ == "" {
		typ = config
	}
	imageConfig := config == ocispec.MediaTypeImageConfig || config == mediaTypeDockerConfig
	var rule layerRule
	switch {
	case typ == ArtifactType && !imageConfig:
		if len(m.Layers) != 1 || m.Layers[0].MediaType != LayerMediaType {
			return ocispec.Descriptor{}, 0, fmt.Errorf("%w: a skill artifact has one layer of type %s; this one has %s", source.ErrNoSkill, LayerMediaType, layerTypes(m.Layers))
		}
		return m.Layers[0], ruleArtifact, nil
	case typ == ArtifactType:
		rule = ruleImageRoot
	case typ == toolhiveArtifactType, typ == "", typ == ocispec.MediaTypeImageConfig, typ == ocispec.MediaTypeEmptyJSON, typ == mediaTypeDockerConfig:
		rule = ruleImage
	default:
		return ocispec.Descriptor{}, 0, fmt.Errorf("%w: its artifact type is %q; a skill's is %q", source.ErrNoSkill, typ, ArtifactType)
	}
	if len(m.Layers) != 1 {
		return ocispec.Descriptor{}, 0, fmt.Errorf("%w: an image that holds a skill has one layer, a tar+gzip archive; this one has %s", source.ErrNoSkill, layerTypes(m.Layers))
	}
	if strings.Contains(m.Layers[0].MediaType, "zstd") {
		return ocispec.Descriptor{}, 0, fmt.Errorf("%w: its layer is of type %s, compressed with zstd, which is not read: push the image with gzip compression (a tar+gzip layer)", source.ErrNoSkill, m.Layers[0].MediaType)
	}
	return m.Layers[0], rule, nil
}

func layerTypes(layers []ocispec.Descriptor) string {
	if len(layers) == 0 {
		return "no layers"
	}
	types := make([]string, len(layers))
	for i, l := range layers {
		types[i] = l.MediaType
	}
	return fmt.Sprintf("%d: %s", len(layers), strings.Join(types, ", "))
}

// layer makes sure the layer is in the cache, checked, and returns the
// folder within it that holds the skill (by rule) and its archive format.
func (f *fetcher) layer(ctx context.Context, desc ocispec.Descriptor, rule layerRule) (string, skill.Format, error) {
	p, err := f.blobs.path(desc.Digest)
	if err != nil {
		return "", "", fmt.Errorf("%w: layer: %v", source.ErrNoSkill, err)
	}
	if max := f.cfg.cache.Limits().MaxArchiveSize; desc.Size < 0 || desc.Size > max {
		return "", "", skillcache.NewLimitError(skill.LimitArchiveSize, max, "layer %s is %d bytes; the limit is %d", desc.Digest, desc.Size, max)
	}
	if cached, err := f.blobs.open(desc); err == nil {
		err = copyVerified(io.Discard, cached, desc)
		cached.Close()
		if err == nil {
			return skillIn(ctx, f.cfg.cache, p, rule)
		}
		f.blobs.remove(desc.Digest)
	}
	return f.download(ctx, desc, rule)
}

// download downloads the layer desc into tmp, verifies it against desc,
// checks it holds a skill, and only then moves it into the cache; it
// returns the folder that holds the skill and the archive's format.
func (f *fetcher) download(ctx context.Context, desc ocispec.Descriptor, rule layerRule) (string, skill.Format, error) {
	if max := f.cfg.cache.Limits().MaxArchiveSize; desc.Size < 0 || desc.Size > max {
		return "", "", skillcache.NewLimitError(skill.LimitArchiveSize, max, "layer %s is %d bytes; the limit is %d", desc.Digest, desc.Size, max)
	}
	rc, err := f.repository().Blobs().Fetch(ctx, desc)
	if err != nil {
		return "", "", f.fetchFailed(ctx, "layer", desc, err)
	}
	defer rc.Close()
	tmp, name, err := f.blobs.create()
	if err != nil {
		return "", "", fmt.Errorf("cache layer %s: %w", desc.Digest, err)
	}
	committed := false
	defer func() {
		if !committed {
			f.blobs.discard(name)
		}
	}()
	var dst io.Writer = tmp
	if f.cfg.progress != nil {
		dst = io.MultiWriter(tmp, f.cfg.progress)
	}
	err = copyVerified(dst, rc, desc)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", err
	}
	subpath, format, err := skillIn(ctx, f.cfg.cache, f.blobs.tmpPath(name), rule)
	if err != nil {
		return "", "", err
	}
	if err := f.blobs.commit(name, desc.Digest); err != nil {
		return "", "", fmt.Errorf("cache layer %s: %w", desc.Digest, err)
	}
	committed = true
	return subpath, format, nil
}

// skillIn checks the layer archive at p under the cache's rules and
// limits and returns the folder in it that holds the skill, and its
// format.
func skillIn(ctx context.Context, cache *skill.Cache, p string, rule layerRule) (string, skill.Format, error) {
	format, err := layerFormat(p, rule)
	if err != nil {
		return "", "", err
	}
	strict := rule != ruleImage
	depth := searchDepth
	if strict {
		depth = 0
	}
	found, err := skillcache.ArchiveSkills(ctx, cache, p, depth)
	if err != nil {
		return "", "", fmt.Errorf("layer: %w", err)
	}
	if slices.Contains(found, "") {
		return "", format, nil
	}
	if strict {
		return "", "", fmt.Errorf("%w: the layer has no SKILL.md at its root", source.ErrNoSkill)
	}
	// The skill trees are the folders with a SKILL.md that no other one
	// holds; sorted, a folder comes before the folders inside it.
	var trees []string
	for _, d := range found {
		if !slices.ContainsFunc(trees, func(t string) bool { return strings.HasPrefix(d, t+"/") }) {
			trees = append(trees, d)
		}
	}
	switch len(trees) {
	case 0:
		return "", "", fmt.Errorf("%w: the layer has no SKILL.md within %d folders of its root", source.ErrNoSkill, searchDepth)
	case 1:
		return trees[0], format, nil
	}
	return "", "", fmt.Errorf("%w: the layer holds %d skills (%s), and an artifact holds exactly one", source.ErrNoSkill, len(trees), strings.Join(trees, ", "))
}

// layerFormat tells the format of the layer archive at p from its
// leading bytes (What Fetch reads, rule 3): tar+gzip, or, for an image,
// a plain tar (the ustar magic at offset 257). zstd is refused, saying
// so, and so is anything else.
func layerFormat(p string, rule layerRule) (skill.Format, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return skill.FormatTarGz, nil
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "", fmt.Errorf("%w: the layer is compressed with zstd, which is not read: push the image with gzip compression (a tar+gzip layer)", source.ErrNoSkill)
	case rule != ruleArtifact && len(head) >= 262 && string(head[257:262]) == "ustar":
		return skill.FormatTar, nil
	case rule == ruleArtifact:
		return "", fmt.Errorf("%w: the layer is not a tar+gzip archive", source.ErrNoSkill)
	}
	return "", fmt.Errorf("%w: the layer is not a tar+gzip archive, nor a plain tar archive", source.ErrNoSkill)
}
