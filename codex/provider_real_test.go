package codex_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/codex"
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
	if err := os.WriteFile(config, []byte("analytics.enabled = false\n"+pe.Fix()+"\n[features]\nplugins = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := agent.Run(ctx, "hello")
	if err != nil || res.Text != "through the provider" {
		t.Fatalf("run with the fix = %+v, %v; want the stand-in's answer", res, err)
	}
}
