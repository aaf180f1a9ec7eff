package claude

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// TestCostPerRun checks that a run's CostUSD is its own, like its Usage,
// and SessionCostUSD the session's running total that Claude Code's
// total_cost_usd is: recorded streams of Claude Code 2.1.328, where a
// resumed run (resume.jsonl) reports the total of both runs, and lines
// changed to show what the driver does without
// model_usage_since_last_result.
func TestCostPerRun(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	withoutSince := func(b []byte) []byte {
		i := bytes.Index(b, []byte(`,"model_usage_since_last_result"`))
		if i < 0 {
			t.Fatal("the recorded stream has no model_usage_since_last_result")
		}
		return append(b[:i:i], []byte("}\n")...)
	}
	cost := func(v *float64) string {
		if v == nil {
			return "nil"
		}
		return fmt.Sprintf("%.4f", *v)
	}
	tests := []struct {
		name          string
		stream        []byte
		resume        string
		exit          int
		run, session  string
		agentReported bool // the run fails as an *driver.AgentError
	}{
		{"new session", read("plain.jsonl"), "", 0, "0.0006", "0.0006", false},
		{"resumed session", read("resume.jsonl"), "73711211-69d8-4cf1-b099-b1469d77cef7", 0, "0.0006", "0.0012", false},
		{"new session, no per-run field", withoutSince(read("plain.jsonl")), "", 0, "0.0006", "0.0006", false},
		{"resumed, no per-run field", withoutSince(read("resume.jsonl")), "73711211-69d8-4cf1-b099-b1469d77cef7", 0, "nil", "0.0012", false},
		{"error result", read("max-turns.jsonl"), "", 1, "0.0006", "0.0006", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newParser(nil)
			for _, l := range bytes.Split(tt.stream, []byte("\n")) {
				p.Parse(l)
			}
			res, err := outcome("claude", &driver.Request{Resume: tt.resume}, p, process.Exit{Code: tt.exit}, nil, nil)
			var agentErr *driver.AgentError
			switch {
			case tt.agentReported && errors.As(err, &agentErr):
				res = agentErr.Result
			case err != nil:
				t.Fatal(err)
			}
			if got := cost(res.CostUSD); got != tt.run {
				t.Errorf("CostUSD = %s, want %s", got, tt.run)
			}
			if got := cost(res.SessionCostUSD); got != tt.session {
				t.Errorf("SessionCostUSD = %s, want %s", got, tt.session)
			}
		})
	}
}
