//go:build unix

package skill_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// The tests in this file rely on Unix permissions: a folder with mode 0 is
// unreadable to every user but root.

// scanHelperEnv carries the root to scan into the unprivileged helper
// process that TestLocalSkillsFromDirUnreadable starts when it runs as root.
const scanHelperEnv = "SKILL_TEST_SCAN_HELPER_ROOT"

// scanHelperMark prefixes the helper's report line.
const scanHelperMark = "SCAN-HELPER-RESULT: "

// TestLocalSkillsFromDirHelperProcess is not a test: it is the body of the
// unprivileged process started by TestLocalSkillsFromDirUnreadable.
func TestLocalSkillsFromDirHelperProcess(t *testing.T) {
	root := os.Getenv(scanHelperEnv)
	if root == "" {
		return
	}
	got, err := skill.LocalSkillsFromDir(root)
	if err != nil {
		os.Stdout.WriteString(scanHelperMark + "error " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n")
		return
	}
	os.Stdout.WriteString(scanHelperMark + "ok " + strings.Join(scanKeys(got), ",") + "\n")
}

func TestLocalSkillsFromDirUnreadable(t *testing.T) {
	tests := []struct {
		name     string
		lock     bool
		locked   string // path under root made unreadable ("" for root)
		wantKeys string // report when nothing is locked
	}{
		{name: "control, nothing locked", wantKeys: "good,locked"},
		{name: "subfolder", lock: true, locked: "locked"},
		{name: "subfolder without marker", lock: true, locked: "plain"},
		{name: "root", lock: true, locked: ""},
	}
	var bin string
	if os.Geteuid() == 0 {
		bin = nobodyTestBinary(t)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "skills")
			scanTree(t, root, "good/SKILL.md", "locked/SKILL.md", "plain/README.md")
			for _, d := range []string{root, filepath.Join(root, "good"), filepath.Join(root, "locked"), filepath.Join(root, "plain")} {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if tt.lock {
				locked := filepath.Join(root, tt.locked)
				if err := os.Chmod(locked, 0); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(locked, 0o755) })
			}

			var report string
			if os.Geteuid() != 0 {
				got, err := skill.LocalSkillsFromDir(root)
				if err != nil {
					report = "error " + err.Error()
				} else {
					report = "ok " + strings.Join(scanKeys(got), ",")
				}
			} else {
				// Root reads anything, so run the scan in a child process
				// without privileges.
				report = scanAsNobody(t, bin, base, root)
			}
			if !tt.lock {
				if want := "ok " + tt.wantKeys; report != want {
					t.Errorf("LocalSkillsFromDir(%q) = %q, want %q", root, report, want)
				}
				return
			}
			if !strings.HasPrefix(report, "error ") {
				t.Errorf("LocalSkillsFromDir(%q) with %q unreadable = %q, want error", root, tt.locked, report)
			}
		})
	}
}

// nobodyTestBinary copies the test binary where user 65534 can run it.
func nobodyTestBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("no test executable: %v", err)
	}
	binDir := t.TempDir()
	bin := filepath.Join(binDir, "skill.test")
	copyExecutable(t, exe, bin)
	for _, d := range []string{filepath.Dir(binDir), binDir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// scanAsNobody runs TestLocalSkillsFromDirHelperProcess from bin on root as
// user 65534 and returns its report. base must be the t.TempDir folder
// holding root.
func scanAsNobody(t *testing.T, bin, base, root string) string {
	t.Helper()
	// t.TempDir folders are private; open the way down to base, leaving
	// the locked entries under it as they are.
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^TestLocalSkillsFromDirHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), scanHelperEnv+"="+root, "HOME=/", "GORACE=atexit_sleep_ms=0")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if stdout.Len() == 0 {
			t.Skipf("cannot run the scan as an unprivileged user: %v (stderr %q)", err, stderr.String())
		}
		t.Fatalf("helper process: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), scanHelperMark); ok {
			return line
		}
	}
	t.Fatalf("helper process gave no report\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	return ""
}

func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Skipf("open test executable: %v", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
