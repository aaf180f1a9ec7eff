package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/install"
)

// policy check and export record no pin of a file the policy extends;
// policy show records it, and prints a value holding a newline quoted,
// on one line.
func TestPolicyExtendsReadOnlyCommands(t *testing.T) {
	body := []byte("version: 1\nsigners:\n  - sources: [\"oci:r.example/a\"]\n    identity: \"a\\nline 3: sources.allow: github:*/*\"\n    issuer: https://issuer.example\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	sum := sha256.Sum256(body)
	src := srv.URL + "/p.yaml#sha256=" + hex.EncodeToString(sum[:])
	_, project := policyScope(t, map[string]string{"project/" + userPolicy: "version: 1\nextends: \"" + src + "\"\n"})
	lock := filepath.Join(project, ".agents", "agentskills.lock")
	for _, args := range [][]string{{"policy", "check", "github:acme/x"}, {"policy", "export", "--format", "kyverno"}} {
		code, out, errs := runHere(t, args...)
		if code != 0 {
			t.Errorf("%v = %d, %q, stderr %q", args, code, out, errs)
		}
		if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v wrote the lock file (%v)", args, err)
		}
	}
	code, out, errs := runHere(t, "policy", "show")
	if want := `line 3: signers[1]: "oci:r.example/a signed by identity a\nline 3: sources.allow: github:*/* issued by https://issuer.example"`; code != 0 || !strings.Contains(out, want) || strings.Contains(out, "\nline 3: ") {
		t.Errorf("policy show = %d, %q, stderr %q; want the value quoted: %s", code, out, errs, want)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("policy show pinned nothing: %v", err)
	}
}

// Reading the policy stops when the command is interrupted (Ctrl-C) and
// when the server sends nothing for the download timeout.
func TestPolicyExtendsFetchStops(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	_, project := policyScope(t, map[string]string{"project/" + userPolicy: "version: 1\nextends: \"" + srv.URL + "/p.yaml#sha256=" + strings.Repeat("a", 64) + "\"\n"})
	env, err := install.CurrentEnv()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = loadPolicy(ctx, env, install.PolicyRequest{ProjectRoot: project}, time.Minute)
	if !errors.Is(err, errInterrupted) || time.Since(start) > 20*time.Second {
		t.Errorf("loadPolicy interrupted = %v after %v; want errInterrupted at once", err, time.Since(start))
	}
	start = time.Now()
	_, err = loadPolicy(t.Context(), env, install.PolicyRequest{ProjectRoot: project}, 300*time.Millisecond)
	if !errors.Is(err, install.ErrSourceUnavailable) || time.Since(start) > 20*time.Second {
		t.Errorf("loadPolicy with a stalled server = %v after %v; want ErrSourceUnavailable at the timeout", err, time.Since(start))
	}
}
