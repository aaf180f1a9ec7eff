// Package podmantest runs podman and skopeo, the container tools of
// Debian's packages that .ci/install-podman installs, for tests that
// check what a container runtime makes of the images agentskills pushes:
// podman pulls an image from a registry on loopback and mounts it
// (podman image mount), which unpacks its layers as a Kubernetes image
// volume does; skopeo reads manifests and image configs.
//
// Each [Podman] has storage and configuration of its own, in temporary
// folders of the test, and touches nothing of the machine's:
//
//  1. Storage: the vfs driver, with --root in the test's folder and
//     --runroot in a temporary folder of its own, removed at the end
//     (podman refuses a runroot path over 50 bytes, which the test's
//     folder, named for the test, may pass). vfs unpacks each layer into
//     a plain folder: "mounting" an image is handing out that folder, so
//     no kernel mount is made and none can be left behind, and it works
//     on any file system, in a container too. (overlay works on these
//     machines as root as well, but its mount would live in podman's
//     mount namespace of rule 5, gone when podman exits, and outside one
//     it must be unmounted before the folder can be removed.)
//  2. Configuration: CONTAINERS_CONF, CONTAINERS_STORAGE_CONF and
//     CONTAINERS_REGISTRIES_CONF name files of the test's; HOME and the
//     XDG folders are the test's, holding a signature policy
//     ($HOME/.config/containers/policy.json, which podman and skopeo read
//     before /etc/containers/policy.json) that accepts anything; the
//     authentication file (REGISTRY_AUTH_FILE) is an empty one; TMPDIR
//     and podman's tmp_dir and image_copy_tmp_dir are the test's.
//  3. Locks are files in the test's folder (lock_type "file"), not
//     podman's shared memory segment /dev/shm/libpod_lock; there are no
//     events (events_logger "none"), so nothing goes to the journal.
//  4. A loopback registry speaks plain HTTP: the commands that reach a
//     registry take --tls-verify=false ([Podman.Pull], and the callers'
//     own arguments).
//  5. As root, podman writes its blob information cache (which registry
//     holds which layer) to /var/lib/containers/cache whatever its
//     storage flags say (podman 4.3, as Debian 12 ships it, sets no
//     cache folder of its own, and containers/image then picks that one
//     for root). So podman and skopeo run in a mount namespace of their
//     own (unshare --mount, private propagation) in which a folder of the
//     test's is bound over /var/lib: the cache lands there
//     ([Podman.VarLib]), and the namespace, bind and all, ends with the
//     program.
//  6. At the end of the test every image [Podman.Mount] mounted is
//     unmounted.
//
// podman image mount needs root (rootless podman mounts only inside
// podman unshare): [New] fails or skips, as for a missing program, when
// the test does not run as root. podman run does not work on these
// machines (crun refuses cgroups in hybrid mode), and nothing here runs
// a container.
//
// When podman or skopeo is not on PATH the test is skipped with a
// message saying to run .ci/install-podman, or fails when
// AGENTADAPTOR_REQUIRE_CLIS=1 (as CI runs).
package podmantest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// Driver is the storage driver every [Podman] uses (rule 1).
const Driver = "vfs"

// Timeout bounds one podman or skopeo run.
const Timeout = 2 * time.Minute

const install = "run .ci/install-podman (Debian's podman and skopeo)"

// lookPath finds a program on PATH; when it is missing the test is
// skipped, or fails if AGENTADAPTOR_REQUIRE_CLIS=1.
func lookPath(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		testroot.Missing(t, name, err.Error(), install)
		return ""
	}
	return p
}

// Podman is podman and skopeo with storage and configuration of their
// own, for one test. [Podman.Run] and [Podman.Skopeo] may be called from
// any goroutine; the methods that fail the test belong to the test's
// goroutine, as t.Fatal does.
type Podman struct {
	t       testing.TB
	podman  string
	skopeo  string
	unshare string
	varLib  string // bound over /var/lib (rule 5)
	dir     string // the test's folder for it all
	root    string // --root
	runroot string // --runroot
	env     []string

	mu      sync.Mutex
	mounted []string // references mounted, to unmount at cleanup
}

