package install

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// extendsURL is the extends text of a URL that serves body: the URL with
// its content's #sha256=.
func extendsURL(u string, body []byte) string {
	return u + "#sha256=" + sha256Hex(body)
}

// TestPolicyExtendsProjectCheckedAgainstUsersChain: the user's file
// extends a company file whose sources.allow names GitHub alone. A
// cloned project's extends of any other source is refused before it is
// requested: it must pass the user's whole chain, not the user's own
// file alone. And a link of the user's chain passes the part of the
// chain loaded before it: the company file's own extends is checked
// against the company file's sources.allow.
func TestPolicyExtendsProjectCheckedAgainstUsersChain(t *testing.T) {
	company := []byte("version: 1\nsources:\n  allow: [github:acme/*]\n")
	proj := []byte("version: 1\n")
	var projHits, baseHits atomic.Int32
	var companyExtending []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/company.yaml":
			w.Write(company)
		case "/company-extending.yaml":
			w.Write(companyExtending)
		case "/anything.yaml":
			projHits.Add(1)
			w.Write(proj)
		case "/base.yaml":
			baseHits.Add(1)
			w.Write(proj)
		}
	}))
	defer srv.Close()
	f := newFixture(t)
	writeFiles(t, f.env.Home, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/company.yaml", company) + "\"\n"})
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/anything.yaml", proj) + "\"\n"})
	in := f.remoteInstaller(t, cachetest.Root(t))
	_, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "company.yaml") || projHits.Load() > 0 {
		t.Errorf("LoadPolicy = %v, the project's extends requested %d times; want it refused by the company file's sources.allow (the user's chain), unrequested", err, projHits.Load())
	}
	// Without the project, the user's chain loads.
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{}); err != nil {
		t.Fatalf("LoadPolicy of the user's chain = %v", err)
	}

	// The company file extends a URL its own sources.allow does not name:
	// the user's file allows everything, but the company file is loaded
	// before it and is the user's word.
	companyExtending = []byte("version: 1\nextends: \"" + extendsURL(srv.URL+"/base.yaml", proj) + "\"\nsources:\n  allow: [github:acme/*]\n")
	writeFiles(t, f.env.Home, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/company-extending.yaml", companyExtending) + "\"\n"})
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{}); !errors.Is(err, trust.ErrRefused) || baseHits.Load() > 0 {
		t.Errorf("LoadPolicy = %v, base requested %d times; want the company file's extends refused by its own sources.allow", err, baseHits.Load())
	}
}

// TestPolicyExtendsRedirectChecked: a URL the user's sources.allow names
// redirects to one it does not: the hop is refused before it is
// requested, as an add's download's is (Trust rule 1).
func TestPolicyExtendsRedirectChecked(t *testing.T) {
	body := []byte("version: 1\n")
	var evilHits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok/p.yaml":
			http.Redirect(w, r, "/evil/p.yaml", http.StatusFound)
		case "/ok/fine.yaml":
			http.Redirect(w, r, "/ok/p2.yaml", http.StatusFound)
		case "/ok/p2.yaml", "/evil/p.yaml":
			if strings.HasPrefix(r.URL.Path, "/evil/") {
				evilHits.Add(1)
			}
			w.Write(body)
		}
	}))
	defer srv.Close()
	f := newFixture(t)
	writeFiles(t, f.env.Home, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nsources:\n  allow: [\"url:" + srv.URL + "/ok/*\"]\n"})
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/ok/p.yaml", body) + "\"\n"})
	in := f.remoteInstaller(t, cachetest.Root(t))
	_, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "redirected to") || evilHits.Load() > 0 {
		t.Errorf("LoadPolicy = %v, /evil/ requested %d times; want the redirect refused by the user's sources.allow before it is requested", err, evilHits.Load())
	}
	// A redirect within what the policy allows is followed.
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/ok/fine.yaml", body) + "\"\n"})
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Errorf("LoadPolicy through an allowed redirect = %v", err)
	}
}

