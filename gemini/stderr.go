package gemini

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// Gemini CLI 0.61.0 reports a retry of a failed model API call on its
// standard error only, one line a retry (a stack trace follows on lines
// of its own), in one of these forms:
//
//	Attempt N failed with status S. Retrying with backoff... ERR
//	Attempt N failed with 429 error (no Retry-After header). Retrying with backoff... ERR
//	Attempt N failed with 5xx error. Retrying with backoff... ERR
//	Attempt N failed. Retrying with backoff... ERR
//	Attempt N failed: MESSAGE. Retrying after Dms...
//
// where ERR is "_ApiError: " and the API's error body, or another error.
// The backoff's delay (5 s, doubling to 30 s, with jitter) is printed only
// in the last form. See testdata/stderr-*.txt.
var (
	backoffLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Attempt (\d+) failed(?: with status (\d{3})| with (429) error \(no Retry-After header\)| with 5xx error)?\. Retrying with backoff\.\.\.(?: (.*))?$`)
	})
	afterLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Attempt (\d+) failed: (.*)\. Retrying after (\d+)ms\.\.\.$`)
	})
)

// retryEvent reads a line of Gemini CLI's standard error: a retry line
// becomes a driver.RetryEvent; any other line gives nil.
func retryEvent(line string) *driver.RetryEvent {
	if m := backoffLine().FindStringSubmatch(line); m != nil {
		ev := &driver.RetryEvent{Attempt: atoi(m[1]), Message: errorText(m[4]), Raw: json.RawMessage(quote(line))}
		switch {
		case m[2] != "":
			ev.Status = atoi(m[2])
		case m[3] != "":
			ev.Status = atoi(m[3])
		}
		return ev
	}
	if m := afterLine().FindStringSubmatch(line); m != nil {
		delay, _ := strconv.ParseInt(m[3], 10, 64)
		return &driver.RetryEvent{Attempt: atoi(m[1]), DelayMS: delay, Message: errorText(m[2]), Raw: json.RawMessage(quote(line))}
	}
	return nil
}

// errorText is the message of an error as Gemini CLI prints it: the
// message of an API error body ("_ApiError: {"error":{"message":...}}"),
// else the text after the error's name, else s.
func errorText(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	body := s
	if name, rest, ok := strings.Cut(s, ": "); ok && !strings.ContainsAny(name, " {") {
		body = rest
	}
	var api struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &api) == nil && api.Error.Message != "" {
		return api.Error.Message
	}
	return body
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// stderrParser turns the lines of Gemini CLI's standard error into
// events: retry lines become driver.RetryEvents, other lines are ignored.
type stderrParser struct {
	emit agentjson.Emit
}

// line reads one line of standard error.
func (p stderrParser) line(s string) {
	if ev := retryEvent(s); ev != nil {
		p.emit.Send(ev)
	}
}

// serial returns an Emit that calls emit one event at a time, for the
// two goroutines that read the program's standard output and error; nil
// for nil.
func serial(emit agentjson.Emit) agentjson.Emit {
	if emit == nil {
		return nil
	}
	var mu sync.Mutex
	return func(ev driver.Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(ev)
	}
}
