package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/internal/ctxio"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source"
)

// Push publishes the skill in the folder dir to ref, which names a tag
// (oci://HOST/REPO:TAG), in the format [WithFormat] chooses (an image, by
// default: an index over linux/amd64 and linux/arm64 manifests sharing
// one layer), and returns the digest of what the tag names: the index of
// an image, the manifest of an artifact. The skill must be one agents can
// load (SKILL.md read as skillmd's Lenient mode reads it, with no errors),
// and the packed folder must pass the archive rules under the limits of
// the cache given with WithCache. The same folder and options always
// give the same digest. The rules are under The format Push writes in the
// package doc.
func Push(ctx context.Context, dir, ref string, opts ...Option) (string, error) {
	r, err := pushTarget(ref)
	if err != nil {
		return "", err
	}
	c, err := newConfig(opts)
	if err != nil {
		return "", err
	}
	switch c.format {
	case "":
		c.format = FormatImage
	case FormatImage, FormatArtifact:
	default:
		return "", fmt.Errorf("%s: %w: format %q: push writes %q or %q", ref, source.ErrInvalid, c.format, FormatImage, FormatArtifact)
	}
	s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient))
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		return "", err // it names dir
	}
	layerFile, err := os.CreateTemp("", "agentskills-push-*.tar.gz")
	if err != nil {
		return "", err
	}
	defer os.Remove(layerFile.Name())
	defer layerFile.Close()
	layer, diffID, err := packChecked(ctx, c, dir, layerFile)
	if err != nil {
		return "", err
	}
	var img *upload
	if c.format == FormatImage {
		img, err = buildImage(s, layer, diffID, c.annotations)
	} else {
		img, err = buildArtifact(s, layer, c.annotations)
	}
	if err != nil {
		return "", err
	}
	if err := c.upload(ctx, r, img, layerFile); err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	return img.top.desc.Digest.String(), nil
}

// pushTarget parses ref, which must name a tag.
func pushTarget(ref string) (Reference, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return Reference{}, err
	}
	if r.Digest != "" || r.Tag == "" {
		return Reference{}, fmt.Errorf("%s: push to a tag, as in %s%s/%s:TAG: the digest is the content's", ref, Scheme, r.Host, r.Repository)
	}
	return r, nil
}

// packChecked packs the folder dir into layerFile and checks the result
// as the cache checks an archive: it must break none of the archive rules
// or the cache's limits and hold a SKILL.md at its root. It returns the
// layer's descriptor and the digest of its uncompressed tar.
func packChecked(ctx context.Context, c *config, dir string, layerFile *os.File) (ocispec.Descriptor, digest.Digest, error) {
	layer, diffID, err := pack(ctx, dir, layerFile, c.cache.Limits())
	if err != nil {
		return ocispec.Descriptor{}, "", fmt.Errorf("push %s: %w", dir, err)
	}
	found, err := skillcache.ArchiveSkills(ctx, c.cache, layerFile.Name(), 0)
	if err != nil {
		return ocispec.Descriptor{}, "", fmt.Errorf("push %s: the folder breaks a rule for skill archives: %w", dir, err)
	}
	if !slices.Contains(found, "") {
		return ocispec.Descriptor{}, "", fmt.Errorf("push %s: the packed folder has no SKILL.md at its root (name it SKILL.md)", dir)
	}
	return layer, diffID, nil
}

// AnnotationSkill marks the index and manifests of an image that [Push]
// wrote (rule 4 of The format Push writes); its value is [ArtifactType].
const AnnotationSkill = "vnd.agentskills.skill"

// Annotations of a layer that oras-go's file store (content/file), which
// oras pull uses, reads: a layer named "." whose unpack annotation is
// "true" is unpacked into the folder pulled to, and its tar checked
// against the digest annotation.
const (
	annotationOrasUnpack = "io.deis.oras.content.unpack"
	annotationOrasDigest = "io.deis.oras.content.digest"
)

// imagePlatforms are the platforms of an image's manifests, in the
// index's order.
var imagePlatforms = []ocispec.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

// document is a blob or manifest Push sends, encoded, with its
// descriptor.
type document struct {
	desc ocispec.Descriptor
	data []byte
}

func newDocument(mediaType string, v any) (document, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return document{}, err
	}
	return document{desc: ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}, data: data}, nil
}

// upload is what Push sends: the configs, the layer, the manifests the
// top one names, and the top one (an index or a manifest), which the tag
// names.
type upload struct {
	configs   []document
	layer     ocispec.Descriptor
	manifests []document
	top       document
}

// skillAnnotations returns the metadata of s and extra as annotations.
func skillAnnotations(s *skillmd.Skill, extra map[string]string) map[string]string {
	annotations := map[string]string{
		ocispec.AnnotationTitle:       s.Name,
		ocispec.AnnotationDescription: s.Description,
	}
	maps.Copy(annotations, extra)
	return annotations
}

