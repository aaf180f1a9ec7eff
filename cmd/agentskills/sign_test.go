package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cosigntest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
)

// signFixture is a loopback registry with referrers, a skill folder, and
// an environment of the test's own (Docker configuration, cache root, no
// COSIGN_PASSWORD).
type signFixture struct {
	host string
	dir  string
}

func newSignFixture(t *testing.T) signFixture {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", cachetest.Root(t))
	t.Setenv(passwordEnv, "")
	os.Unsetenv(passwordEnv) // t.Setenv restores it at the end
	_, host := ocireg.Start(t, true)
	dir := filepath.Join(t.TempDir(), "review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Reviews a change\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return signFixture{host: host, dir: dir}
}

// runCLI runs agentskills in process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// pkcs8Key writes a new ECDSA P-256 key as plain PKCS#8 PEM and its
// public key as PKIX PEM, and returns their paths.
func pkcs8Key(t *testing.T) (private, public string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	pub, _ := x509.MarshalPKIXPublicKey(k.Public())
	dir := t.TempDir()
	private, public = filepath.Join(dir, "key.pem"), filepath.Join(dir, "key.pub")
	os.WriteFile(private, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	os.WriteFile(public, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
	return private, public
}

var digestLine = regexp.MustCompile(`^sha256:[0-9a-f]{64}\n$`)

// TestPushSignKeyCosignVerifies: push --sign-key with a key cosign
// generated signs the pushed manifest so that the real cosign verify
// accepts it.
func TestPushSignKeyCosignVerifies(t *testing.T) {
	cosigntest.Path(t)
	f := newSignFixture(t)
	kp := cosigntest.GenerateKeyPair(t, "s3cret")
	t.Setenv(passwordEnv, kp.Password)
	ref := "oci://" + f.host + "/team/review:v1"
	code, stdout, stderr := runCLI(t, "push", "--sign-key", kp.Private, f.dir, ref)
	if code != 0 || !digestLine.MatchString(stdout) {
		t.Fatalf("push --sign-key = %d, %q; stderr:\n%s", code, stdout, stderr)
	}
	pinned := f.host + "/team/review@" + strings.TrimSpace(stdout)
	if r := cosigntest.Run(t, "", nil, "verify", "--key", kp.Public, "--insecure-ignore-tlog", pinned); r.Err != nil {
		t.Errorf("cosign verify of what push --sign-key signed: %v\n%s", r.Err, r.Stderr)
	}
}

// TestSignCosignVerifies: sign with a plain PKCS#8 key signs a pushed
// skill so that the real cosign verify accepts it, and prints the
// signature's digest.
func TestSignCosignVerifies(t *testing.T) {
	cosigntest.Path(t)
	f := newSignFixture(t)
	private, public := pkcs8Key(t)
	ref := "oci://" + f.host + "/team/review:v1"
	code, stdout, stderr := runCLI(t, "push", f.dir, ref)
	if code != 0 {
		t.Fatalf("push = %d; stderr:\n%s", code, stderr)
	}
	dgst := strings.TrimSpace(stdout)
	pinned := f.host + "/team/review@" + dgst
	if r := cosigntest.Run(t, "", nil, "verify", "--key", public, "--insecure-ignore-tlog", pinned); r.Err == nil {
		t.Fatalf("cosign verify of an unsigned skill succeeded")
	}
	code, stdout, stderr = runCLI(t, "sign", ref+"@"+dgst, "--key", private)
	if code != 0 || !digestLine.MatchString(stdout) || strings.TrimSpace(stdout) == dgst {
		t.Fatalf("sign = %d, %q; want 0 and the signature's digest; stderr:\n%s", code, stdout, stderr)
	}
	if r := cosigntest.Run(t, "", nil, "verify", "--key", public, "--insecure-ignore-tlog", pinned); r.Err != nil {
		t.Errorf("cosign verify of what sign signed: %v\n%s", r.Err, r.Stderr)
	}
}

// TestSignRefuses: bad usage and unusable keys fail with a message that
// says what to do, and push --sign-key with a bad key pushes nothing.
func TestSignRefuses(t *testing.T) {
	f := newSignFixture(t)
	private, _ := pkcs8Key(t)
	encrypted := filepath.Join(t.TempDir(), "cosign.key")
	os.WriteFile(encrypted, pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: []byte("{}")}), 0o600)
	notKey := filepath.Join(t.TempDir(), "notkey.pem")
	os.WriteFile(notKey, []byte("hello\n"), 0o600)
	digest := "sha256:" + strings.Repeat("a", 64)
	pinned := "oci://" + f.host + "/team/review@" + digest

	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no reference", []string{"sign", "--key", private}, 2, "want oci://HOST/REPO@DIGEST"},
		{"two references", []string{"sign", "--key", private, pinned, pinned}, 2, "too many arguments"},
		{"no key", []string{"sign", pinned}, 2, "--key is required"},
		{"a tag, no digest", []string{"sign", "--key", private, "oci://" + f.host + "/team/review:v1"}, 2, "names no digest"},
		{"not a reference", []string{"sign", "--key", private, "team/review@" + digest}, 2, "is not an OCI reference"},
		{"no key file", []string{"sign", "--key", filepath.Join(t.TempDir(), "none.key"), pinned}, 2, "read the signing key"},
		{"encrypted key, no password", []string{"sign", "--key", encrypted, pinned}, 2, "COSIGN_PASSWORD is not set"},
		{"not a key", []string{"sign", "--key", notKey, pinned}, 2, notKey},
		{"no such manifest", []string{"sign", "--key", private, pinned}, 1, "not found"},
		{"push with an encrypted key, no password", []string{"push", "--sign-key", encrypted, f.dir, "oci://" + f.host + "/team/review:v1"}, 2, "COSIGN_PASSWORD is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.wantCode || stdout != "" || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d and a message saying %q", tc.args, code, stdout, stderr, tc.wantCode, tc.wantStderr)
			}
		})
	}
	// The push with a bad key sent nothing.
	resp, err := http.Get("http://" + f.host + "/v2/team/review/tags/list")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), "v1") {
		t.Errorf("tags after a push with a bad key = %s, want none", body)
	}
}
