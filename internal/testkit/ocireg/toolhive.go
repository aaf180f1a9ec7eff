package ocireg

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// ToolHiveSkill is a skill as ToolHive publishes it (PushToolHive).
type ToolHiveSkill struct {
	// Name, Description and Version are the SKILL.md front matter's,
	// which ToolHive copies into annotations and labels.
	Name, Description, Version string
	// Requires are the references of the skills it needs (the SKILL.md
	// metadata toolhive.requires), recorded as the
	// dev.toolhive.skills.requires annotation when there are any.
	Requires []string
	// Files are the skill's files, path: content, SKILL.md among them.
	Files map[string]string
}

// PushToolHive pushes s to host/repo under tag in ToolHive's layout and
// returns the index's descriptor. The layout is ToolHive's as its
// packager writes it (github.com/stacklok/toolhive-core, oci/skills
// packager.go and mediatypes.go, and oci/artifact's tar, gzip and
// platforms, read at commit 24d618f9, August 2026):
//
//   - one layer, application/vnd.oci.image.layer.v1.tar+gzip, annotated
//     org.opencontainers.image.title "skill.tar.gz", holding SKILL.md and
//     the other files at its root ([Tar], [Gzip]), shared by every
//     platform;
//   - per platform (linux/amd64, linux/arm64) an image config
//     (application/vnd.oci.image.config.v1+json): created, os,
//     architecture, config.Labels dev.toolhive.skills.name, .description,
//     .version, .allowedTools, .license, .files (JSON arrays as text),
//     rootfs {layers, diff_ids: the uncompressed tar's digest}, one
//     history entry "toolhive package";
//   - per platform an image manifest, artifactType dev.toolhive.skills.v1,
//     annotated org.opencontainers.image.created (the epoch, RFC 3339),
//     dev.toolhive.skills.name, .description, .version, and .requires (a
//     JSON array) when the skill has dependencies;
//   - an image index, artifactType dev.toolhive.skills.v1, listing the
//     manifests with their platforms, annotated with the first
//     manifest's annotations.
func PushToolHive(t testing.TB, host, repo, tag string, s ToolHiveSkill) ocispec.Descriptor {
	t.Helper()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	push := func(mt string, v any, tag string) ocispec.Descriptor {
		data, ok := v.([]byte)
		if !ok {
			if data, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		desc := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		switch {
		case tag != "":
			err = r.PushReference(context.Background(), desc, bytes.NewReader(data), tag)
		case mt == ocispec.MediaTypeImageManifest || mt == ocispec.MediaTypeImageIndex:
			err = r.PushReference(context.Background(), desc, bytes.NewReader(data), desc.Digest.String())
		default:
			err = r.Blobs().Push(context.Background(), desc, bytes.NewReader(data))
		}
		if err != nil {
			t.Fatal(err)
		}
		return desc
	}
	uncompressed := Tar(t, s.Files)
	layer := push(ocispec.MediaTypeImageLayerGzip, Gzip(t, uncompressed), "")
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: "skill.tar.gz"}
	epoch := time.Unix(0, 0).UTC()
	files, _ := json.Marshal(slices.Sorted(maps.Keys(s.Files)))
	annotations := map[string]string{
		ocispec.AnnotationCreated:         epoch.Format(time.RFC3339),
		"dev.toolhive.skills.name":        s.Name,
		"dev.toolhive.skills.description": s.Description,
		"dev.toolhive.skills.version":     s.Version,
	}
	if len(s.Requires) > 0 {
		data, _ := json.Marshal(s.Requires)
		annotations["dev.toolhive.skills.requires"] = string(data)
	}
	var manifests []ocispec.Descriptor
	for _, p := range []ocispec.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}} {
		config := push(ocispec.MediaTypeImageConfig, ocispec.Image{
			Created:  &epoch,
			Platform: p,
			Config: ocispec.ImageConfig{Labels: map[string]string{
				"dev.toolhive.skills.name":         s.Name,
				"dev.toolhive.skills.description":  s.Description,
				"dev.toolhive.skills.version":      s.Version,
				"dev.toolhive.skills.allowedTools": "null",
				"dev.toolhive.skills.license":      "",
				"dev.toolhive.skills.files":        string(files),
			}},
			RootFS:  ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{digest.FromBytes(uncompressed)}},
			History: []ocispec.History{{Created: &epoch, CreatedBy: "toolhive package"}},
		}, "")
		m := push(ocispec.MediaTypeImageManifest, ocispec.Manifest{
			Versioned:    specs.Versioned{SchemaVersion: 2},
			MediaType:    ocispec.MediaTypeImageManifest,
			ArtifactType: "dev.toolhive.skills.v1",
			Config:       config,
			Layers:       []ocispec.Descriptor{layer},
			Annotations:  annotations,
		}, "")
		m.Platform = &p
		manifests = append(manifests, m)
	}
	return push(ocispec.MediaTypeImageIndex, ocispec.Index{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageIndex,
		ArtifactType: "dev.toolhive.skills.v1",
		Manifests:    manifests,
		Annotations:  annotations,
	}, tag)
}

// Tar packs files (path: content), sorted by path, as regular files only
// (no folder entries), mode 0644, times the Unix epoch, owners 0, in the
// PAX format: the tar ToolHive writes (toolhive-core, oci/artifact
// CreateTar).
func Tar(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hdr := &tar.Header{Name: name, Size: int64(len(files[name])), Mode: 0o644, ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Gzip compresses data as ToolHive does (toolhive-core, oci/artifact
// Compress): best compression, the epoch as the time, no name, OS 255.
func Gzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.ModTime, zw.OS = time.Unix(0, 0).UTC(), 255
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
