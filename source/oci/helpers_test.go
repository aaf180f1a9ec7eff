package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// testOptions gives a test its own cache root and no credentials.
func testOptions(t *testing.T) (string, []Option) {
	t.Helper()
	root := cachetest.Root(t)
	return root, []Option{cacheAt(root), WithCredentials(credentials.NewMemoryStore())}
}

// cacheAt is WithCache of a default cache at root.
func cacheAt(root string, opts ...skill.DefaultMaterializerOption) Option {
	return WithCache(skill.NewCache(append([]skill.DefaultMaterializerOption{skill.WithSkillCacheRoot(root)}, opts...)...))
}

// writeTree writes files (path: content; a path ending in "*" is
// executable, without the "*") under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		mode := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n"
}

// newSkill writes a skill folder named name and returns its path.
func newSkill(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	writeTree(t, dir, map[string]string{
		"SKILL.md":        skillMD(name, "Reviews a change"),
		"scripts/run.sh*": "#!/bin/sh\necho run\n",
		"reference.md":    "details\n",
		".env.example":    "KEY=\n",
	})
	return dir
}

// rawRepo returns a client for host/repo that pushes as another tool
// would.
func rawRepo(t *testing.T, host, repo string) *remote.Repository {
	t.Helper()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	return r
}

// pushBlobBytes pushes data as a blob of media type mt and returns its
// descriptor.
func pushBlobBytes(t *testing.T, r *remote.Repository, mt string, data []byte) ocispec.Descriptor {
	t.Helper()
	desc := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
	if err := r.Blobs().Push(context.Background(), desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return desc
}

// pushManifest pushes m (a manifest or index value) under tag (by its
// digest alone when tag is "") and returns its descriptor.
func pushManifest(t *testing.T, r *remote.Repository, mt string, m any, tag string) ocispec.Descriptor {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	desc := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
	if tag == "" {
		tag = desc.Digest.String()
	}
	if err := r.PushReference(context.Background(), desc, bytes.NewReader(data), tag); err != nil {
		t.Fatal(err)
	}
	return desc
}

// imageWithLayer pushes an image (image config, one layer of media type
// mt holding layer) under tag and returns the manifest's descriptor.
func imageWithLayer(t *testing.T, r *remote.Repository, mt string, layer []byte, tag string) ocispec.Descriptor {
	t.Helper()
	config := pushBlobBytes(t, r, ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`))
	l := pushBlobBytes(t, r, mt, layer)
	return pushManifest(t, r, ocispec.MediaTypeImageManifest, ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    config,
		Layers:    []ocispec.Descriptor{l},
	}, tag)
}

// cachedLayers lists the layer-sized blobs (all blobs) in the OCI cache
// under root.
func cachedBlobs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(root, cacheDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// skillTrees lists what the materializer published under root.
func skillTrees(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}
