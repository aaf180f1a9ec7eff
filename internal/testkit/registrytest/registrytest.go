// Package registrytest runs the distribution registry
// (github.com/distribution/distribution/v3, the reference implementation
// of the OCI distribution spec) on loopback for a test, as the registry
// that podman pulls from and agentskills pushes to in the runtime tests.
//
// The binary is $AGENTADAPTOR_REGISTRY, else
// .tools/registry-VERSION/registry at the top of the module, which
// .ci/install-registry builds from the Go module proxy. When it is
// missing the test is skipped with a message saying to run
// .ci/install-registry, or fails when AGENTADAPTOR_REQUIRE_CLIS=1 (as CI
// runs).
//
// [Start] writes a configuration of its own in a temporary folder:
// filesystem storage there, no authentication, plain HTTP on 127.0.0.1
// at a port the system picks (read back from the registry's log), no
// upload purging, no access log. It returns once GET /v2/ answers 200,
// and at the end of the test kills the registry and waits for it; on
// Linux the registry also dies with the test process, however that
// ends. A test that failed has the registry's log in its output.
package registrytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// Version is the registry release .ci/install-registry builds.
const Version = "v3.1.2"

// StartTimeout bounds the wait for a registry to answer.
const StartTimeout = 30 * time.Second

// Path returns the path of the pinned registry binary, found as the
// package doc says. When it is missing the test is skipped, or fails if
// AGENTADAPTOR_REQUIRE_CLIS=1.
func Path(t testing.TB) string {
	t.Helper()
	p := os.Getenv("AGENTADAPTOR_REGISTRY")
	if p == "" {
		root, err := testroot.Module()
		if err != nil {
			missing(t, err.Error())
			return ""
		}
		p = filepath.Join(root, ".tools", "registry-"+Version, "registry")
	}
	fi, err := os.Stat(p)
	if err != nil {
		missing(t, err.Error())
		return ""
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		missing(t, p+" is not an executable file")
		return ""
	}
	return p
}

func missing(t testing.TB, why string) {
	t.Helper()
	testroot.Missing(t, "distribution registry "+Version, why,
		"run .ci/install-registry and set AGENTADAPTOR_REGISTRY to the path it prints")
}

// Registry is a running distribution registry.
type Registry struct {
	// Host is its HOST:PORT, 127.0.0.1 and the port it listens on.
	Host string
	// Storage is the folder its filesystem storage is in.
	Storage string
}

// config is the registry's configuration: Storage and the secret that
// signs upload state are filled in.
const config = `version: 0.1
log:
  level: info
  formatter: json
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %q
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:0
  secret: %q
`

// Start starts a registry for t, as the package doc says, and returns it
// once it answers.
func Start(t testing.TB) *Registry {
	t.Helper()
	bin := Path(t)
	dir := t.TempDir()
	storage := filepath.Join(dir, "storage")
	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, storage, t.Name()), 0o644); err != nil {
		t.Fatal(err)
	}
	log := &logWriter{listening: make(chan string, 1)}
	cmd := exec.Command(bin, "serve", cfg)
	cmd.Dir = dir
	// Nothing of the environment configures it: REGISTRY_* variables
	// would override the file.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	cmd.Stdout, cmd.Stderr = log, log
	proc, err := start(cmd)
	if err != nil {
		t.Fatalf("registry %s: %v", bin, err)
	}
	t.Cleanup(func() {
		proc.stop()
		if t.Failed() {
			t.Logf("registry log:\n%s", log.String())
		}
	})

	deadline := time.NewTimer(StartTimeout)
	defer deadline.Stop()
	var addr string
	select {
	case addr = <-log.listening:
	case <-proc.exited:
		t.Fatalf("registry %s exited before it listened: %v\n%s", bin, proc.err, log.String())
	case <-deadline.C:
		t.Fatalf("registry %s did not listen within %v\n%s", bin, StartTimeout, log.String())
	}
	r := &Registry{Host: addr, Storage: storage}
	if err := r.waitReady(t, deadline.C); err != nil {
		t.Fatalf("registry at %s: %v\n%s", addr, err, log.String())
	}
	return r
}

// waitReady asks GET /v2/ until it answers 200.
func (r *Registry) waitReady(t testing.TB, deadline <-chan time.Time) error {
	client := &http.Client{Timeout: 5 * time.Second}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+r.Host+"/v2/", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /v2/: %s", resp.Status)
		}
		last = err
		select {
		case <-tick.C:
		case <-deadline:
			return fmt.Errorf("not ready within %v: %w", StartTimeout, last)
		}
	}
}

// logWriter keeps the registry's log and sends the address of its first
// "listening on ADDR" line. It is safe for concurrent use.
type logWriter struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	line      []byte // the unfinished last line
	listening chan string
	sent      bool
}

// maxLog bounds the log kept.
const maxLog = 1 << 20

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() < maxLog {
		w.buf.Write(p[:min(len(p), maxLog-w.buf.Len())])
	}
	if w.sent {
		return len(p), nil
	}
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		line := w.line[:i]
		w.line = w.line[i+1:]
		var entry struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(line, &entry) != nil {
			continue
		}
		if addr, ok := strings.CutPrefix(entry.Msg, "listening on "); ok {
			w.listening <- addr
			w.sent, w.line = true, nil
			break
		}
	}
	if len(w.line) > maxLog {
		w.line = nil
	}
	return len(p), nil
}

func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
