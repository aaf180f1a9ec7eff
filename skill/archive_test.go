package skill_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"
)

// openAll calls open and reads the whole stream.
func openAll(ctx context.Context, open skill.Opener) (string, error) {
	rc, err := open(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

func TestArchiveBytes(t *testing.T) {
	data := []byte("PK\x03\x04 not really a zip")
	open := skill.ArchiveBytes(data)
	for i := range 3 {
		got, err := openAll(t.Context(), open)
		if err != nil || got != string(data) {
			t.Errorf("ArchiveBytes opener call %d = %q, %v, want %q, nil", i, got, err, data)
		}
	}

	// Each call hands out a new reader positioned at the start.
	r1, err := open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(r1, head); err != nil {
		t.Fatal(err)
	}
	got, err := openAll(t.Context(), open)
	if err != nil || got != string(data) {
		t.Errorf("ArchiveBytes opener after a partial read = %q, %v, want %q, nil", got, err, data)
	}
	rest, err := io.ReadAll(r1)
	if err != nil || string(head)+string(rest) != string(data) {
		t.Errorf("first reader = %q, %v, want %q, nil", string(head)+string(rest), err, data)
	}
	if err := r1.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}

	// Empty data is an empty stream, not an error.
	if got, err := openAll(t.Context(), skill.ArchiveBytes(nil)); err != nil || got != "" {
		t.Errorf("ArchiveBytes(nil) opener = %q, %v, want \"\", nil", got, err)
	}
}

func TestArchiveBytesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rc, err := skill.ArchiveBytes([]byte("data"))(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ArchiveBytes opener(cancelled) error = %v, want context.Canceled", err)
	}
	if rc != nil {
		rc.Close()
		t.Errorf("ArchiveBytes opener(cancelled) returned a reader")
	}
}

func TestArchiveFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kit.tgz")
	if err := os.WriteFile(path, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := skill.ArchiveFile(path)
	for i := range 2 {
		got, err := openAll(t.Context(), open)
		if err != nil || got != "first" {
			t.Errorf("ArchiveFile(%q) opener call %d = %q, %v, want %q, nil", path, i, got, err, "first")
		}
	}
	// The file is opened on each call, so a replaced file is seen.
	if err := os.WriteFile(path, []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := openAll(t.Context(), open); err != nil || got != "second" {
		t.Errorf("ArchiveFile(%q) opener after rewrite = %q, %v, want %q, nil", path, got, err, "second")
	}
	// A file that appears after the opener is built is found.
	later := filepath.Join(t.TempDir(), "later.zip")
	openLater := skill.ArchiveFile(later)
	if err := os.WriteFile(later, []byte("later"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := openAll(t.Context(), openLater); err != nil || got != "later" {
		t.Errorf("ArchiveFile(%q) opener = %q, %v, want %q, nil", later, got, err, "later")
	}
}

func TestArchiveFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.tgz")
	rc, err := skill.ArchiveFile(path)(t.Context())
	if err == nil {
		rc.Close()
		t.Fatalf("ArchiveFile(%q) opener error = nil, want error", path)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ArchiveFile(%q) opener error = %v, want fs.ErrNotExist", path, err)
	}
}

// archiveServer serves a few fixed routes and records the requests it sees.
type archiveServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
}

func newArchiveServer(t *testing.T) *archiveServer {
	t.Helper()
	s := &archiveServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/kit.tgz", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "archive body")
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/kit.tgz", http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/kit.tgz", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.PathValue("code"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(code)
		if code != http.StatusNoContent && code != http.StatusNotModified {
			io.WriteString(w, "status body")
		}
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *archiveServer) seen() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func TestArchiveURLStatus(t *testing.T) {
	srv := newArchiveServer(t)
	tests := []struct {
		code     int
		wantErr  bool
		wantBody string
	}{
		{code: http.StatusOK, wantBody: "status body"},
		{code: http.StatusAccepted, wantBody: "status body"},
		{code: http.StatusNoContent, wantBody: ""},
		{code: http.StatusNotModified, wantErr: true},
		{code: http.StatusBadRequest, wantErr: true},
		{code: http.StatusUnauthorized, wantErr: true},
		{code: http.StatusNotFound, wantErr: true},
		{code: http.StatusInternalServerError, wantErr: true},
		{code: http.StatusBadGateway, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			url := srv.URL + "/status/" + strconv.Itoa(tt.code)
			got, err := openAll(t.Context(), skill.ArchiveURL(url))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ArchiveURL(%q) opener = %q, nil, want error", url, got)
				}
				if !strings.Contains(err.Error(), strconv.Itoa(tt.code)) {
					t.Errorf("ArchiveURL(%q) opener error = %q, want it to name status %d", url, err, tt.code)
				}
				return
			}
			if err != nil || got != tt.wantBody {
				t.Errorf("ArchiveURL(%q) opener = %q, %v, want %q, nil", url, got, err, tt.wantBody)
			}
		})
	}
}

