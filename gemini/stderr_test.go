package gemini

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRetryEventRecorded reads the standard error the real Gemini CLI
// wrote against a model API that always failed (testdata/stderr-*.txt,
// general.maxAttempts 3): each retry line is a RetryEvent; the last
// attempt's line, the error report and the stack traces are not; a 401 is
// not retried.
func TestRetryEventRecorded(t *testing.T) {
	tests := []struct {
		file string
		want []driver.RetryEvent
	}{
		{"stderr-429.txt", []driver.RetryEvent{
			{Attempt: 1, Status: 429, Message: "stand-in failure"},
			{Attempt: 2, Status: 429, Message: "stand-in failure"},
		}},
		{"stderr-500.txt", []driver.RetryEvent{
			{Attempt: 1, Status: 500, Message: "stand-in failure"},
			{Attempt: 2, Status: 500, Message: "stand-in failure"},
		}},
		{"stderr-401.txt", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got []driver.RetryEvent
			p := stderrParser{emit: func(ev driver.Event) { got = append(got, *ev.(*driver.RetryEvent)) }}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				p.line(sc.Text())
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(driver.RetryEvent{}, "Raw")); diff != "" {
				t.Errorf("retry events of %s (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

// TestRetryEvent checks each form of Gemini CLI 0.61.0's retry line, as
// its source writes them, and lines that are not one.
func TestRetryEvent(t *testing.T) {
	tests := []struct {
		line string
		want *driver.RetryEvent
	}{
		{`Attempt 1 failed with status 429. Retrying with backoff... _ApiError: {"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}`,
			&driver.RetryEvent{Attempt: 1, Status: 429, Message: "Resource exhausted"}},
		{`Attempt 3 failed with status 503. Retrying with backoff...`, &driver.RetryEvent{Attempt: 3, Status: 503}},
		{`Attempt 2 failed with 429 error (no Retry-After header). Retrying with backoff... Error: got 429`,
			&driver.RetryEvent{Attempt: 2, Status: 429, Message: "got 429"}},
		{`Attempt 2 failed with 5xx error. Retrying with backoff... Error: upstream 502`,
			&driver.RetryEvent{Attempt: 2, Message: "upstream 502"}},
		{`Attempt 4 failed. Retrying with backoff... TypeError: fetch failed`,
			&driver.RetryEvent{Attempt: 4, Message: "fetch failed"}},
		{`Attempt 1 failed: Quota exceeded for metric. Retrying after 12345ms...`,
			&driver.RetryEvent{Attempt: 1, DelayMS: 12345, Message: "Quota exceeded for metric"}},
		{`Attempt 3 failed: stand-in failure. Max attempts reached`, nil},
		{`Error when talking to Gemini API Full report available at: /tmp/x.json _ApiError: {"error":{"code":401}}`, nil},
		{`    at async retryWithBackoff (file:///x/bundle/chunk.js:308039:23)`, nil},
		{`Attempt x failed with status 429. Retrying with backoff...`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		got := retryEvent(tt.line)
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(driver.RetryEvent{}, "Raw")); diff != "" {
			t.Errorf("retryEvent(%q) (-want +got):\n%s", tt.line, diff)
		}
		if got != nil && string(got.Raw) != quote(tt.line) {
			t.Errorf("retryEvent(%q).Raw = %s, want the line as a JSON string", tt.line, got.Raw)
		}
	}
}