// New sets up podman for t, as the package doc says.
func New(t testing.TB) *Podman {
	t.Helper()
	p := &Podman{t: t, podman: lookPath(t, "podman"), skopeo: lookPath(t, "skopeo"), unshare: lookPath(t, "unshare")}
	if os.Geteuid() != 0 {
		testroot.Missing(t, "podman as root", "podman image mount needs root, and the test runs as uid "+fmt.Sprint(os.Geteuid()), "run the tests as root")
		return nil
	}
	p.dir = t.TempDir()
	p.root = filepath.Join(p.dir, "root")
	// Podman refuses a runroot longer than 50 bytes (it holds sockets,
	// whose paths are short): not under t.TempDir(), whose names hold
	// the test's.
	runroot, err := os.MkdirTemp("", "podman-run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runroot) })
	p.runroot = runroot
	home := filepath.Join(p.dir, "home")
	tmp := filepath.Join(p.dir, "tmp")
	files := map[string]string{
		"containers.conf": fmt.Sprintf(`[engine]
lock_type = "file"
events_logger = "none"
tmp_dir = %q
image_copy_tmp_dir = %q
volume_path = %q
static_dir = %q
[network]
network_config_dir = %q
`, filepath.Join(p.dir, "libpod-tmp"), tmp, filepath.Join(p.root, "volumes"), filepath.Join(p.root, "libpod"), filepath.Join(p.dir, "networks")),
		"storage.conf": fmt.Sprintf(`[storage]
driver = %q
graphroot = %q
runroot = %q
`, Driver, p.root, p.runroot),
		"registries.conf":                     "unqualified-search-registries = []\n",
		"auth.json":                           "{}\n",
		"home/.config/containers/policy.json": `{"default": [{"type": "insecureAcceptAnything"}]}` + "\n",
	}
	for name, content := range files {
		path := filepath.Join(p.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.varLib = filepath.Join(p.dir, "var-lib")
	for _, d := range []string{tmp, filepath.Join(p.dir, "networks"), p.varLib} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	p.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR=" + filepath.Join(p.dir, "xdg-runtime"),
		"TMPDIR=" + tmp,
		"CONTAINERS_CONF=" + filepath.Join(p.dir, "containers.conf"),
		"CONTAINERS_STORAGE_CONF=" + filepath.Join(p.dir, "storage.conf"),
		"CONTAINERS_REGISTRIES_CONF=" + filepath.Join(p.dir, "registries.conf"),
		"REGISTRY_AUTH_FILE=" + filepath.Join(p.dir, "auth.json"),
	}
	t.Cleanup(p.unmountAll)
	return p
}

// Root is the folder of its image storage (--root).
func (p *Podman) Root() string { return p.root }

// RunRoot is the folder of its run state (--runroot).
func (p *Podman) RunRoot() string { return p.runroot }

// VarLib is the folder podman and skopeo see as /var/lib (rule 5).
func (p *Podman) VarLib() string { return p.varLib }

// Result is what a run printed and how it ended.
type Result struct {
	Stdout, Stderr string
	// Err is nil when the program exited with 0.
	Err error
	// Took is how long it ran.
	Took time.Duration
}

// Run runs podman with this Podman's storage flags and configuration,
// then args. It does not fail the test: callers check Result.Err.
func (p *Podman) Run(args ...string) Result {
	p.t.Helper()
	flags := []string{"--root", p.root, "--runroot", p.runroot, "--storage-driver", Driver}
	return p.run(p.podman, append(flags, args...))
}

// MustRun is [Podman.Run] that fails the test, with podman's output,
// when podman does not exit with 0; it returns podman's standard output.
func (p *Podman) MustRun(args ...string) string {
	p.t.Helper()
	r := p.Run(args...)
	if r.Err != nil {
		p.t.Fatalf("podman %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// Skopeo runs skopeo with this Podman's configuration (its policy,
// registries and authentication files), then args. It does not fail the
// test.
func (p *Podman) Skopeo(args ...string) Result {
	p.t.Helper()
	return p.run(p.skopeo, args)
}

// MustSkopeo is [Podman.Skopeo] that fails the test when skopeo does not
// exit with 0; it returns skopeo's standard output.
func (p *Podman) MustSkopeo(args ...string) string {
	p.t.Helper()
	r := p.Skopeo(args...)
	if r.Err != nil {
		p.t.Fatalf("skopeo %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// inNamespace is the script unshare runs: it binds $0 over /var/lib and
// runs the program (rule 5).
const inNamespace = `mount --bind "$0" /var/lib && exec "$@"`

func (p *Podman) run(bin string, args []string) Result {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	args = append([]string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", inNamespace, p.varLib, bin}, args...)
	cmd := exec.CommandContext(ctx, p.unshare, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		err = errors.Join(err, ctx.Err())
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Took: time.Since(began)}
}

// Pull pulls ref (HOST/REPO@DIGEST or :TAG, from a loopback registry:
// over plain HTTP) with args added (--platform linux/arm64, say), and
// returns the pulled image's ID. It fails the test when podman fails.
func (p *Podman) Pull(ref string, args ...string) string {
	p.t.Helper()
	args = append(append([]string{"pull", "--quiet", "--tls-verify=false"}, args...), ref)
	return strings.TrimSpace(p.MustRun(args...))
}

// Mount mounts the image ref names (a reference or an ID, pulled or
// made) with podman image mount and returns the folder holding its
// files; the image is unmounted when the test ends. It fails the test
// when podman fails.
func (p *Podman) Mount(ref string) string {
	p.t.Helper()
	dir := strings.TrimSpace(p.MustRun("image", "mount", ref))
	p.mu.Lock()
	p.mounted = append(p.mounted, ref)
	p.mu.Unlock()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		p.t.Fatalf("podman image mount %s printed %q, not a folder: %v", ref, dir, err)
	}
	return dir
}

// Unmount unmounts the image ref names, which [Podman.Mount] mounted.
func (p *Podman) Unmount(ref string) {
	p.t.Helper()
	p.MustRun("image", "unmount", ref)
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, m := range p.mounted {
		if m == ref {
			p.mounted = append(p.mounted[:i], p.mounted[i+1:]...)
			break
		}
	}
}

// unmountAll unmounts what is still mounted, at the end of the test.
func (p *Podman) unmountAll() {
	p.mu.Lock()
	refs := p.mounted
	p.mounted = nil
	p.mu.Unlock()
	for _, ref := range refs {
		if r := p.Run("image", "unmount", ref); r.Err != nil {
			p.t.Errorf("podman image unmount %s at the end of the test: %v\n%s", ref, r.Err, r.Stderr)
		}
	}
}
