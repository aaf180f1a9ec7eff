package main

import (
	"archive/tar"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/podmantest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/registrytest"
)

// These tests run agentskills against a container runtime: the
// distribution registry (internal/testkit/registrytest) and podman
// (internal/testkit/podmantest), on Linux, as root.

// mountEntry is one entry of a skill's tree: a folder, or a file with its
// executable bit and bytes.
type mountEntry struct {
	dir, exec bool
	data      string
}

// mountTree lists the tree under dir as a skill's content.
func mountTree(t *testing.T, dir string) map[string]mountEntry {
	t.Helper()
	tree := map[string]mountEntry{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		e := mountEntry{dir: fi.IsDir()}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			e.exec, e.data = fi.Mode()&0o111 != 0, string(data)
		} else if !fi.IsDir() {
			t.Errorf("%s is a %v, neither a file nor a folder", path, fi.Mode().Type())
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

func sameMountTree(t *testing.T, what string, got, want map[string]mountEntry) {
	t.Helper()
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: %s is missing", what, name)
		} else if g != w {
			t.Errorf("%s: %s is %+v, want %+v", what, name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s is extra", what, name)
		}
	}
}

// runtimeSkill writes a skill named name with a script, nested folders
// and names that are not ASCII, and returns its folder.
func runtimeSkill(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for file, content := range map[string]string{
		"SKILL.md":             "---\nname: " + name + "\ndescription: Checks what a runtime mounts\n---\nRun `bash scripts/run.sh`.\n",
		"scripts/run.sh":       "#!/bin/sh\necho run\n",
		"références/café.md":   "café\n",
		"日本語/a/b/説明.md":        "説明\n",
		"templates/empty.txt":  "",
		"templates/private.md": "private\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "templates", "private.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPodmanMountsAgentskillsPush: what agentskills push prints is the
// digest of an image that podman pulls from the distribution registry,
// for linux/amd64 and linux/arm64, and mounts with the skill's files at
// the root; agentskills add of that pin installs the same files and
// records the pin.
func TestPodmanMountsAgentskillsPush(t *testing.T) {
	project := trustProject(t, "")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	pm := podmantest.New(t)
	reg := registrytest.Start(t)
	dir := runtimeSkill(t, "mounted")
	want := mountTree(t, dir)

	ref := "oci://" + reg.Host + "/skills/mounted:1.0.0"
	code, stdout, stderr := runCLI(t, "push", dir, ref)
	if code != 0 {
		t.Fatalf("push = %d; stderr:\n%s", code, stderr)
	}
	dgst := strings.TrimSpace(stdout)
	for _, platform := range []string{"linux/amd64", "linux/arm64"} {
		id := pm.Pull(reg.Host+"/skills/mounted@"+dgst, "--platform", platform)
		sameMountTree(t, "podman image mount of "+platform, mountTree(t, pm.Mount(id)), want)
	}

	pinned := ref + "@" + dgst
	if code, _, stderr := runCLI(t, "add", pinned, "-a", "claude-code"); code != 0 {
		t.Fatalf("add %s = %d; stderr:\n%s", pinned, code, stderr)
	}
	checkInstalled(t, project, "mounted", dgst, want)
}

// checkInstalled checks that the skill name is installed for Claude Code in
// project with the files want, and that the lock file records pin.
func checkInstalled(t *testing.T, project, name, pin string, want map[string]mountEntry) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(filepath.Join(project, ".claude", "skills", name))
	if err != nil {
		t.Fatal(err)
	}
	sameMountTree(t, "the installed skill", mountTree(t, dir), want)
	if e := lockSkill(t, project, name); e["pin"] != pin {
		lock, _ := json.Marshal(e)
		t.Errorf("the lock file records %s, want the pin %s", lock, pin)
	}
}

// podmanRootfs packs the folder dir as the rootfs tar podman import reads,
// under the folder prefix ("" for the root).
func podmanRootfs(t *testing.T, dir, prefix string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rootfs.tar")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	if prefix != "" {
		parts := strings.Split(prefix, "/")
		for i := range parts {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.Join(parts[:i+1], "/") + "/", Mode: 0o755}); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(filepath.Join(prefix, rel))
		if fi.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			_, err = tw.Write(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAddPodmanMadeIndex: a skill image made by podman, as
// ToolHive-style images are made (podman import of a rootfs tar for
// linux/amd64 and for linux/arm64, podman manifest create, add and push
// --all), agentskills add installs pinned by the index's digest, with
// the skill at the image's root or in a folder of it, the files those
// podman image mount shows.
func TestAddPodmanMadeIndex(t *testing.T) {
	project := trustProject(t, "")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	maker, pm := podmantest.New(t), podmantest.New(t) // the image's maker, its user
	reg := registrytest.Start(t)
	for _, tc := range []struct{ name, prefix string }{
		{"at-root", ""},
		{"in-folder", "skills/in-folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := runtimeSkill(t, tc.name)
			rootfs := podmanRootfs(t, dir, tc.prefix)
			list := reg.Host + "/skills/" + tc.name + ":1"
			maker.MustRun("manifest", "create", list)
			for _, arch := range []string{"amd64", "arm64"} {
				img := list + "-" + arch
				maker.MustRun("import", "--quiet", "--os", "linux", "--arch", arch, rootfs, img)
				maker.MustRun("manifest", "add", list, "containers-storage:"+img)
			}
			digestFile := filepath.Join(t.TempDir(), "digest")
			maker.MustRun("manifest", "push", "--quiet", "--all", "--tls-verify=false", "--digestfile", digestFile, list, "docker://"+list)
			data, err := os.ReadFile(digestFile)
			if err != nil {
				t.Fatal(err)
			}
			dgst := strings.TrimSpace(string(data))
			want := mountTree(t, dir)
			for _, platform := range []string{"linux/amd64", "linux/arm64"} {
				mounted := pm.Mount(pm.Pull(reg.Host+"/skills/"+tc.name+"@"+dgst, "--platform", platform))
				sameMountTree(t, "podman image mount of "+platform, mountTree(t, filepath.Join(mounted, filepath.FromSlash(tc.prefix))), want)
			}

			pinned := "oci://" + reg.Host + "/skills/" + tc.name + "@" + dgst
			if code, _, stderr := runCLI(t, "add", pinned, "-a", "claude-code"); code != 0 {
				t.Fatalf("add %s = %d; stderr:\n%s", pinned, code, stderr)
			}
			checkInstalled(t, project, tc.name, dgst, want)
		})
	}
}
