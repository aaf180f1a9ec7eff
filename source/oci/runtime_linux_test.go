package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cosigntest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/podmantest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/registrytest"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// These tests check what a container runtime makes of what Push writes:
// the distribution registry (internal/testkit/registrytest) is the
// registry, podman pulls from it and mounts the image (podman image
// mount unpacks the layers as a Kubernetes image volume does), and
// skopeo reads the manifests and configs. They run on Linux, as root
// (see internal/testkit/podmantest); .ci/install-podman and
// .ci/install-registry install the programs.

// runtimePlatforms are the runtimePlatforms an image of Push's holds.
var runtimePlatforms = []string{"linux/amd64", "linux/arm64"}

// treeEntry is one file or folder of a tree as a runtime shows it: its type
// and permission bits, its owner and, for a file, its bytes.
type treeEntry struct {
	Mode     fs.FileMode
	UID, GID uint32
	MTime    int64
	Data     string
}

func (e treeEntry) String() string {
	return fmt.Sprintf("%v uid %d gid %d mtime %d %d bytes", e.Mode, e.UID, e.GID, e.MTime, len(e.Data))
}

// mountedTree lists the tree under dir as it is on disk, every treeEntry
// with its mode, owner, modification time and bytes.
func mountedTree(t *testing.T, dir string) map[string]treeEntry {
	t.Helper()
	tree := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		e := treeEntry{Mode: fi.Mode(), UID: st.Uid, GID: st.Gid, MTime: fi.ModTime().Unix()}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			e.Data = string(data)
		}
		rel, _ := filepath.Rel(dir, path)
		tree[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// packedTree is the tree Push packs from the folder dir, by the rules of
// The format Push writes: folders 0755, files 0644, or 0755 when any
// executable bit is set, owners 0, times the Unix epoch; a link to a file
// as a copy of it; no .git folder.
func packedTree(t *testing.T, dir string) map[string]treeEntry {
	t.Helper()
	tree := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Stat(path) // a link as what it leads to
		if err != nil {
			return err
		}
		e := treeEntry{Mode: fs.ModeDir | 0o755}
		if fi.Mode().IsRegular() {
			e.Mode = 0o644
			if fi.Mode()&0o111 != 0 {
				e.Mode = 0o755
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			e.Data = string(data)
		}
		rel, _ := filepath.Rel(dir, path)
		tree[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// diffTree fails t for every treeEntry that got lacks, holds in excess or
// holds otherwise than want.
func diffTree(t *testing.T, what string, got, want map[string]treeEntry) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: %s is missing", what, name)
		case g != want[name]:
			t.Errorf("%s: %s is %v, want %v", what, name, g, want[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s (%v) is extra", what, name, got[name])
		}
	}
}

// oddSkill writes a skill whose files have odd modes (read-only,
// private, executable by the group alone), an executable script, folders
// nested five deep and of odd modes, names that are not ASCII or hold
// spaces and marks, an empty file, 300 KiB of random bytes, a link to a
// file, and a .git folder, which Push leaves out. It returns the folder.
func oddSkill(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "odd-modes")
	random := make([]byte, 300<<10)
	rand.Read(random)
	files := []struct {
		name string
		mode fs.FileMode
		data string
	}{
		{"SKILL.md", 0o644, skillMD("odd-modes", "A skill with odd file modes, names and nesting")},
		{"scripts/run.sh", 0o755, "#!/bin/sh\necho run\n"},
		{"scripts/private-tool", 0o700, "#!/bin/sh\necho private\n"},
		{"scripts/group-only.sh", 0o614, "#!/bin/sh\necho group\n"},
		{"reference.md", 0o444, "read-only reference\n"},
		{"secret-template.env", 0o600, "TOKEN=\n"},
		{"empty", 0o644, ""},
		{"assets/blob.bin", 0o640, string(random)},
		{"références/café.md", 0o644, "un café, s'il vous plaît\n"},
		{"日本語/説明 (v2) & more.md", 0o644, "説明\n"},
		{"a/b/c/d/e/deep.md", 0o644, "deep\n"},
		{".git/config", 0o644, "[core]\n"},
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("reference.md", filepath.Join(dir, "link-to-reference.md")); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]fs.FileMode{"a/b": 0o700, "日本語": 0o750, "assets": 0o711} {
		if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(name)), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runtimeRig is a distribution registry and a podman with storage of
// its own that pulls from it.
type runtimeRig struct {
	host   string
	podman *podmantest.Podman
	opts   []Option
}

func newRuntimeRig(t *testing.T) runtimeRig {
	t.Helper()
	pm := podmantest.New(t)
	reg := registrytest.Start(t)
	_, opts := testOptions(t)
	return runtimeRig{host: reg.Host, podman: pm, opts: opts}
}

// push pushes the skill in dir to oci://HOST/repo:tag and returns the
// digest Push returned.
func (r runtimeRig) push(t *testing.T, dir, repo, tag string, opts ...Option) string {
	t.Helper()
	dgst, err := Push(t.Context(), dir, "oci://"+r.host+"/"+repo+":"+tag, append(slices.Clone(r.opts), opts...)...)
	if err != nil {
		t.Fatalf("Push(%s) = %v", dir, err)
	}
	return dgst
}

// TestPodmanMountsPush: podman pulls what Push wrote, by its digest, from
// the distribution registry, for linux/amd64 and for linux/arm64, and
// podman image mount shows the skill's files at the root, byte for byte
// and mode for mode as Push packs them (owned by root, dated the Unix
// epoch), and nothing else.
func TestPodmanMountsPush(t *testing.T) {
	t.Parallel()
	r := newRuntimeRig(t)
	dir := oddSkill(t)
	dgst := r.push(t, dir, "skills/odd-modes", "1.0.0")
	want := packedTree(t, dir)
	if _, ok := want[".git/config"]; ok {
		t.Fatal("packedTree kept the .git folder")
	}
	ref := r.host + "/skills/odd-modes@" + dgst
	for _, platform := range runtimePlatforms {
		id := r.podman.Pull(ref, "--platform", platform)
		var inspect []struct{ Os, Architecture string }
		if err := json.Unmarshal([]byte(r.podman.MustRun("image", "inspect", id)), &inspect); err != nil || len(inspect) != 1 {
			t.Fatalf("podman image inspect %s: %v", id, err)
		}
		if got := inspect[0].Os + "/" + inspect[0].Architecture; got != platform {
			t.Errorf("podman pull --platform %s of %s pulled an image for %s", platform, ref, got)
		}
		diffTree(t, "podman image mount of "+platform, mountedTree(t, r.podman.Mount(id)), want)
	}
}

// blob reads a blob of HOST/repo from the registry and checks it
// against its digest.
func (r runtimeRig) blob(t *testing.T, repo, dgst string) []byte {
	t.Helper()
	resp, err := http.Get("http://" + r.host + "/v2/" + repo + "/blobs/" + dgst)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET blob %s: %s, %v", dgst, resp.Status, err)
	}
	if got := sha256Of(data); got != dgst {
		t.Fatalf("blob %s holds bytes of digest %s", dgst, got)
	}
	return data
}

func sha256Of(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestSkopeoReadsPush: skopeo inspect --raw shows the index Push wrote,
// over linux/amd64 and linux/arm64 image manifests that list one and the
// same tar+gzip layer; skopeo inspect --config shows each platform's
// image config, with its os and architecture, and rootfs.diff_ids naming
// the sha256 of the gunzipped layer, for the manifest's digest and for
// the index with the platform chosen (--override-arch); --config --raw
// prints the config's bytes.
func TestSkopeoReadsPush(t *testing.T) {
	t.Parallel()
	r := newRuntimeRig(t)
	const repo = "skills/odd-modes"
	dgst := r.push(t, oddSkill(t), repo, "1.0.0")
	ref := "docker://" + r.host + "/" + repo + "@"

	var index ocispec.Index
	raw := r.podman.MustSkopeo("inspect", "--tls-verify=false", "--raw", ref+dgst)
	if err := json.Unmarshal([]byte(raw), &index); err != nil {
		t.Fatal(err)
	}
	if index.MediaType != ocispec.MediaTypeImageIndex || sha256Of([]byte(raw)) != dgst {
		t.Fatalf("skopeo inspect --raw %s: media type %q, digest %s, want an image index of that digest\n%s", dgst, index.MediaType, sha256Of([]byte(raw)), raw)
	}
	var got []string
	layers := map[string]bool{}
	for _, m := range index.Manifests {
		if m.Platform == nil {
			t.Fatalf("the index names %s without a platform", m.Digest)
		}
		platform := m.Platform.OS + "/" + m.Platform.Architecture
		got = append(got, platform)
		var manifest ocispec.Manifest
		if err := json.Unmarshal([]byte(r.podman.MustSkopeo("inspect", "--tls-verify=false", "--raw", ref+m.Digest.String())), &manifest); err != nil {
			t.Fatal(err)
		}
		if manifest.MediaType != ocispec.MediaTypeImageManifest || manifest.Config.MediaType != ocispec.MediaTypeImageConfig || len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != ocispec.MediaTypeImageLayerGzip {
			t.Fatalf("%s manifest: %+v, want an image manifest, an image config and one tar+gzip layer", platform, manifest)
		}
		layer := manifest.Layers[0].Digest.String()
		layers[layer] = true
		uncompressed, err := gzip.NewReader(bytes.NewReader(r.blob(t, repo, layer)))
		if err != nil {
			t.Fatal(err)
		}
		tarball, err := io.ReadAll(uncompressed)
		if err != nil {
			t.Fatal(err)
		}
		diffID := sha256Of(tarball)

		byManifest := r.podman.MustSkopeo("inspect", "--tls-verify=false", "--config", ref+m.Digest.String())
		byIndex := r.podman.MustSkopeo("inspect", "--tls-verify=false", "--override-os", m.Platform.OS, "--override-arch", m.Platform.Architecture, "--config", ref+dgst)
		if byManifest != byIndex {
			t.Errorf("%s: skopeo inspect --config of the manifest and of the index for its platform differ:\n%s\n%s", platform, byManifest, byIndex)
		}
		if raw := r.podman.MustSkopeo("inspect", "--tls-verify=false", "--config", "--raw", ref+m.Digest.String()); sha256Of([]byte(raw)) != manifest.Config.Digest.String() {
			t.Errorf("%s: skopeo inspect --config --raw printed bytes other than the config's %s:\n%s", platform, manifest.Config.Digest, raw)
		}
		var config ocispec.Image
		if err := json.Unmarshal([]byte(byManifest), &config); err != nil {
			t.Fatal(err)
		}
		if config.OS+"/"+config.Architecture != platform || config.RootFS.Type != "layers" || len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0].String() != diffID {
			t.Errorf("%s: skopeo inspect --config: %s/%s, rootfs %+v, want %s, rootfs layers [%s]\n%s",
				platform, config.OS, config.Architecture, config.RootFS, platform, diffID, byManifest)
		}
	}
	if !slices.Equal(got, runtimePlatforms) || len(layers) != 1 {
		t.Errorf("skopeo inspect --raw: an index over %v with layers %v, want %v sharing one layer\n%s", got, layers, runtimePlatforms, raw)
	}
}

// TestPodmanRefusesArtifact: the format Push wrote before images, an
// artifact (WithFormat(FormatArtifact): an artifactType, the empty
// config, a layer type of our own), podman refuses to pull as an image
// ("unsupported image-specific operation on artifact"), as containerd
// and CRI-O refuse to mount it: why Push writes an image by default.
func TestPodmanRefusesArtifact(t *testing.T) {
	t.Parallel()
	r := newRuntimeRig(t)
	dgst := r.push(t, oddSkill(t), "skills/odd-modes", "artifact", WithFormat(FormatArtifact))
	ref := r.host + "/skills/odd-modes@" + dgst
	res := r.podman.Run("pull", "--tls-verify=false", ref)
	const want = `unsupported image-specific operation on artifact with type "application/vnd.oci.empty.v1+json"`
	if res.Err == nil || !strings.Contains(res.Stderr, want) {
		t.Errorf("podman pull of an artifact: %v\nstderr: %s\nwant it refused with %q", res.Err, res.Stderr, want)
	}
	if out := strings.TrimSpace(r.podman.MustRun("images", "--quiet")); out != "" {
		t.Errorf("after the refused pull, podman holds images %q", out)
	}
}

// contentOf is tree as a skill's content: each treeEntry's type, executable
// bit and bytes, its other bits, owner and time left out (the cache
// writes files read-only).
func contentOf(tree map[string]treeEntry) map[string]treeEntry {
	out := make(map[string]treeEntry, len(tree))
	for name, e := range tree {
		c := treeEntry{Mode: e.Mode.Type(), Data: e.Data}
		if e.Mode.IsRegular() && e.Mode&0o111 != 0 {
			c.Mode |= 0o100
		}
		out[name] = c
	}
	return out
}

// podmanIndex makes a skill image as podman makes one (as ToolHive-style
// images are made with podman or buildah): the uncompressed tar rootfs
// imported for linux/amd64 and for linux/arm64, the two images added to a
// manifest list, pushed with --all to HOST/repo:tag in format (oci or
// v2s2), by a podman of its own. It returns the digest of the index
// pushed.
func (r runtimeRig) podmanIndex(t *testing.T, rootfs, repo, tag, format string) string {
	t.Helper()
	maker := podmantest.New(t) // not r.podman, which pulls it then
	list := r.host + "/" + repo + ":" + tag
	maker.MustRun("manifest", "create", list)
	for _, arch := range []string{"amd64", "arm64"} {
		img := r.host + "/" + repo + ":" + tag + "-" + arch
		maker.MustRun("import", "--quiet", "--os", "linux", "--arch", arch, rootfs, img)
		maker.MustRun("manifest", "add", list, "containers-storage:"+img)
	}
	digestFile := filepath.Join(t.TempDir(), "digest")
	maker.MustRun("manifest", "push", "--quiet", "--all", "--format", format, "--tls-verify=false", "--digestfile", digestFile, list, "docker://"+list)
	dgst, err := os.ReadFile(digestFile)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(dgst))
}

// rootfsTar packs the folder dir as a rootfs tar, as tar -C dir -cf
// would: the files at the root, with their modes.
func rootfsTar(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rootfs.tar")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	if err := tw.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFetchPodmanIndex: a multi-platform skill image made by podman
// itself (podman import for two runtimePlatforms, podman manifest push --all),
// as an OCI index and as a Docker manifest list, Fetch installs pinned by
// the index's digest: the skill at the layer's root, the same files, byte
// for byte and bit for bit, as podman image mount shows for each
// platform.
func TestFetchPodmanIndex(t *testing.T) {
	t.Parallel()
	r := newRuntimeRig(t)
	dir := filepath.Join(t.TempDir(), "podman-made")
	writeTree(t, dir, map[string]string{
		"SKILL.md":           skillMD("podman-made", "Made into an image by podman"),
		"scripts/run.sh*":    "#!/bin/sh\necho run\n",
		"références/café.md": "café\n",
		"a/b/c/deep.md":      "deep\n",
	})
	rootfs := rootfsTar(t, dir)
	mediaTypes := map[string]string{
		"oci":  ocispec.MediaTypeImageIndex,
		"v2s2": "application/vnd.docker.distribution.manifest.list.v2+json",
	}
	for _, format := range []string{"oci", "v2s2"} {
		t.Run(format, func(t *testing.T) {
			root, opts := testOptions(t)
			dgst := r.podmanIndex(t, rootfs, "skills/podman-made", format, format)
			var index ocispec.Index
			raw := r.podman.MustSkopeo("inspect", "--tls-verify=false", "--raw", "docker://"+r.host+"/skills/podman-made@"+dgst)
			if err := json.Unmarshal([]byte(raw), &index); err != nil || index.MediaType != mediaTypes[format] || len(index.Manifests) != 2 {
				t.Fatalf("podman manifest push --format %s pushed %v, want a %s of two manifests\n%s", format, err, mediaTypes[format], raw)
			}
			pinned := "oci://" + r.host + "/skills/podman-made:" + format + "@" + dgst
			a, err := Fetch(t.Context(), pinned, opts...)
			if err != nil {
				t.Fatalf("Fetch(%q) = %v", pinned, err)
			}
			if a.Digest != dgst || a.Name != "podman-made" || a.Subpath != "" {
				t.Errorf("Fetch(%q) = digest %s, name %q, subpath %q; want %s, podman-made, the root", pinned, a.Digest, a.Name, a.Subpath, dgst)
			}
			got, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(t.Context(), a.Skill())
			if err != nil {
				t.Fatalf("Materialize: %v", err)
			}
			installed := contentOf(mountedTree(t, got))
			diffTree(t, "the installed skill against its folder", installed, contentOf(mountedTree(t, dir)))
			for _, platform := range runtimePlatforms {
				id := r.podman.Pull(r.host+"/skills/podman-made@"+dgst, "--platform", platform)
				diffTree(t, "the installed skill against podman image mount of "+platform, installed, contentOf(mountedTree(t, r.podman.Mount(id))))
			}
		})
	}
}

// TestDistributionPushFetchSignVerify: against the distribution registry
// (not only the in-process one of the other tests), Push's index fetches
// pinned by its digest and installs the skill's files; Sign signs the
// index digest and Verify accepts that signature and refuses another key
// and an unsigned push; with cosign (AGENTADAPTOR_COSIGN), cosign verify
// accepts what Sign attached to the index there, and Verify what cosign
// sign attached, both through the referrers tag scheme, the registry
// having no referrers API. podman still pulls the signed index.
func TestDistributionPushFetchSignVerify(t *testing.T) {
	t.Parallel()
	r := newRuntimeRig(t)
	ctx := t.Context()
	root, opts := testOptions(t)
	dir := oddSkill(t)
	const repo = "skills/odd-modes"
	dgst := r.push(t, dir, repo, "1.0.0")
	pinned := "oci://" + r.host + "/" + repo + ":1.0.0@" + dgst
	if got, err := Resolve(ctx, "oci://"+r.host+"/"+repo+":1.0.0", opts...); err != nil || got != dgst {
		t.Fatalf("Resolve of the tag = %s, %v, want the digest Push returned, %s", got, err, dgst)
	}
	a, err := Fetch(ctx, pinned, opts...)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", pinned, err)
	}
	if a.Digest != dgst || a.Name != "odd-modes" || a.Annotations[AnnotationSkill] != ArtifactType {
		t.Errorf("Fetch(%q) = digest %s, name %q, annotations %v", pinned, a.Digest, a.Name, a.Annotations)
	}
	got, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, a.Skill())
	if err != nil {
		t.Fatalf("Materialize: %v", err)
	}
	diffTree(t, "the installed skill", contentOf(mountedTree(t, got)), contentOf(packedTree(t, dir)))

	key, other := ecdsaKey(t), ecdsaKey(t)
	if _, err := signRef(ctx, pinned, key, opts...); err != nil {
		t.Fatalf("Sign(%q) = %v", pinned, err)
	}
	// The distribution registry has no referrers API (GET
	// /v2/REPO/referrers/DIGEST is 404): the signature is listed in the
	// referrers tag scheme's index, under the tag sha256-HEX.
	resp, err := http.Get("http://" + r.host + "/v2/" + repo + "/referrers/" + dgst)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET referrers of %s = %s; the distribution registry %s now serves the referrers API: say so in the test", dgst, resp.Status, registrytest.Version)
	}
	tags, err := Tags(ctx, r.host, repo, 100, opts...)
	if want := strings.Replace(dgst, ":", "-", 1); err != nil || !slices.Contains(tags, want) {
		t.Errorf("Tags(%s) after Sign = %v, %v, want the referrers tag %s among them", repo, tags, err, want)
	}
	signer, err := verifyRef(ctx, pinned, []signature.Requirement{keyRequirement(t, key)}, opts...)
	if err != nil || signer.KeyID != keyID(t, key) {
		t.Errorf("Verify(%q) of what Sign attached = %+v, %v, want key %s", pinned, signer, err, keyID(t, key))
	}
	if _, err := verifyRef(ctx, pinned, []signature.Requirement{keyRequirement(t, other)}, opts...); !errors.Is(err, source.ErrUntrusted) {
		t.Errorf("Verify(%q) with another key = %v, want %v", pinned, err, source.ErrUntrusted)
	}
	unsigned := "oci://" + r.host + "/" + repo + ":2.0.0@" + r.push(t, newSkill(t, "odd-modes"), repo, "2.0.0")
	if _, err := verifyRef(ctx, unsigned, []signature.Requirement{keyRequirement(t, key)}, opts...); !errors.Is(err, source.ErrUnsigned) {
		t.Errorf("Verify(%q) of an unsigned push = %v, want %v", unsigned, err, source.ErrUnsigned)
	}
	// A fresh cache reads the signature from the registry again.
	_, fresh := testOptions(t)
	if _, err := verifyRef(ctx, pinned, []signature.Requirement{keyRequirement(t, key)}, fresh...); err != nil {
		t.Errorf("Verify(%q) with an empty cache = %v", pinned, err)
	}
	id := r.podman.Pull(r.host + "/" + repo + "@" + dgst)
	diffTree(t, "podman image mount of the signed index", mountedTree(t, r.podman.Mount(id)), packedTree(t, dir))

	t.Run("cosign", func(t *testing.T) {
		cosigntest.Path(t)
		signing := ecdsaKey(t)
		kp := pkcs8Files(t, signing)
		res := cosignVerify(t, kp.Public, pinned)
		if res.Err == nil {
			t.Fatalf("cosign verify before cosign signed accepted:\n%s", res.Stdout)
		}
		if _, err := signRef(ctx, pinned, signing, fresh...); err != nil {
			t.Fatalf("Sign(%q) = %v", pinned, err)
		}
		res = cosignVerify(t, kp.Public, pinned)
		if res.Err != nil || !strings.Contains(res.Stdout, `"docker-manifest-digest":"`+dgst+`"`) {
			t.Fatalf("cosign verify of what Sign attached to the index: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
		}
		other := cosigntest.GenerateKeyPair(t, "")
		cosignSign(t, other, unsigned)
		_, fresh := testOptions(t)
		if _, err := verifyRef(ctx, unsigned, []signature.Requirement{{Key: loadPublic(t, other)}}, fresh...); err != nil {
			t.Errorf("Verify(%q) of what cosign signed on the distribution registry = %v", unsigned, err)
		}
		if _, err := verifyRef(ctx, unsigned, []signature.Requirement{{Key: loadPublic(t, kp)}}, fresh...); !errors.Is(err, source.ErrUntrusted) {
			t.Errorf("Verify(%q) of what cosign signed, with another key = %v, want %v", unsigned, err, source.ErrUntrusted)
		}
	})
}
