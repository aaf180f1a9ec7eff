// Package ocitest is an OCI registry on loopback that tests publish
// skills to and sign them in, and the keys they sign with: what the
// tests of package trust and of package install share.
package ocitest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// Registry is a registry on loopback, with referrers, and its
// publisher's skill cache. It closes when the test ends.
type Registry struct {
	// Host is the registry's HOST:PORT.
	Host string
	// Cache is the publisher's skill cache.
	Cache *skill.Cache
	srv   *httptest.Server
	creds credentials.Store
}

// New starts a registry for t.
func New(t testing.TB) *Registry {
	t.Helper()
	srv, host := ocireg.Start(t, true)
	return &Registry{
		Host:  host,
		Cache: skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t))),
		srv:   srv,
		creds: credentials.NewMemoryStore(),
	}
}

// Close stops the registry: what a test of a registry gone does.
func (r *Registry) Close() { r.srv.Close() }

// Options are the oci options of the publisher: its skill cache, and
// credentials of its own, none of the user's.
func (r *Registry) Options() []oci.Option {
	return []oci.Option{oci.WithCache(r.Cache), oci.WithCredentials(r.creds)}
}

// Push publishes a skill folder named name whose SKILL.md is skillMD at
// oci://HOST/repo:tag and returns the pinned reference,
// oci://HOST/repo@DIGEST.
func (r *Registry) Push(t testing.TB, repo, tag, name, skillMD string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := oci.Push(t.Context(), dir, "oci://"+r.Host+"/"+repo+":"+tag, r.Options()...)
	if err != nil {
		t.Fatalf("oci.Push: %v", err)
	}
	return "oci://" + r.Host + "/" + repo + "@" + d
}

// Sign signs the pinned reference ref with key, and returns the
// referrer's digest.
func (r *Registry) Sign(t testing.TB, ref string, key crypto.Signer) string {
	t.Helper()
	d, err := oci.Sign(t.Context(), ref, signature.KeySigner{Key: key}, r.Options()...)
	if err != nil {
		t.Fatalf("oci.Sign(%s): %v", ref, err)
	}
	return d
}

// Key is a signing key: an ECDSA P-256 key pair, its public key as PEM
// (as cosign writes cosign.pub) in a file, and its ID.
type Key struct {
	Private *ecdsa.PrivateKey
	PEM     []byte
	File    string
	ID      string
}

// NewKey makes a key for t.
func NewKey(t testing.TB) Key {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	k := Key{Private: priv, PEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), File: filepath.Join(t.TempDir(), "cosign.pub")}
	if err := os.WriteFile(k.File, k.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if k.ID, err = signature.KeyID(priv.Public()); err != nil {
		t.Fatal(err)
	}
	return k
}

// Requirement is the requirement of a signature by k.
func (k Key) Requirement() signature.Requirement {
	return signature.Requirement{Key: k.Private.Public()}
}
