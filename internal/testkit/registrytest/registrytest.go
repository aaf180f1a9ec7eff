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

// logWriter keeps the last [maxLines] lines of the registry's log, each
// made short (a request as METHOD URI STATUS), and sends the address of
// its first "listening on ADDR" line. It is safe for concurrent use.
type logWriter struct {
	mu        sync.Mutex
	lines     []string
	dropped   int
	partial   []byte // the unfinished last line
	listening chan string
	sent      bool
}

// maxLines bounds the lines kept; maxLine, a line read.
const (
	maxLines = 200
	maxLine  = 64 << 10
)

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > maxLine {
		w.line(w.partial)
		w.partial = nil
	}
	return len(p), nil
}

// line keeps one line of the log, short, and sends the address it
// listens on.
func (w *logWriter) line(line []byte) {
	var entry struct {
		Level  string `json:"level"`
		Msg    string `json:"msg"`
		Err    string `json:"err.message"`
		Method string `json:"http.request.method"`
		URI    string `json:"http.request.uri"`
		Status int    `json:"http.response.status"`
	}
	text := string(line)
	if json.Unmarshal(line, &entry) == nil {
		switch {
		case entry.Method != "":
			text = fmt.Sprintf("%s %s %s %d", entry.Level, entry.Method, entry.URI, entry.Status)
		default:
			text = entry.Level + ": " + entry.Msg
		}
		if entry.Err != "" {
			text += ": " + entry.Err
		}
		if addr, ok := strings.CutPrefix(entry.Msg, "listening on "); ok && !w.sent {
			w.listening <- addr
			w.sent = true
		}
	}
	if len(w.lines) == maxLines {
		w.lines = w.lines[1:]
		w.dropped++
	}
	w.lines = append(w.lines, text)
}

// String is the log kept, a line each.
func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	if w.dropped > 0 {
		fmt.Fprintf(&b, "(%d earlier lines left out)\n", w.dropped)
	}
	for _, l := range w.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
