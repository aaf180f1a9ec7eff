package codex_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealProviderFix sets OPENAI_BASE_URL to the stand-in with a user
// config.toml that names no provider: the run fails before Codex starts,
// with a *codex.ProviderError. Its fix, written as the user's config.toml,
// makes the real Codex reach the stand-in.
func TestRealProviderFix(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("through the provider")))
	config := filepath.Join(r.userCodex, "config.toml")
	// Only what keeps Codex off the network, no provider.
	if err := os.WriteFile(config, []byte("analytics.enabled = false\n\n[features]\nplugins = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := r.config()
	c.Env = append(c.Env, "OPENAI_BASE_URL="+r.server.URL+"/v1")
	agent := r.agent(t, c)
	// Without the check, Codex would retry OpenAI's host for minutes.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := agent.Run(ctx, "hello")
	var pe *codex.ProviderError
	if !errors.As(err, &pe) || pe.Config != config {
		t.Fatalf("run = %v, want a *codex.ProviderError naming %s", err, config)
	}
	if n := len(r.server.Requests()); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}
	// The fix appended to the file: model_provider lands in the table
	// above it, where Codex ignores it (it would retry OpenAI's host).
	if err := os.WriteFile(config, []byte("analytics.enabled = false\n\n[features]\nplugins = false\n"+pe.Fix()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Run(ctx, "hello"); !errors.As(err, &pe) || pe.Line != 5 || pe.Table != "[features]" {
		t.Fatalf("run with the fix appended = %v, want a *codex.ProviderError naming line 5 in [features]", err)
	}
	if err := os.WriteFile(config, []byte("analytics.enabled = false\n"+pe.Fix()+"\n[features]\nplugins = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := agent.Run(ctx, "hello")
	if err != nil || res.Text != "through the provider" {
		t.Fatalf("run with the fix = %+v, %v; want the stand-in's answer", res, err)
	}
}

// TestRealConfigError gives Codex a config.toml it cannot read: the error
// names the user's file, the one to edit, not the managed home's copy
// Codex read.
func TestRealConfigError(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("unused")))
	config := filepath.Join(r.userCodex, "config.toml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, append(data, "\nbroken = [\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = r.agent(t, r.config()).Run(t.Context(), "hello")
	var pe *driver.ProcessError
	if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, config+":") || strings.Contains(pe.Stderr, r.cache) {
		t.Fatalf("run = %v, want a process error naming %s, not the managed copy", err, config)
	}
}

// TestRealProviderURLRefused gives the real Codex a provider whose
// base_url is a loopback address where nothing listens: the run is
// refused before the start, naming the setting and the file, instead of
// Codex's retries.
func TestRealProviderURLRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("unused")))
	config := filepath.Join(r.userCodex, "config.toml")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	fix := (&codex.ProviderError{BaseURL: closed}).Fix()
	if err := os.WriteFile(config, []byte("analytics.enabled = false\n"+fix+"\n[features]\nplugins = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = r.agent(t, r.config()).Run(t.Context(), "hello")
	want := "base_url of [model_providers.custom] in " + config + " is " + closed + ", and a connection to it is refused"
	if !errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), want) {
		t.Fatalf("run = %v, want it refused before the start saying %q", err, want)
	}
}