func TestArchiveURLGet(t *testing.T) {
	srv := newArchiveServer(t)
	url := srv.URL + "/kit.tgz"
	open := skill.ArchiveURL(url)
	for i := range 2 {
		got, err := openAll(t.Context(), open)
		if err != nil || got != "archive body" {
			t.Errorf("ArchiveURL(%q) opener call %d = %q, %v, want %q, nil", url, i, got, err, "archive body")
		}
	}
	reqs := srv.seen()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2 (one per call)", len(reqs))
	}
	for _, r := range reqs {
		if r.Method != http.MethodGet {
			t.Errorf("request method = %q, want %q", r.Method, http.MethodGet)
		}
		if r.URL.Path != "/kit.tgz" {
			t.Errorf("request path = %q, want %q", r.URL.Path, "/kit.tgz")
		}
	}
}

func TestArchiveURLRedirect(t *testing.T) {
	srv := newArchiveServer(t)
	for _, path := range []string{"/old", "/moved"} {
		t.Run(path, func(t *testing.T) {
			url := srv.URL + path
			got, err := openAll(t.Context(), skill.ArchiveURL(url))
			if err != nil || got != "archive body" {
				t.Errorf("ArchiveURL(%q) opener = %q, %v, want %q, nil", url, got, err, "archive body")
			}
		})
	}
}

func TestArchiveURLHeaders(t *testing.T) {
	srv := newArchiveServer(t)
	url := srv.URL + "/kit.tgz"
	open := skill.ArchiveURL(url,
		skill.WithArchiveHeader("X-Token", "one"),
		skill.WithArchiveHeader("Authorization", "Bearer secret"),
		skill.WithArchiveHeader("X-Token", "two"),
	)
	for i := range 2 {
		if _, err := openAll(t.Context(), open); err != nil {
			t.Fatalf("ArchiveURL(%q) opener call %d error = %v", url, i, err)
		}
	}
	reqs := srv.seen()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if got, want := r.Header.Values("X-Token"), []string{"one", "two"}; !slices.Equal(got, want) {
			t.Errorf("request %d header X-Token = %q, want %q", i, got, want)
		}
		if got, want := r.Header.Values("Authorization"), []string{"Bearer secret"}; !slices.Equal(got, want) {
			t.Errorf("request %d header Authorization = %q, want %q", i, got, want)
		}
	}
}

func TestArchiveURLNilClient(t *testing.T) {
	srv := newArchiveServer(t)
	url := srv.URL + "/kit.tgz"
	got, err := openAll(t.Context(), skill.ArchiveURL(url, skill.WithArchiveHTTPClient(nil)))
	if err != nil || got != "archive body" {
		t.Errorf("ArchiveURL(%q, WithArchiveHTTPClient(nil)) opener = %q, %v, want %q, nil", url, got, err, "archive body")
	}
	// The default client follows redirects.
	url = srv.URL + "/old"
	got, err = openAll(t.Context(), skill.ArchiveURL(url, skill.WithArchiveHTTPClient(nil)))
	if err != nil || got != "archive body" {
		t.Errorf("ArchiveURL(%q, WithArchiveHTTPClient(nil)) opener = %q, %v, want %q, nil", url, got, err, "archive body")
	}
}

