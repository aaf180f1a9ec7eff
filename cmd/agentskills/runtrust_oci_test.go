package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// TestRunOCIKey runs oci:// skills on a registry on loopback with --key:
// a skill signed by the key is mounted and the agent starts; an unsigned
// one, or one signed by another key, is refused before the agent starts,
// with exit 1 and code "policy". The policy's signers apply the same way
// without --key.
func TestRunOCIKey(t *testing.T) {
	r := newStubRig(t)
	_, host := ocireg.Start(t, true)
	opts := []oci.Option{oci.WithCredentials(credentials.NewMemoryStore())}

	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	keyFile := filepath.Join(t.TempDir(), "cosign.pub")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)

	push := func(t *testing.T, name string, key ed25519.PrivateKey) string {
		t.Helper()
		dir := t.TempDir()
		writeSkill(t, dir, "review", "---\nname: review\ndescription: Reviews "+name+".\n---\nRead the diff.\n")
		tag := "oci://" + host + "/acme/" + name + ":1"
		dgst, err := oci.Push(t.Context(), filepath.Join(dir, "review"), tag, opts...)
		if err != nil {
			t.Fatalf("Push: %v", err)
		}
		if key != nil {
			if _, err := oci.Sign(t.Context(), tag+"@"+dgst, signature.KeySigner{Key: key}, opts...); err != nil {
				t.Fatalf("Sign: %v", err)
			}
		}
		return tag
	}
	tests := []struct {
		name   string
		key    ed25519.PrivateKey
		policy bool // the signer is the policy's, not --key's
		refuse string
	}{
		{"signed", priv, false, ""},
		{"unsigned", nil, false, "not signed"},
		{"another key", other, false, "not signed by a required signer"},
		{"policy signed", priv, true, ""},
		{"policy unsigned", nil, true, "signers[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tag := push(t, strings.ReplaceAll(tt.name, " ", "-"), tt.key)
			workspace := t.TempDir()
			args := []string{"run", "-a", "claude-code", "--agent-command", r.stub, "-w", workspace, "-s", tag, "--json"}
			if tt.policy {
				os.MkdirAll(filepath.Join(workspace, ".agents"), 0o755)
				os.WriteFile(filepath.Join(workspace, ".agents", "cosign.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
				writePolicy(t, workspace, "version: 1\nsigners:\n  - sources: [oci:"+host+"/acme/*]\n    keys: [cosign.pub]\n")
			} else {
				args = append(args, "--key", keyFile)
			}
			code, out, errs := r.run(t, append(args, "hello")...)
			started := r.started()
			if tt.refuse == "" {
				if !started {
					t.Fatalf("run = %d, stderr %q; want the agent started with the signed skill", code, errs)
				}
				return
			}
			last := lastJSONLine(t, out)
			if code != 1 || last["code"] != codePolicy || !strings.Contains(errs, tt.refuse) || !strings.Contains(errs, tag) {
				t.Errorf("run = %d, last line %v, stderr %q; want 1, code %q, saying %q and naming %s", code, last, errs, codePolicy, tt.refuse, tag)
			}
			if started {
				t.Error("run started the agent with a refused skill")
			}
		})
	}
}
