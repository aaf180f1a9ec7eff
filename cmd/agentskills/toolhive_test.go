package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
)

// TestAddToolHiveSkill installs a skill ToolHive published (an index over
// linux/amd64 and linux/arm64 image manifests sharing one layer; the
// layout is ocireg.PushToolHive's), by its tag: the lock records the
// index's digest, and sync installs it again from the cache with the
// registry gone. Its requirement (ghcr.io/org/base-skill:v1, which add
// would install too) is left out with --no-requires, and recorded.
func TestAddToolHiveSkill(t *testing.T) {
	project := trustProject(t, "")
	srv, host := ociRegistry(t)
	files := map[string]string{
		"SKILL.md":                "---\nname: code-review\ndescription: Reviews code for best practices.\nmetadata:\n  toolhive.requires: ghcr.io/org/base-skill:v1\n---\n# Code review\n",
		"references/CHECKLIST.md": "- tests pass\n",
	}
	index := ocireg.PushToolHive(t, host, "org/code-review", "v1", ocireg.ToolHiveSkill{
		Name: "code-review", Description: "Reviews code for best practices.", Requires: []string{"ghcr.io/org/base-skill:v1"}, Files: files,
	})
	ref := "oci://" + host + "/org/code-review:v1"
	if code, stdout, stderr := runCLI(t, "add", ref, "-a", "claude-code", "--no-requires"); code != 0 {
		t.Fatalf("add %s = %d\nstdout:\n%s\nstderr:\n%s", ref, code, stdout, stderr)
	}
	installed := filepath.Join(project, ".claude", "skills", "code-review")
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(installed, filepath.FromSlash(name)))
		if err != nil || string(got) != content {
			t.Errorf("installed %s = %q, %v; want %q", name, got, err, content)
		}
	}
	if pin := lockSkill(t, project, "code-review")["pin"]; pin != index.Digest.String() {
		t.Errorf("the lock file pins code-review to %v, want the index's digest %s", pin, index.Digest)
	}
	if reqs := fmt.Sprint(lockSkill(t, project, "code-review")["requires"]); reqs != "[map[source:oci://ghcr.io/org/base-skill:v1]]" {
		t.Errorf("the lock file records code-review's requirements as %s, want oci://ghcr.io/org/base-skill:v1 unanswered", reqs)
	}

	// With the registry gone, sync reinstalls it from the cache.
	srv.Close()
	if err := os.RemoveAll(installed); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCLI(t, "sync"); code != 0 {
		t.Fatalf("sync with the registry gone = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(installed, "references", "CHECKLIST.md")); err != nil {
		t.Errorf("sync did not reinstall code-review: %v", err)
	}
}
