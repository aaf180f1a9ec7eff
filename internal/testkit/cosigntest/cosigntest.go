// Package cosigntest finds and runs the pinned cosign that
// .ci/install-cosign builds, for tests that check that what agentskills
// signs verifies with the real cosign and the other way round.
//
// The binary is $AGENTADAPTOR_COSIGN, else .tools/cosign-VERSION/cosign at
// the top of the module (the nearest folder at or above the folder the
// test binary started in that holds go.mod, so a test that changed its
// working folder still finds it). When it is missing the test is skipped
// with a message saying to run .ci/install-cosign, or fails when
// AGENTADAPTOR_REQUIRE_CLIS=1 (as CI runs).
//
// [Run] runs it hermetically and offline: a fresh HOME, TUF cache and
// Docker configuration, no proxy, and COSIGN_PASSWORD only when the test
// gives one. The commands a test runs must not need the network either
// (the package docs of the tests' packages list the flags that keep
// cosign 3 offline).
//
// cosign runs on Linux, macOS and Windows alike; the helpers do too.
package cosigntest

import (
	"bytes"
	"context"
	"errors"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Version is the cosign release .ci/install-cosign builds.
const Version = "v3.1.3"

// Path returns the path of the pinned cosign binary, found as the package
// doc says. When it is missing the test is skipped, or fails if
// AGENTADAPTOR_REQUIRE_CLIS=1.
func Path(t testing.TB) string {
	t.Helper()
	p := os.Getenv("AGENTADAPTOR_COSIGN")
	if p == "" {
		root, err := testroot.Module()
		if err != nil {
			missing(t, err.Error())
			return ""
		}
		name := "cosign"
		if filepath.Separator == '\\' {
			name += ".exe"
		}
		p = filepath.Join(root, ".tools", "cosign-"+Version, name)
	}
	fi, err := os.Stat(p)
	if err != nil {
		missing(t, err.Error())
		return ""
	}
	if fi.IsDir() || (filepath.Separator == '/' && fi.Mode()&0o111 == 0) {
		missing(t, p+" is not an executable file")
		return ""
	}
	return p
}

func missing(t testing.TB, why string) {
	t.Helper()
	testroot.Missing(t, "cosign "+Version, why, "run .ci/install-cosign and set AGENTADAPTOR_COSIGN to the path it prints")
}

// Result is what a cosign run printed and how it ended.
type Result struct {
	Stdout, Stderr string
	// Err is nil when cosign exited with 0.
	Err error
}

// Timeout bounds one cosign run.
const Timeout = 2 * time.Minute

// Run runs cosign with args in dir (the test's temp folder when "") and
// an environment of its own: PATH, a fresh HOME, TUF_ROOT and
// DOCKER_CONFIG under t.TempDir(), no proxy variables, and env (NAME=VALUE
// entries, such as COSIGN_PASSWORD=...) on top. It does not fail the test:
// callers check Result.Err.
func Run(t testing.TB, dir string, env []string, args ...string) Result {
	t.Helper()
	bin := Path(t)
	if dir == "" {
		dir = t.TempDir()
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"USERPROFILE=" + home,
		"TUF_ROOT=" + filepath.Join(home, ".sigstore", "root"),
		"DOCKER_CONFIG=" + filepath.Join(home, ".docker"),
		"SIGSTORE_NO_CACHE=true",
	}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = errors.Join(err, ctx.Err())
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// MustRun is [Run] that fails the test, with cosign's output, when cosign
// does not exit with 0.
func MustRun(t testing.TB, dir string, env []string, args ...string) Result {
	t.Helper()
	r := Run(t, dir, env, args...)
	if r.Err != nil {
		t.Fatalf("cosign %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r
}

// KeyPair is a key pair that `cosign generate-key-pair` wrote.
type KeyPair struct {
	// Private and Public are the paths of cosign.key (encrypted with
	// Password) and cosign.pub.
	Private, Public string
	Password        string
}

// GenerateKeyPair runs `cosign generate-key-pair` in a new folder with
// COSIGN_PASSWORD=password and returns the files it wrote.
func GenerateKeyPair(t testing.TB, password string) KeyPair {
	t.Helper()
	dir := t.TempDir()
	MustRun(t, dir, []string{"COSIGN_PASSWORD=" + password}, "generate-key-pair")
	kp := KeyPair{Private: filepath.Join(dir, "cosign.key"), Public: filepath.Join(dir, "cosign.pub"), Password: password}
	for _, p := range []string{kp.Private, kp.Public} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("cosign generate-key-pair: %v", err)
		}
	}
	return kp
}

// ImportKeyPair runs `cosign import-key-pair` on the PEM private key in
// the file pemKey (a PKCS#8 ECDSA or Ed25519 key, say) with
// COSIGN_PASSWORD=password and returns the files it wrote: the key
// encrypted as cosign encrypts its own, and its public key.
func ImportKeyPair(t testing.TB, pemKey, password string) KeyPair {
	t.Helper()
	dir := t.TempDir()
	MustRun(t, dir, []string{"COSIGN_PASSWORD=" + password}, "import-key-pair", "--key", pemKey, "--output-key-prefix", "imported", "-y")
	kp := KeyPair{Private: filepath.Join(dir, "imported.key"), Public: filepath.Join(dir, "imported.pub"), Password: password}
	for _, p := range []string{kp.Private, kp.Public} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("cosign import-key-pair: %v", err)
		}
	}
	return kp
}
