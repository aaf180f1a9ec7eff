package podmantest_test

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/podmantest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/registrytest"
)

// TestConfigurationIsTheTests: podman reports the test's storage, its
// configuration files and no events; nothing of the machine's.
func TestConfigurationIsTheTests(t *testing.T) {
	t.Parallel()
	p := podmantest.New(t)
	var info struct {
		Host struct {
			EventLogger string `json:"eventLogger"`
		} `json:"host"`
		Store struct {
			ConfigFile      string `json:"configFile"`
			GraphDriverName string `json:"graphDriverName"`
			GraphRoot       string `json:"graphRoot"`
			RunRoot         string `json:"runRoot"`
			ImageCopyTmpDir string `json:"imageCopyTmpDir"`
			VolumePath      string `json:"volumePath"`
		} `json:"store"`
	}
	out := p.MustRun("info", "--format", "json")
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("podman info: %v\n%s", err, out)
	}
	dir := filepath.Dir(p.Root())
	for _, c := range []struct{ name, got string }{
		{"store.configFile", info.Store.ConfigFile},
		{"store.graphRoot", info.Store.GraphRoot},
		{"store.imageCopyTmpDir", info.Store.ImageCopyTmpDir},
		{"store.volumePath", info.Store.VolumePath},
	} {
		if !strings.HasPrefix(c.got, dir+string(filepath.Separator)) {
			t.Errorf("podman info: %s = %q, want a path under the test's %s", c.name, c.got, dir)
		}
	}
	if info.Store.GraphRoot != p.Root() || info.Store.RunRoot != p.RunRoot() || info.Store.GraphDriverName != podmantest.Driver || info.Host.EventLogger != "none" {
		t.Errorf("podman info: graphRoot %q, runRoot %q, driver %q, events %q, want %q, %q, %q, none",
			info.Store.GraphRoot, info.Store.RunRoot, info.Store.GraphDriverName, info.Host.EventLogger, p.Root(), p.RunRoot(), podmantest.Driver)
	}
}

// file is one entry of a tree: its mode and, for a file, its bytes.
type file struct {
	mode fs.FileMode
	data string
}

// rootfs is the tree the tests import: a skill, as another tool packs
// it, with a script, a nested folder and a name that is not ASCII.
var rootfs = map[string]file{
	"SKILL.md":            {0o644, "---\nname: imported\ndescription: Made by podman import\n---\n"},
	"scripts":             {fs.ModeDir | 0o755, ""},
	"scripts/run.sh":      {0o755, "#!/bin/sh\necho run\n"},
	"docs":                {fs.ModeDir | 0o750, ""},
	"docs/deep":           {fs.ModeDir | 0o755, ""},
	"docs/deep/résumé.md": {0o600, "é\n"},
	"docs/deep/empty":     {0o644, ""},
	"docs/deep/読んで.txt":   {0o444, "日本語\n"},
}

// tarOf packs tree as an uncompressed tar, as podman import reads it.
func tarOf(t *testing.T, tree map[string]file) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range tree {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		f := tree[name]
		h := &tar.Header{Name: name, Mode: int64(f.mode.Perm()), Typeflag: tar.TypeReg, Size: int64(len(f.data)), Format: tar.FormatPAX}
		if f.mode.IsDir() {
			h.Name, h.Typeflag, h.Size = name+"/", tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rootfs.tar")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// treeOf lists the tree under dir.
func treeOf(t *testing.T, dir string) map[string]file {
	t.Helper()
	tree := map[string]file{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		f := file{mode: fi.Mode()}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f.data = string(data)
		}
		tree[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func diffTrees(t *testing.T, what string, got, want map[string]file) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: %s missing", what, name)
		case g != w:
			t.Errorf("%s: %s = %v %q, want %v %q", what, name, g.mode, g.data, w.mode, w.data)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s is extra", what, name)
		}
	}
}

// TestBlobCacheIsTheTests: what podman copies it records in a blob
// information cache under the test's VarLib, not the machine's
// /var/lib/containers/cache; and the folder bound there is not mounted
// outside podman.
func TestBlobCacheIsTheTests(t *testing.T) {
	t.Parallel()
	p := podmantest.New(t)
	p.MustRun("import", "--quiet", tarOf(t, rootfs), "localhost/imported:1")
	cache := filepath.Join(p.VarLib(), "containers", "cache", "blob-info-cache-v1.boltdb")
	if fi, err := os.Stat(cache); err != nil || fi.Size() == 0 {
		t.Errorf("after podman import, the blob information cache %s: %v", cache, err)
	}
	if out := strings.TrimSpace(p.MustSkopeo("--version")); !strings.HasPrefix(out, "skopeo version ") {
		t.Errorf("skopeo --version printed %q", out)
	}
	assertNoMounts(t, filepath.Dir(p.Root()))
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), p.VarLib()) {
		t.Errorf("%s is mounted outside podman:\n%s", p.VarLib(), data)
	}
}