// countingTransport counts the requests it forwards.
type countingTransport struct {
	n    atomic.Int32
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func TestArchiveURLCustomClient(t *testing.T) {
	srv := newArchiveServer(t)
	tr := &countingTransport{next: srv.Client().Transport}
	client := &http.Client{Transport: tr}

	url := srv.URL + "/kit.tgz"
	open := skill.ArchiveURL(url, skill.WithArchiveHTTPClient(client))
	if tr.n.Load() != 0 {
		t.Errorf("ArchiveURL issued %d requests before the opener was called, want 0", tr.n.Load())
	}
	got, err := openAll(t.Context(), open)
	if err != nil || got != "archive body" {
		t.Fatalf("ArchiveURL(%q) opener = %q, %v, want %q, nil", url, got, err, "archive body")
	}
	if n := tr.n.Load(); n != 1 {
		t.Errorf("custom transport saw %d requests, want 1", n)
	}

	// A client that refuses redirects is honoured: the 302 is not 2xx.
	noRedirect := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	url = srv.URL + "/old"
	if got, err := openAll(t.Context(), skill.ArchiveURL(url, skill.WithArchiveHTTPClient(noRedirect))); err == nil {
		t.Errorf("ArchiveURL(%q) with a non-redirecting client = %q, nil, want error", url, got)
	}
	if n := tr.n.Load(); n != 2 {
		t.Errorf("custom transport saw %d requests, want 2", n)
	}

	// The last WithArchiveHTTPClient wins; nil restores the default.
	before := tr.n.Load()
	url = srv.URL + "/kit.tgz"
	if _, err := openAll(t.Context(), skill.ArchiveURL(url, skill.WithArchiveHTTPClient(client), skill.WithArchiveHTTPClient(nil))); err != nil {
		t.Fatalf("ArchiveURL(%q) opener error = %v", url, err)
	}
	if n := tr.n.Load(); n != before {
		t.Errorf("custom transport saw %d new requests after WithArchiveHTTPClient(nil), want 0", n-before)
	}
}

func TestArchiveURLContext(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		rc, err := skill.ArchiveURL(srv.URL)(ctx)
		if rc != nil {
			rc.Close()
		}
		errc <- err
	}()
	select {
	case <-started:
	case err := <-errc:
		t.Fatalf("ArchiveURL opener returned %v before the handler ran", err)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ArchiveURL opener with cancelled context error = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ArchiveURL opener still blocked 10s after its context was cancelled")
	}
}

func TestArchiveURLCancelledBeforeCall(t *testing.T) {
	srv := newArchiveServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rc, err := skill.ArchiveURL(srv.URL + "/kit.tgz")(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ArchiveURL opener(cancelled) error = %v, want context.Canceled", err)
	}
	if rc != nil {
		rc.Close()
	}
	if n := len(srv.seen()); n != 0 {
		t.Errorf("server saw %d requests for a cancelled context, want 0", n)
	}
}

func TestArchiveURLBadURL(t *testing.T) {
	for _, url := range []string{"://missing-scheme", "ftp://example.invalid/kit.tgz", "http://[::1"} {
		t.Run(url, func(t *testing.T) {
			rc, err := skill.ArchiveURL(url)(t.Context())
			if err == nil {
				rc.Close()
				t.Errorf("ArchiveURL(%q) opener error = nil, want error", url)
			}
		})
	}
}

// TestArchiveUnrecognized checks that an archive whose format is not
// recognized is ErrArchiveFormat naming WithFormat, which pins one, and
// that one pinned is not sniffed.
func TestArchiveUnrecognized(t *testing.T) {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(t.TempDir()))
	_, err := m.Materialize(t.Context(), skill.Archive("notes", skill.ArchiveBytes([]byte("plain text, no archive"))))
	if !errors.Is(err, skill.ErrArchiveFormat) || !strings.Contains(err.Error(), "not a zip, tar or tar.gz archive (pin one with WithFormat") {
		t.Errorf("Materialize(plain text) = %v; want ErrArchiveFormat naming WithFormat", err)
	}
	_, err = m.Materialize(t.Context(), skill.Archive("notes", skill.ArchiveBytes([]byte("plain text, no archive")), skill.WithFormat(skill.FormatZip)))
	if !errors.Is(err, skill.ErrArchiveFormat) || strings.Contains(err.Error(), "WithFormat") {
		t.Errorf("Materialize(plain text as zip) = %v; want ErrArchiveFormat, naming no setting", err)
	}
}
