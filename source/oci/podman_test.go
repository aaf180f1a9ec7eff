package oci

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
	"github.com/agentadaptor/agentadaptor/source"
)

// TestFetchPodmanManifestList reads an index a real tool made: podman
// imports one skill folder's tar as a linux/amd64 and a linux/arm64
// image, puts both in a manifest list and pushes it whole to a loopback
// registry, which Fetch reads as one skill; the same list pushed with
// zstd layers is refused, saying so.
func TestFetchPodmanManifestList(t *testing.T) {
	podman, err := exec.LookPath("podman")
	if err != nil {
		testroot.Missing(t, "podman", "not on PATH", "install it with apt-get install podman (.ci/run does)")
	}
	_, host := ocireg.Start(t, true)
	tmp := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		// A store of the test's own, so that the machine's images are
		// neither read nor changed (podman still notes in its blob cache
		// which registry holds which layer).
		all := append([]string{"--root", filepath.Join(tmp, "root"), "--runroot", filepath.Join(tmp, "run"), "--storage-driver", "vfs"}, args...)
		out, err := exec.CommandContext(t.Context(), podman, all...).CombinedOutput()
		if err != nil {
			t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	files := map[string]string{"SKILL.md": skillMD("review", "Reviews a change"), "references/guide.md": "Read this.\n"}
	tarPath := filepath.Join(tmp, "skill.tar")
	if err := os.WriteFile(tarPath, ocireg.Tar(t, files), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		run("import", "--os", "linux", "--arch", arch, tarPath, "localhost/review:"+arch)
	}
	run("manifest", "create", "localhost/review:list")
	for _, arch := range []string{"amd64", "arm64"} {
		run("manifest", "add", "localhost/review:list", "containers-storage:localhost/review:"+arch)
	}
	run("manifest", "push", "--all", "--tls-verify=false", "localhost/review:list", "docker://"+host+"/team/review:v1")
	// Another registry, so that podman cannot reuse the gzip layers it
	// sent the first.
	_, zhost := ocireg.Start(t, true)
	run("manifest", "push", "--all", "--tls-verify=false", "--compression-format", "zstd", "localhost/review:list", "docker://"+zhost+"/team/review:zstd")

	root, opts := testOptions(t)
	ref := "oci://" + host + "/team/review:v1"
	d, err := Resolve(t.Context(), ref, opts...)
	if err != nil {
		t.Fatal(err)
	}
	a, dir := fetchAndMaterialize(t, ref+"@"+d, root, opts)
	if a.Name != "review" || a.Subpath != "" {
		t.Errorf("Fetch(podman's manifest list) = name %q, subpath %q; want review at the root", a.Name, a.Subpath)
	}
	for name, content := range files {
		if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(got) != content {
			t.Errorf("materialized %s = %q, %v; want %q", name, got, err, content)
		}
	}

	zref := "oci://" + zhost + "/team/review:zstd"
	zd, err := Resolve(t.Context(), zref, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(t.Context(), zref+"@"+zd, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "zstd, which is not read") {
		t.Errorf("Fetch(podman's manifest list, zstd) = %v, want source.ErrNoSkill saying zstd is not read", err)
	}
}