// TestPolicyExtendsCredentialsRedacted: the credentials of an extends
// URL are in no lock file, denial, layer or entry; the lock entry is
// matched on the redacted text.
func TestPolicyExtendsCredentialsRedacted(t *testing.T) {
	body := []byte("version: 1\nsources:\n  allow: [github:acme/*]\n")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write(body) }))
	defer srv.Close()
	u := extendsURL(strings.Replace(srv.URL, "http://", "http://bob:s3cr3t-token@", 1)+"/p.yaml", body)
	f := newFixture(t)
	writeFiles(t, f.env.Home, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + u + "\"\n"})
	cache := cachetest.Root(t)
	p, err := f.remoteInstaller(t, cache).LoadPolicy(t.Context(), PolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := os.ReadFile(filepath.Join(f.env.Home, ".agents", lockName))
	if strings.Contains(string(lock), "s3cr3t-token") || !strings.Contains(string(lock), extendsURL(srv.URL+"/p.yaml", body)) {
		t.Errorf("the lock file records the credentials, or not the source:\n%s", lock)
	}
	err = p.Check(source.Origin{Kind: source.GitHub, Location: "evil/x", Pinned: true, Display: "evil/x"})
	if !errors.Is(err, policy.ErrDenied) || strings.Contains(err.Error(), "s3cr3t-token") {
		t.Errorf("denial = %v; want it denied, without the credentials", err)
	}
	for _, l := range p.Layers() {
		if strings.Contains(l.File, "s3cr3t-token") || l.Fetched != nil && strings.Contains(l.Fetched.Source, "s3cr3t-token") || strings.Contains(strings.Join(l.Chain, " "), "s3cr3t-token") || strings.Contains(l.Extends, "s3cr3t-token") {
			t.Errorf("layer shows the credentials: %+v", l)
		}
	}
	for _, e := range p.Entries() {
		if strings.Contains(e.Value, "s3cr3t-token") || strings.Contains(e.File, "s3cr3t-token") {
			t.Errorf("entry shows the credentials: %+v", e)
		}
	}
	// The entry, recorded redacted, is found again: an offline load reads it.
	hits.Store(0)
	if _, err := f.remoteInstaller(t, cache).LoadPolicy(t.Context(), PolicyRequest{Offline: true}); err != nil || hits.Load() > 0 {
		t.Errorf("offline LoadPolicy = %v, %d requests; want the redacted lock entry matched", err, hits.Load())
	}
}

// TestPolicyExtendsURLReadToMaxFileSize: an extends URL is read no
// further than policy.MaxFileSize (and one byte), not to the archive
// limit, before it is refused.
func TestPolicyExtendsURLReadToMaxFileSize(t *testing.T) {
	var sent atomic.Int64
	chunk := make([]byte, 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 1024 { // 64 MiB
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	f := newFixture(t)
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + srv.URL + "/p.yaml#sha256=" + strings.Repeat("a", 64) + "\"\n"})
	_, err := f.remoteInstaller(t, cachetest.Root(t)).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("LoadPolicy of a large file = %v, want ErrInvalidSource, larger than", err)
	}
	srv.CloseClientConnections()
	// What the socket buffers take is sent besides what was read.
	if sent.Load() > 16<<20 {
		t.Errorf("the server sent %d bytes for a policy file of at most %d", sent.Load(), policy.MaxFileSize)
	}
}

// TestPolicyExtendsLockPinChecked: a lock file (a cloned project's) whose
// entry records a pin or digest not of the source's form is refused with
// ErrInvalidLock, cached or not, and its text is shown escaped.
func TestPolicyExtendsLockPinChecked(t *testing.T) {
	body := []byte("version: 1\nsources:\n  allow: [github:acme/*]\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	src := extendsURL(srv.URL+"/p.yaml", body)
	f := newFixture(t)
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + src + "\"\n"})
	cache := cachetest.Root(t)
	in := f.remoteInstaller(t, cache)
	// Pinned rightly, it loads (and the cache keeps it).
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(f.env.Project, ".agents", lockName)
	good, _ := os.ReadFile(lockFile)
	for _, tc := range []struct{ name, pin, digest string }{
		{"escape sequence pin", "\x1b]0;pwned\x07\x1b[2J", "sha256:" + sha256Hex(body)},
		{"another URL's sha256", "sha256:" + strings.Repeat("b", 64), "sha256:" + sha256Hex(body)},
		{"digest not hex", "sha256:" + sha256Hex(body), "sha256:\x1b[2J"},
	} {
		l, _ := readLock(lockFile)
		l.Policy.Extends[0].Pin, l.Policy.Extends[0].Digest = tc.pin, tc.digest
		if err := l.write(lockFile); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{cache, cachetest.Root(t)} { // a cache hit, a miss
			_, err := f.remoteInstaller(t, c).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
			if !errors.Is(err, ErrInvalidLock) || strings.ContainsRune(err.Error(), 0x1b) {
				t.Errorf("%s: LoadPolicy = %v; want ErrInvalidLock, the text escaped", tc.name, err)
			}
		}
	}
	// A git source's pin is a commit in hex.
	if err := checkExtendsPin("git+https://git.example.com/a/p#ref=v1", lockExtends{Pin: "v1", Digest: "sha256:" + sha256Hex(body)}); err == nil {
		t.Error("a git pin that is a tag passed")
	}
	if err := checkExtendsPin("git+https://git.example.com/a/p#ref=v1", lockExtends{Pin: strings.Repeat("c", 40), Digest: "sha256:" + sha256Hex(body)}); err != nil {
		t.Errorf("a git commit pin = %v", err)
	}
	if err := checkExtendsPin("oci://r.example/a/p:1", lockExtends{Pin: "sha256:" + strings.Repeat("d", 64), Digest: "sha256:" + sha256Hex(body)}); err != nil {
		t.Errorf("an OCI digest pin = %v", err)
	}
	if err := checkExtendsPin("oci://r.example/a/p:1", lockExtends{Pin: strings.Repeat("d", 64), Digest: "sha256:" + sha256Hex(body)}); err == nil {
		t.Error("an OCI pin without its algorithm passed")
	}
	os.WriteFile(lockFile, good, 0o644)
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Errorf("LoadPolicy with the lock file restored = %v", err)
	}
}

