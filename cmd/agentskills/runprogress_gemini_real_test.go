package main

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRunProgressGeminiRetry runs the real Gemini CLI against a model API
// that answers the first turn call with a 429: the retry, which Gemini
// CLI reports on its standard error only, is a progress line while Gemini
// CLI still retries (the stand-in holds the retried call back until the
// line is on stderr), and the run then succeeds with the retried answer.
func TestRunProgressGeminiRetry(t *testing.T) {
	t.Parallel()
	const line = "agentskills run: gemini-cli: the model API answered 429 (slow down); retry 1\n"
	stderr := newWatchedWriter(line)
	var calls atomic.Int32
	var late atomic.Bool
	s := modeltest.NewGemini(t, func(*modeltest.GeminiRequest) modeltest.GeminiReply {
		switch calls.Add(1) {
		case 1:
			return modeltest.GeminiAPIError(429, "slow down")
		case 2:
			if !stderr.waitSeen() {
				late.Store(true)
			}
		}
		return modeltest.GeminiText("recovered")
	})
	env, home := s.GeminiEnv(t)
	r := rigFor(t, modeltest.GeminiCLI(t), env, home)
	code, out := r.processWith(t, runCtx(t), strings.NewReader(""), stderr, "run", "-a", "gemini-cli", "hello")
	errs := stderr.String()
	t.Logf("stderr:\n%s", errs)
	if code != 0 || !strings.Contains(out, "recovered") {
		t.Fatalf("run = %d, stdout %q, stderr %q; want 0 and the retried answer", code, out, errs)
	}
	if late.Load() {
		t.Errorf("the retry was not on stderr while Gemini CLI retried; stderr %q", errs)
	}
	for _, want := range []string{"gemini-cli started, session ", line} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q, want it to hold %q", errs, want)
		}
	}
}
