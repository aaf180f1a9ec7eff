package signature

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
)

// newKey returns a fresh key of the named kind.
func newKey(t *testing.T, kind string) crypto.Signer {
	t.Helper()
	var k crypto.Signer
	var err error
	switch kind {
	case "p256":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "p384":
		k, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "p521":
		k, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "p224":
		k, err = ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	case "ed25519":
		_, k, err = ed25519.GenerateKey(rand.Reader)
	case "rsa":
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		t.Fatalf("newKey(%q): unknown kind", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pkcs8PEM(t *testing.T, k crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func publicPEM(t *testing.T, pub crypto.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// encryptedPEM is a key pair file as cosign writes it: PKCS#8 DER
// encrypted with scrypt and secretbox under password.
func encryptedPEM(t *testing.T, k crypto.Signer, typ string, password []byte) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encrypted.Encrypt(der, password)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: enc})
}

// TestLoadPrivateKey checks rule 1 for private keys.
func TestLoadPrivateKey(t *testing.T) {
	p256 := newKey(t, "p256")
	ecSEC1, err := x509.MarshalECPrivateKey(p256.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		pem      []byte
		password string
		wantErr  string // empty: the key loads
	}{
		{name: "pkcs8 p256", pem: pkcs8PEM(t, p256)},
		{name: "pkcs8 p384", pem: pkcs8PEM(t, newKey(t, "p384"))},
		{name: "pkcs8 p521", pem: pkcs8PEM(t, newKey(t, "p521"))},
		{name: "pkcs8 ed25519", pem: pkcs8PEM(t, newKey(t, "ed25519"))},
		{name: "sigstore encrypted", pem: encryptedPEM(t, p256, "ENCRYPTED SIGSTORE PRIVATE KEY", []byte("pw")), password: "pw"},
		{name: "cosign 1 encrypted", pem: encryptedPEM(t, p256, "ENCRYPTED COSIGN PRIVATE KEY", []byte("pw")), password: "pw"},
		{name: "encrypted ed25519", pem: encryptedPEM(t, newKey(t, "ed25519"), "ENCRYPTED SIGSTORE PRIVATE KEY", []byte("pw")), password: "pw"},
		{name: "wrong password", pem: encryptedPEM(t, p256, "ENCRYPTED SIGSTORE PRIVATE KEY", []byte("pw")), password: "other", wantErr: "wrong password"},
		{name: "rsa", pem: pkcs8PEM(t, newKey(t, "rsa")), wantErr: "RSA keys are not supported"},
		{name: "p224", pem: pkcs8PEM(t, newKey(t, "p224")), wantErr: "curve P-224 is not supported"},
		{name: "sec1", pem: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecSEC1}), wantErr: `"EC PRIVATE KEY" key is not read`},
		{name: "public key", pem: publicPEM(t, p256.Public()), wantErr: `"PUBLIC KEY" is not a private key`},
		{name: "garbage", pem: []byte("not a key"), wantErr: "no PEM block found"},
		{name: "empty", pem: nil, wantErr: "no PEM block found"},
		{name: "bad der", pem: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("xx")}), wantErr: "does not hold a PKCS#8 key"},
		{name: "bad ciphertext", pem: pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: []byte("{}")}), password: "pw", wantErr: "cannot open"},
		{name: "huge", pem: []byte(strings.Repeat("x", maxKeyFile+1)), wantErr: "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := LoadPrivateKey(tt.pem, []byte(tt.password))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("LoadPrivateKey() = %v, want a key", err)
				}
				if _, err := KeyID(k.Public()); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("LoadPrivateKey() = %v, want ErrKey saying %q", err, tt.wantErr)
			}
		})
	}
}

// TestLoadPublicKey checks rule 1 for public keys.
func TestLoadPublicKey(t *testing.T) {
	tests := []struct {
		name    string
		pem     []byte
		wantErr string
	}{
		{name: "p256", pem: publicPEM(t, newKey(t, "p256").Public())},
		{name: "p521", pem: publicPEM(t, newKey(t, "p521").Public())},
		{name: "ed25519", pem: publicPEM(t, newKey(t, "ed25519").Public())},
		{name: "rsa", pem: publicPEM(t, newKey(t, "rsa").Public()), wantErr: "RSA keys are not supported"},
		{name: "private key", pem: pkcs8PEM(t, newKey(t, "p256")), wantErr: `"PRIVATE KEY" is not a public key`},
		{name: "garbage", pem: []byte("-----BEGIN"), wantErr: "no PEM block found"},
		{name: "bad der", pem: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}}), wantErr: "not a PKIX key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadPublicKey(tt.pem)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("LoadPublicKey() = %v, want a key", err)
				}
				return
			}
			if !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("LoadPublicKey() = %v, want ErrKey saying %q", err, tt.wantErr)
			}
		})
	}
}
