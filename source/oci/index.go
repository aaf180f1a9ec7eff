package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/source"
)

// reading is what the manifest or index a reference names says of the
// skill: the layer that holds it and how to read it, whether it is in
// this package's format, and the annotations.
type reading struct {
	layer       ocispec.Descriptor
	rule        layerRule
	ours        bool
	annotations map[string]string
	requires    []string
}

// top reads the manifest or index desc names and, for an index, its
// platform manifests (What Fetch reads, rules 1 to 4 and 11).
func (f *fetcher) top(ctx context.Context, desc ocispec.Descriptor) (*reading, error) {
	m, kind, err := f.manifest(ctx, desc)
	if err != nil {
		return nil, err
	}
	var img *reading
	if kind == kindIndex {
		img, err = f.index(ctx, m)
	} else {
		img, err = imageOf(m)
		if img != nil {
			img.annotations = maps.Clone(m.Annotations)
		}
	}
	if err != nil {
		return nil, err
	}
	if img.requires, err = parseRequires(img.annotations); err != nil {
		return nil, err
	}
	return img, nil
}

// imageOf reads what manifest m says of its layer.
func imageOf(m *manifest) (*reading, error) {
	layer, rule, err := pickLayer(m)
	if err != nil {
		return nil, err
	}
	if err := checkDigest(layer.Digest); err != nil {
		return nil, fmt.Errorf("%w: the manifest's layer: %v", source.ErrNoSkill, err)
	}
	ours := m.ArtifactType == ArtifactType || m.ArtifactType == "" && m.Config != nil && m.Config.MediaType == ArtifactType ||
		m.Annotations[AnnotationSkill] == ArtifactType
	if ours && rule == ruleImage {
		// An image Push wrote (marked by AnnotationSkill) holds SKILL.md
		// at its layer's root.
		rule = ruleImageRoot
	}
	return &reading{layer: layer, rule: rule, ours: ours}, nil
}

// index reads the platform manifests of the index idx (one listed twice
// is downloaded once, and read again from the cache), and
// returns the layer they share, with the index's annotations overlaid by
// those of its first platform manifest.
func (f *fetcher) index(ctx context.Context, idx *manifest) (*reading, error) {
	entries, err := platformManifests(idx)
	if err != nil {
		return nil, err
	}
	annotations := maps.Clone(idx.Annotations)
	if annotations == nil {
		annotations = make(map[string]string)
	}
	var (
		first      *reading
		firstEntry ocispec.Descriptor
	)
	for _, d := range entries {
		if err := checkDigest(d.Digest); err != nil {
			return nil, fmt.Errorf("%w: the index's manifest: %v", source.ErrNoSkill, err)
		}
		if d.MediaType == ocispec.MediaTypeImageIndex || d.MediaType == mediaTypeDockerList {
			return nil, fmt.Errorf("%w: the index's manifest for %s is an index itself; a skill image's index lists image manifests", source.ErrNoSkill, entryName(d))
		}
		if d.Size < 1 {
			return nil, fmt.Errorf("%w: the index's manifest for %s has the size %d; an entry gives the manifest's size in bytes", source.ErrNoSkill, entryName(d), d.Size)
		}
		m, kind, err := f.manifest(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("%w (the index's manifest for %s)", err, entryName(d))
		}
		if kind != kindManifest {
			return nil, fmt.Errorf("%w: the index's manifest for %s is an index itself; a skill image's index lists image manifests", source.ErrNoSkill, entryName(d))
		}
		img, err := imageOf(m)
		if err != nil {
			return nil, fmt.Errorf("%w (the index's manifest for %s)", err, entryName(d))
		}
		if first == nil {
			first, firstEntry = img, d
			maps.Copy(annotations, m.Annotations)
			continue
		}
		if img.layer.Digest != first.layer.Digest || img.layer.Size != first.layer.Size {
			return nil, fmt.Errorf("%w: the index lists %d manifests whose layers differ: the manifest for %s has the layer %s (%d bytes), the manifest for %s the layer %s (%d bytes); a skill image's platforms share one layer", source.ErrNoSkill,
				len(entries), entryName(firstEntry), first.layer.Digest, first.layer.Size, entryName(d), img.layer.Digest, img.layer.Size)
		}
		first.rule = max(first.rule, img.rule)
		first.ours = first.ours || img.ours
	}
	first.ours = first.ours || idx.ArtifactType == ArtifactType || idx.Annotations[AnnotationSkill] == ArtifactType
	first.annotations = annotations
	return first, nil
}

