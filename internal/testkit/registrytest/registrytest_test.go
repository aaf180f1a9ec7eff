package registrytest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStart: the registry answers GET /v2/ with the distribution API's
// header, keeps what is pushed under Storage, and is gone, its port
// closed, once the test that started it has ended.
func TestStart(t *testing.T) {
	t.Parallel()
	var host, storage string
	t.Run("run", func(t *testing.T) {
		r := Start(t)
		host, storage = r.Host, r.Storage
		if !strings.HasPrefix(r.Host, "127.0.0.1:") {
			t.Errorf("Host = %q, want 127.0.0.1:PORT", r.Host)
		}
		resp, err := http.Get("http://" + r.Host + "/v2/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Docker-Distribution-Api-Version"); resp.StatusCode != 200 || got != "registry/2.0" {
			t.Errorf("GET /v2/ = %s, API version %q, want 200 OK, registry/2.0", resp.Status, got)
		}
		// A blob upload lands in the storage folder.
		blob := "hello\n"
		digest := "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
		resp, err = http.Post("http://"+r.Host+"/v2/x/blobs/uploads/", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if resp.StatusCode != http.StatusAccepted || err != nil {
			t.Fatalf("POST of an upload = %s, %v, want 202 Accepted and a location", resp.Status, err)
		}
		q := loc.Query()
		q.Set("digest", digest)
		loc.RawQuery = q.Encode()
		req, err := http.NewRequest(http.MethodPut, loc.String(), strings.NewReader(blob))
		if err != nil {
			t.Fatal(err)
		}
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT of the upload = %s, want 201 Created", resp.Status)
		}
		data, err := os.ReadFile(filepath.Join(r.Storage, "docker/registry/v2/blobs/sha256/58", strings.TrimPrefix(digest, "sha256:"), "data"))
		if err != nil || string(data) != blob {
			t.Errorf("the blob in the storage folder = %q, %v, want %q", data, err, blob)
		}
	})
	if host == "" {
		t.Fatal("the subtest did not start a registry")
	}
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("the registry at %s still answers after its test ended", host)
	}
	if _, err := os.Stat(storage); !os.IsNotExist(err) {
		t.Errorf("its storage %s is still there: %v", storage, err)
	}
}

// TestStartTwo: two registries run side by side on ports of their own.
func TestStartTwo(t *testing.T) {
	t.Parallel()
	a, b := Start(t), Start(t)
	if a.Host == b.Host || a.Storage == b.Storage {
		t.Errorf("two registries share %s, %s", a.Host, a.Storage)
	}
}

// recordTB records how Path ends a test.
type recordTB struct {
	testing.TB
	fatal, skip string
}

func (r *recordTB) Helper()                           {}
func (r *recordTB) Cleanup(func())                    {}
func (r *recordTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordTB) Skipf(format string, args ...any)  { r.skip = fmt.Sprintf(format, args...) }

// TestPathMissing: a binary that is not there skips the test, saying how
// to build it, or fails it when AGENTADAPTOR_REQUIRE_CLIS=1; so does a
// file that is not executable.
func TestPathMissing(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "registry")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{filepath.Join(t.TempDir(), "none"), notExec} {
		t.Setenv("AGENTADAPTOR_REGISTRY", bin)
		for _, require := range []string{"", "1"} {
			t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", require)
			r := &recordTB{TB: t}
			Path(r)
			got := r.skip
			if require == "1" {
				got = r.fatal
				if r.skip != "" {
					t.Errorf("Path(%s) with REQUIRE_CLIS=1 skipped: %s", bin, r.skip)
				}
			} else if r.fatal != "" {
				t.Errorf("Path(%s) failed: %s", bin, r.fatal)
			}
			if !strings.Contains(got, ".ci/install-registry") || !strings.Contains(got, bin) {
				t.Errorf("Path(%s) with REQUIRE_CLIS=%q ended with %q, want the path and .ci/install-registry", bin, require, got)
			}
		}
	}
}

// TestLogWriter: the address is read from the "listening on" line of the
// JSON log however the writes split it, once; requests are kept short,
// other lines as their level and message, lines that are not JSON as
// they are, and only the last lines.
func TestLogWriter(t *testing.T) {
	log := `{"level":"info","msg":"redis not configured"}` + "\n" +
		`not json` + "\n" +
		`{"level":"info","msg":"listening on 127.0.0.1:4321"}` + "\n" +
		`{"level":"info","msg":"listening on 127.0.0.1:9"}` + "\n" +
		`{"level":"error","msg":"response completed with error","err.message":"manifest unknown","http.request.method":"GET","http.request.uri":"/v2/x/manifests/1","http.response.status":404}` + "\n"
	want := "info: redis not configured\nnot json\ninfo: listening on 127.0.0.1:4321\ninfo: listening on 127.0.0.1:9\nerror GET /v2/x/manifests/1 404: manifest unknown\n"
	for _, size := range []int{1, 7, 64, len(log)} {
		w := &logWriter{listening: make(chan string, 1)}
		for i := 0; i < len(log); i += size {
			w.Write([]byte(log[i:min(i+size, len(log))]))
		}
		select {
		case got := <-w.listening:
			if got != "127.0.0.1:4321" {
				t.Errorf("writes of %d bytes: address %q, want 127.0.0.1:4321", size, got)
			}
		default:
			t.Errorf("writes of %d bytes: no address", size)
		}
		if w.String() != want {
			t.Errorf("writes of %d bytes: log kept %q, want %q", size, w.String(), want)
		}
	}
	w := &logWriter{listening: make(chan string, 1)}
	for i := range maxLines + 5 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if got := w.String(); !strings.HasPrefix(got, "(5 earlier lines left out)\nline 5\n") || !strings.HasSuffix(got, fmt.Sprintf("line %d\n", maxLines+4)) {
		t.Errorf("after %d lines, the log kept begins %.40q and ends %q", maxLines+5, got, got[max(0, len(got)-20):])
	}
}