// buildArtifact builds the artifact of a skill: one manifest, with the
// empty config, the layer and the skill's annotations.
func buildArtifact(s *skillmd.Skill, layer ocispec.Descriptor, extra map[string]string) (*upload, error) {
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       ocispec.DescriptorEmptyJSON,
		Layers:       []ocispec.Descriptor{layer},
		Annotations:  skillAnnotations(s, extra),
	}
	top, err := newDocument(ocispec.MediaTypeImageManifest, m)
	if err != nil {
		return nil, err
	}
	top.desc.ArtifactType = ArtifactType
	empty := document{desc: ocispec.DescriptorEmptyJSON, data: ocispec.DescriptorEmptyJSON.Data}
	empty.desc.Data = nil
	return &upload{configs: []document{empty}, layer: layer, top: top}, nil
}

// buildImage builds the image of a skill: an index over one manifest per
// platform of imagePlatforms, each with its own config, all listing the
// layer (whose uncompressed digest is diffID) as a standard image layer.
func buildImage(s *skillmd.Skill, layer ocispec.Descriptor, diffID digest.Digest, extra map[string]string) (*upload, error) {
	annotations := skillAnnotations(s, extra)
	annotations[AnnotationSkill] = ArtifactType
	layer = ocispec.Descriptor{
		MediaType: ocispec.MediaTypeImageLayerGzip,
		Digest:    layer.Digest,
		Size:      layer.Size,
		Annotations: map[string]string{
			ocispec.AnnotationTitle: ".",
			annotationOrasUnpack:    "true",
			annotationOrasDigest:    diffID.String(),
		},
	}
	img := &upload{layer: layer}
	index := ocispec.Index{
		Versioned:   specs.Versioned{SchemaVersion: 2},
		MediaType:   ocispec.MediaTypeImageIndex,
		Annotations: annotations,
	}
	for _, p := range imagePlatforms {
		config, err := newDocument(ocispec.MediaTypeImageConfig, ocispec.Image{
			Platform: p,
			Config:   ocispec.ImageConfig{Labels: annotations},
			RootFS:   ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
		})
		if err != nil {
			return nil, err
		}
		m, err := newDocument(ocispec.MediaTypeImageManifest, ocispec.Manifest{
			Versioned:   specs.Versioned{SchemaVersion: 2},
			MediaType:   ocispec.MediaTypeImageManifest,
			Config:      config.desc,
			Layers:      []ocispec.Descriptor{layer},
			Annotations: annotations,
		})
		if err != nil {
			return nil, err
		}
		img.configs = append(img.configs, config)
		img.manifests = append(img.manifests, m)
		d := m.desc
		d.Platform = &p
		index.Manifests = append(index.Manifests, d)
	}
	top, err := newDocument(ocispec.MediaTypeImageIndex, index)
	if err != nil {
		return nil, err
	}
	img.top = top
	return img, nil
}

// upload pushes the configs, the layer (from layerFile), the manifests
// and last the top one, tagging it with r's tag. Blobs the repository
// has are not sent again.
func (c *config) upload(ctx context.Context, r Reference, img *upload, layerFile *os.File) error {
	repo := c.repository(r)
	for _, d := range img.configs {
		if err := pushBlob(ctx, repo, d.desc, func() (io.Reader, error) { return bytes.NewReader(d.data), nil }); err != nil {
			return fmt.Errorf("push config: %w", c.classify(ctx, r, err))
		}
	}
	if err := pushBlob(ctx, repo, img.layer, func() (io.Reader, error) {
		_, err := layerFile.Seek(0, io.SeekStart)
		return layerFile, err
	}); err != nil {
		return fmt.Errorf("push layer: %w", c.classify(ctx, r, err))
	}
	for _, m := range img.manifests {
		if err := repo.Manifests().Push(ctx, m.desc, bytes.NewReader(m.data)); err != nil {
			return fmt.Errorf("push manifest: %w", c.classify(ctx, r, err))
		}
	}
	if err := repo.PushReference(ctx, img.top.desc, bytes.NewReader(img.top.data), r.Tag); err != nil {
		what := "manifest"
		if img.top.desc.MediaType == ocispec.MediaTypeImageIndex {
			what = "index"
		}
		return fmt.Errorf("push %s: %w", what, c.classify(ctx, r, err))
	}
	return nil
}

// pushBlob pushes a blob the repository does not have yet.
func pushBlob(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, content func() (io.Reader, error)) error {
	ok, err := repo.Blobs().Exists(ctx, desc)
	if err != nil || ok {
		return err
	}
	r, err := content()
	if err != nil {
		return err
	}
	return repo.Blobs().Push(ctx, desc, r)
}

