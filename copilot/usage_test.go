package copilot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/driver"
)

func usageLine(in, out int) string {
	return fmt.Sprintf(`{"type":"session.usage_record","data":{"usage":{"inputTokens":%d,"outputTokens":%d,"cacheReadTokens":1}}}`, in, out)
}

// writeEvents writes a session's events.jsonl under home's .copilot.
func writeEvents(t *testing.T, home, id string, lines ...string) string {
	t.Helper()
	dir := filepath.Join(home, ".copilot", "session-state", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSessionUsage checks that a run's usage is the usage records since
// the session last started or resumed, and that a line too long to be a
// record is skipped.
func TestSessionUsage(t *testing.T) {
	long := `{"type":"system.message","data":{"content":"` + strings.Repeat("x", maxEventLine) + `"}}`
	tests := []struct {
		name  string
		lines []string
		want  *driver.Usage
	}{
		{"one run", []string{`{"type":"session.start"}`, usageLine(3, 2), usageLine(4, 1)}, &driver.Usage{InputTokens: 7, OutputTokens: 3, CacheReadInputTokens: 2}},
		{"resumed", []string{`{"type":"session.start"}`, usageLine(3, 2), `{"type":"session.resume"}`, usageLine(5, 5)}, &driver.Usage{InputTokens: 5, OutputTokens: 5, CacheReadInputTokens: 1}},
		{"long line skipped", []string{long, usageLine(1, 1), "not json"}, &driver.Usage{InputTokens: 1, OutputTokens: 1, CacheReadInputTokens: 1}},
		{"none", []string{`{"type":"session.start"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sessionUsage(writeEvents(t, t.TempDir(), "s", tt.lines...))
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Errorf("sessionUsage = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