// platformManifests returns the entries of the index idx that are
// platform manifests, leaving out the attestations build tools add
// beside them (rule 1), and checks their number.
func platformManifests(idx *manifest) ([]ocispec.Descriptor, error) {
	var found []ocispec.Descriptor
	for _, d := range idx.Manifests {
		if d.Annotations["vnd.docker.reference.type"] != "" || d.Platform != nil && d.Platform.OS == "unknown" && d.Platform.Architecture == "unknown" {
			continue
		}
		found = append(found, d)
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("%w: the index lists no image manifest (%d attestations left out)", source.ErrNoSkill, len(idx.Manifests))
	case len(found) > maxPlatforms:
		return nil, fmt.Errorf("%w: the index lists %d platform manifests, and at most %d are read: a skill is the same on every platform, so publish it for fewer", source.ErrNoSkill, len(found), maxPlatforms)
	}
	return found, nil
}

// entryName names an index's entry for a message: its platform and
// digest.
func entryName(d ocispec.Descriptor) string {
	p := "no platform"
	if d.Platform != nil {
		p = d.Platform.OS + "/" + d.Platform.Architecture
		if d.Platform.Variant != "" {
			p += "/" + d.Platform.Variant
		}
	}
	return fmt.Sprintf("%s (%s)", clip(p, 64), d.Digest)
}

// clip cuts s, which a registry wrote, to at most n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// registryHost reports whether host, a reference's first element, names
// a registry as Docker's reference grammar tells one (and
// go-containerregistry, which ToolHive reads references with): it holds
// a "." or a ":" (a port), or is localhost. Another first element is,
// for those tools, a path under docker.io.
func registryHost(host string) bool {
	return strings.ContainsAny(host, ".:") || host == "localhost"
}

// parseRequires reads the requirements annotation (What Fetch reads,
// rule 11): nil when there is none.
func parseRequires(annotations map[string]string) ([]string, error) {
	text, ok := annotations[RequiresAnnotation]
	if !ok {
		return nil, nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: the annotation %s is not a JSON array of OCI references (HOST/REPO:TAG or HOST/REPO@DIGEST): %s", source.ErrNoSkill, RequiresAnnotation, fmt.Sprintf(format, args...))
	}
	if len(text) > maxRequiresBytes {
		return nil, bad("it is %d bytes, and at most %d are read", len(text), maxRequiresBytes)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil || raw == nil {
		return nil, bad("%q", clip(text, 80))
	}
	if len(raw) > maxRequires {
		return nil, bad("it lists %d, and at most %d are read", len(raw), maxRequires)
	}
	refs := make([]string, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &refs[i]); err != nil || string(r) == "null" {
			return nil, bad("entry %d, %s, is not a string", i+1, clip(string(r), 80))
		}
		ref, err := ParseReference(Scheme + refs[i])
		if err != nil || ref.Range != "" || strings.Contains(refs[i], "://") {
			return nil, bad("entry %d, %q, is not one", i+1, clip(refs[i], 80))
		}
		if !registryHost(ref.Host) {
			return nil, bad("entry %d, %q, names no registry: its first element, %q, is no host name (one with a \".\" or a port, or localhost), and Docker's tools would read it as a repository on docker.io; write the registry in full, as docker.io/%s", i+1, clip(refs[i], 80), clip(ref.Host, 40), clip(refs[i], 80))
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	return refs, nil
}
