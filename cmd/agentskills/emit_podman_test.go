package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/kubetest"
)

// podman returns podman's path. Without it the test is skipped, or fails
// when AGENTADAPTOR_REQUIRE_CLIS=1 (as CI runs, which installs it).
func podman(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("podman")
	if err != nil || runtime.GOOS != "linux" || os.Getuid() != 0 {
		msg := "the test needs podman, as root, on Linux (apt-get install podman; .ci/run installs it)"
		if os.Getenv("AGENTADAPTOR_REQUIRE_CLIS") == "1" && runtime.GOOS == "linux" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// podmanRun runs podman with args and returns its stdout.
func podmanRun(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), bin, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// TestRunEmitPodCommand runs the command of the Job run --emit prints on
// what its image volumes hold: podman pulls each skill's image, by the
// Job's reference, from the registry on loopback and mounts it (as
// podman image mount does, read-only: the unpack a kubelet's image volume
// does), and the Job's arguments, mount paths replaced by those folders,
// start the agent with the skills: the run loads them from read-only
// folders.
func TestRunEmitPodCommand(t *testing.T) {
	bin := podman(t)
	r := newEmitRig(t)
	review := r.push(t, "review")
	lint := r.push(t, "lint")
	code, out, errs := r.run(t, "run", "-a", "claude-code", "--agent-command", r.stub, "-s", review, "-s", lint,
		"--emit", "kubernetes", "--runner-image", "runner:dev", "--", "Review it")
	if code != 0 {
		t.Fatalf("run --emit = %d, stderr %q", code, errs)
	}
	objs, err := kubetest.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	spec := objs[0].(*batchv1.Job).Spec.Template.Spec
	c := spec.Containers[0]
	folders := map[string]string{} // mount path: the image's files
	for _, v := range spec.Volumes {
		if v.Image == nil {
			continue
		}
		ref := v.Image.Reference
		podmanRun(t, bin, "pull", "--quiet", "--tls-verify=false", ref)
		dir := podmanRun(t, bin, "image", "mount", ref)
		t.Cleanup(func() {
			exec.Command(bin, "image", "unmount", ref).Run()
			exec.Command(bin, "rmi", "--force", ref).Run()
		})
		if err := os.WriteFile(filepath.Join(dir, "written"), nil, 0o644); err == nil {
			t.Errorf("podman image mount %s gave a folder that can be written", ref)
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name {
				folders[m.MountPath] = dir
			}
		}
	}
	if len(folders) != 2 {
		t.Fatalf("mounted %v; want the two skills' images", folders)
	}
	for mount, dir := range folders {
		if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
			t.Errorf("the image mounted at %s holds no SKILL.md at its root: %v", mount, err)
		}
	}
	args := append([]string(nil), c.Args...)
	for i, a := range args {
		for mount, dir := range folders {
			if rest, ok := strings.CutPrefix(a, "--skill="+mount); ok {
				args[i] = "--skill=" + dir + rest
			}
		}
	}
	// The stand-in agent prints nothing, so the run ends in an error
	// once the agent has started with the skills: what is checked.
	code, _, errs = r.run(t, args...)
	ran, err := os.ReadFile(r.ran)
	if err != nil {
		t.Fatalf("the Job's command %q = %d, stderr %q; want the agent started (%v)", args, code, errs, err)
	}
	_, mount, ok := strings.Cut(strings.TrimSpace(string(ran)), "--add-dir=")
	if !ok {
		t.Fatalf("the agent ran with %q; want the run's skills mounted (--add-dir)", ran)
	}
	for _, name := range []string{"review", "lint"} {
		if _, err := os.Stat(filepath.Join(mount, ".claude", "skills", name, "SKILL.md")); err != nil {
			t.Errorf("the agent's mount lacks the skill %s: %v", name, err)
		}
	}
}