// epoch is the time every packed entry carries.
var epoch = time.Unix(0, 0).UTC()

// pack writes the folder dir to w as this package's layer, reproducibly,
// within limits, and returns its descriptor. The rules are in the package
// doc.
func pack(ctx context.Context, dir string, w io.Writer, limits skill.Limits) (ocispec.Descriptor, digest.Digest, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ocispec.Descriptor{}, "", err
	}
	defer root.Close()
	entries, err := packList(ctx, root, limits.MaxArchiveEntries)
	if err != nil {
		return ocispec.Descriptor{}, "", err
	}
	h, tarHash := sha256.New(), sha256.New()
	counter := &countingWriter{w: io.MultiWriter(w, h), limit: limits.MaxArchiveSize}
	if err := packWrite(ctx, root, entries, counter, tarHash); err != nil {
		return ocispec.Descriptor{}, "", err
	}
	return ocispec.Descriptor{
		MediaType: LayerMediaType,
		Digest:    digest.NewDigestFromBytes(digest.SHA256, h.Sum(nil)),
		Size:      counter.n,
	}, digest.NewDigestFromBytes(digest.SHA256, tarHash.Sum(nil)), nil
}

// packEntry is a file or folder to pack, as its tar header will say.
type packEntry struct {
	name string
	dir  bool
	mode int64
	size int64
}

// packList lists what pack writes from root, in the layer's order: the
// files and folders (.git aside), with links to files inside the folder
// as those files; anything else is refused, and so are more than max
// entries.
func packList(ctx context.Context, root *os.Root, max int) ([]packEntry, error) {
	var entries []packEntry
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if len(entries) >= max {
			return skillcache.NewLimitError(skill.LimitArchiveEntries, int64(max), "the folder holds more than %d files and folders", max)
		}
		e, err := packStat(root, p)
		if err != nil {
			return err
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b packEntry) int { return cmpPath(a.name, b.name) })
	return entries, nil
}

// packStat describes the entry p of root, following a link only to a
// file inside root.
func packStat(root *os.Root, p string) (packEntry, error) {
	info, err := root.Lstat(p)
	if err != nil {
		return packEntry{}, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		// A link to a file inside the folder is packed as a copy of
		// it; os.Root refuses a link that leads outside.
		if info, err = root.Stat(p); err != nil {
			return packEntry{}, fmt.Errorf("%s is a link that leads outside the skill folder or nowhere (replace it with a copy of the file): %w", p, err)
		}
		if !info.Mode().IsRegular() {
			return packEntry{}, fmt.Errorf("%s is a link to something other than a file (replace it with a copy)", p)
		}
	}
	switch {
	case info.IsDir():
		return packEntry{name: p + "/", dir: true, mode: 0o755}, nil
	case info.Mode().IsRegular():
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		return packEntry{name: p, mode: mode, size: info.Size()}, nil
	}
	return packEntry{}, fmt.Errorf("%s is not a regular file or folder (only those are packed)", p)
}

// packWrite writes entries from root to w as a gzip-compressed tar
// stream, every entry stamped with epoch, and the uncompressed tar to
// plain too.
func packWrite(ctx context.Context, root *os.Root, entries []packEntry, w, plain io.Writer) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(io.MultiWriter(gz, plain))
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, ModTime: epoch, Typeflag: tar.TypeReg, Size: e.size}
		if e.dir {
			hdr.Typeflag, hdr.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if e.dir {
			continue
		}
		if err := copyFile(ctx, root, e.name, e.size, tw); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// cmpPath orders slash-separated paths element by element, so a folder's
// entries follow it directly, whatever characters their names hold.
func cmpPath(a, b string) int {
	for a != "" || b != "" {
		var ea, eb string
		ea, a = cutElem(a)
		eb, b = cutElem(b)
		if c := strings.Compare(ea, eb); c != 0 {
			return c
		}
	}
	return 0
}

func cutElem(p string) (string, string) {
	elem, rest, _ := strings.Cut(p, "/")
	return elem, rest
}

// copyFile copies the file name, which must still be size bytes long,
// into w.
func copyFile(ctx context.Context, root *os.Root, name string, size int64, w io.Writer) error {
	f, err := root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(ctxio.Reader(ctx, f), size+1))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n != size {
		return fmt.Errorf("%s changed while it was packed: push again", name)
	}
	return nil
}

// countingWriter counts what it writes and fails past its limit.
type countingWriter struct {
	w     io.Writer
	n     int64
	limit int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.limit {
		return 0, skillcache.NewLimitError(skill.LimitArchiveSize, c.limit, "the packed folder is over %d bytes", c.limit)
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