// TestImportMount: an image podman imports mounts with its tree as it
// was, and is unmounted at the end of the test; the vfs driver makes no
// kernel mount.
func TestImportMount(t *testing.T) {
	t.Parallel()
	var p *podmantest.Podman
	t.Run("mount", func(t *testing.T) {
		p = podmantest.New(t)
		id := strings.TrimSpace(p.MustRun("import", "--quiet", tarOf(t, rootfs), "localhost/imported:1"))
		dir := p.Mount("localhost/imported:1")
		diffTrees(t, "the mounted image", treeOf(t, dir), rootfs)
		if out := p.MustRun("image", "mount"); !strings.Contains(out, dir) {
			t.Errorf("podman image mount lists %q, want %s", out, dir)
		}
		if !strings.HasPrefix(id, "sha256:") {
			t.Errorf("podman import printed %q, want the image ID", id)
		}
		assertNoMounts(t, p.Root())
	})
	if p == nil {
		t.Fatal("the subtest made no podman")
	}
	assertNoMounts(t, p.Root())
	for _, dir := range []string{p.Root(), p.RunRoot()} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the test: %v", dir, err)
		}
	}
}

// assertNoMounts fails if a file system is mounted under dir.
func assertNoMounts(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if fields := strings.Fields(line); len(fields) > 4 && strings.HasPrefix(fields[4], dir) {
			t.Errorf("mounted under %s: %s", dir, line)
		}
	}
}

// TestUnmountAtEnd: an image still mounted when the test ends is
// unmounted by its cleanup.
func TestUnmountAtEnd(t *testing.T) {
	t.Parallel()
	p := podmantest.New(t)
	p.MustRun("import", "--quiet", tarOf(t, rootfs), "localhost/imported:1")
	t.Run("mount", func(t *testing.T) {
		// A Podman of the parent mounts: unmounted at the parent's end,
		// checked here by a listing that the subtest's end leaves alone.
		p.Mount("localhost/imported:1")
	})
	if out := strings.TrimSpace(p.MustRun("image", "mount")); out == "" {
		t.Fatal("podman image mount lists nothing while the image is mounted")
	}
	p.Unmount("localhost/imported:1")
	if out := strings.TrimSpace(p.MustRun("image", "mount")); out != "" {
		t.Errorf("after Unmount, podman image mount lists %q", out)
	}
}

// TestPullFromRegistry: an image pushed by podman to the distribution
// registry is pulled by digest into a second storage, for each platform of
// a multi-platform index, and mounts with the same tree; skopeo reads the
// index.
func TestPullFromRegistry(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t)
	maker := podmantest.New(t)
	tarball := tarOf(t, rootfs)
	list := reg.Host + "/skills/imported:1"
	maker.MustRun("manifest", "create", list)
	for _, arch := range []string{"amd64", "arm64"} {
		img := reg.Host + "/skills/imported:" + arch
		maker.MustRun("import", "--quiet", "--os", "linux", "--arch", arch, tarball, img)
		maker.MustRun("manifest", "add", list, "containers-storage:"+img)
	}
	digestFile := filepath.Join(t.TempDir(), "digest")
	maker.MustRun("manifest", "push", "--quiet", "--all", "--format", "oci", "--tls-verify=false", "--digestfile", digestFile, list, "docker://"+list)
	dgst, err := os.ReadFile(digestFile)
	if err != nil {
		t.Fatal(err)
	}

	var index struct {
		MediaType string `json:"mediaType"`
		Manifests []struct {
			Platform struct{ OS, Architecture string } `json:"platform"`
		} `json:"manifests"`
	}
	raw := maker.MustSkopeo("inspect", "--tls-verify=false", "--raw", "docker://"+reg.Host+"/skills/imported@"+string(dgst))
	if err := json.Unmarshal([]byte(raw), &index); err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, m := range index.Manifests {
		platforms = append(platforms, m.Platform.OS+"/"+m.Platform.Architecture)
	}
	if index.MediaType != "application/vnd.oci.image.index.v1+json" || !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("the pushed index: %s over %v, want an OCI index over linux/amd64, linux/arm64\n%s", index.MediaType, platforms, raw)
	}

	user := podmantest.New(t)
	ref := reg.Host + "/skills/imported@" + string(dgst)
	for _, arch := range []string{"amd64", "arm64"} {
		id := user.Pull(ref, "--platform", "linux/"+arch)
		var inspect []struct{ Architecture string }
		if err := json.Unmarshal([]byte(user.MustRun("image", "inspect", id)), &inspect); err != nil || len(inspect) != 1 || inspect[0].Architecture != arch {
			t.Errorf("podman pull --platform linux/%s pulled %+v, %v", arch, inspect, err)
		}
		diffTrees(t, "linux/"+arch, treeOf(t, user.Mount(id)), rootfs)
	}
}