// TestPolicyExtendsOfflineReadsNoNetwork: an offline load (verify) reads
// a pinned file from the cache, and refuses one the cache lacks with
// ErrSourceUnavailable without a request; a frozen load (sync --frozen)
// fetches it at its pin, as it does a skill.
func TestPolicyExtendsOfflineReadsNoNetwork(t *testing.T) {
	body := []byte("version: 1\n")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write(body) }))
	defer srv.Close()
	f := newFixture(t)
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/p.yaml", body) + "\"\n"})
	cache := cachetest.Root(t)
	if _, err := f.remoteInstaller(t, cache).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Fatal(err)
	}
	hits.Store(0)
	if _, err := f.remoteInstaller(t, cache).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, Offline: true}); err != nil || hits.Load() > 0 {
		t.Errorf("offline LoadPolicy with the cache = %v, %d requests", err, hits.Load())
	}
	empty := cachetest.Root(t)
	_, err := f.remoteInstaller(t, empty).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, Offline: true})
	if !errors.Is(err, ErrSourceUnavailable) || !strings.Contains(err.Error(), "agentskills sync") || hits.Load() > 0 {
		t.Errorf("offline LoadPolicy without the cache = %v, %d requests; want ErrSourceUnavailable advising sync, no request", err, hits.Load())
	}
	if _, err := f.remoteInstaller(t, empty).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, Frozen: true}); err != nil || hits.Load() != 1 {
		t.Errorf("frozen LoadPolicy without the cache = %v, %d requests; want the pinned file fetched", err, hits.Load())
	}
}

// TestPolicyExtendsReadOnlyRecordsNothing: a read-only load (policy
// check, export, run) writes no lock file: it reads a file not pinned
// at what its source names now, and keeps the pins of files no longer
// extended.
func TestPolicyExtendsReadOnlyRecordsNothing(t *testing.T) {
	body := []byte("version: 1\naudit:\n  fail_on: medium\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	f := newFixture(t)
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + extendsURL(srv.URL+"/p.yaml", body) + "\"\n"})
	lockFile := filepath.Join(f.env.Project, ".agents", lockName)
	in := f.remoteInstaller(t, cachetest.Root(t))
	p, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, ReadOnly: true})
	if err != nil || p.FailOn() != audit.Medium {
		t.Fatalf("read-only LoadPolicy = %v, %v", p, err)
	}
	if _, err := os.Stat(lockFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only load wrote the lock file (%v)", err)
	}
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Fatal(err)
	}
	pinned, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatalf("a load that records wrote no lock file: %v", err)
	}
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\n"})
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(lockFile); string(now) != string(pinned) {
		t.Errorf("a read-only load changed the lock file:\n%s\nwas\n%s", now, pinned)
	}
}

// TestPolicyExtendsHostileSources: extends texts that would run a
// command, read a file of the machine or reach past a repository are
// refused, and run nothing.
func TestPolicyExtendsHostileSources(t *testing.T) {
	needGit(t)
	repo := filepath.Join(t.TempDir(), "team")
	gitRepo(t, repo, map[string]string{"agentskills.policy.yaml": "version: 1\n"})
	gitTag(t, repo, "v1")
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, src := range []string{
		"git+ext::sh%20-c%20touch%20" + marker + "#ref=v1",
		"ext::sh%20-c%20touch%20" + marker,
		"git+file://" + repo + "#ref=--upload-pack=touch%20" + marker,
		"git+file://" + repo + "#ref=v1&path=../../../../etc/passwd",
		"git+file://" + repo + "#ref=v1&path=/etc/hostname",
		"git+--upload-pack=touch%20" + marker + ":x#ref=v1",
		"file://" + repo,
		"file:///etc/hostname",
		"git+file://" + repo + "/../../../../etc#ref=v1",
		"git+https://127.0.0.1:1/x.git#ref=v1&path=a.yaml",
		"oci://127.0.0.1:1/x:1",
	} {
		f := newFixture(t)
		writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + src + "\"\n"})
		if _, err := f.remoteInstaller(t, cachetest.Root(t)).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err == nil {
			t.Errorf("extends %s loaded", src)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("extends %s ran a command", src)
		}
	}
}
