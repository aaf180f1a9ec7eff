package testarchive

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// Tree writes files (path: content) under dir: a content starting with
// "-> " makes a symbolic link to the rest, a path ending in "/" an empty
// folder, and a path ending in ".sh" an executable file.
func Tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch target, link := strings.CutPrefix(content, "-> "); {
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(p, 0o755)
		case link:
			err = os.Symlink(target, p)
		case strings.HasSuffix(name, ".sh"):
			err = os.WriteFile(p, []byte(content), 0o755)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Made returns the archive the real archiver makes of the paths (as
// given, relative to dir) in dir: for "tar.gz" `tar -czf`, for "tar"
// `tar -cf`, for "zip" `zip -r --symlinks`, which store links as links.
// A test without the archiver ends as [testroot.Missing] says.
func Made(t testing.TB, format, dir string, paths ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "archive")
	var cmd *exec.Cmd
	switch format {
	case "tar.gz":
		cmd = exec.Command("tar", append([]string{"-czf", out}, paths...)...)
	case "tar":
		cmd = exec.Command("tar", append([]string{"-cf", out}, paths...)...)
	case "zip":
		out += ".zip"
		cmd = exec.Command("zip", append([]string{"-q", "-r", "--symlinks", out}, paths...)...)
	default:
		t.Fatalf("Made: unknown format %q", format)
	}
	if _, err := exec.LookPath(cmd.Args[0]); err != nil {
		testroot.Missing(t, cmd.Args[0], "not on PATH", "install "+cmd.Args[0])
	}
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
