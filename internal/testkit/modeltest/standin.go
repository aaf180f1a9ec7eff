package modeltest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// This file holds what the stand-ins share: the recording HTTP server
// ([loopback], which all four run on) and, for the Anthropic and the
// OpenAI Responses stand-ins, the way a reply goes out (an API error, JSON, or
// server-sent events, with or without a stall), and the reply functions'
// combinators. Each API's own encoding stays in its file.

// api is what a [standIn] needs to know of the API it stands in for. Q is
// the API's request record.
type api[Q any] struct {
	// path is the endpoint whose POST requests get the test's replies.
	path string
	// requestID is the response header that carries a request id.
	requestID string
	// errorType is the type of an API error a reply leaves untyped, and
	// notFound that of the answer to a request to an unknown endpoint.
	errorType, notFound string
	// record makes the record of a request; parse fills in its parsed
	// fields, for requests to the endpoint only.
	record func(hr *http.Request, body []byte) Q
	parse  func(Q) error
	// reply answers a request to the endpoint.
	reply func(Q) wireReply
	// other answers a request to another endpoint, and reports whether it
	// knew the endpoint.
	other func(w http.ResponseWriter, hr *http.Request, body []byte) bool
	// errorBody is the body of an API error.
	errorBody func(typ, msg string) []byte
}

// wireReply is a reply ready to go out, whatever the API.
type wireReply struct {
	// status, when it is neither 0 nor 200, makes the reply an API error
	// of type errType (the api's errorType when empty) with the message
	// errMessage.
	status              int
	errType, errMessage string
	// stream reports whether the request asked for server-sent events.
	stream bool
	// body is the reply to a request that does not stream, and events the
	// events of a stream.
	body   any
	events []map[string]any
	// stall holds the response open until the client goes away or the
	// test ends: when the reply streams and has content (partial), after
	// the events but the last held ones, and before anything otherwise.
	stall, partial bool
	held           int
}

// standIn is a recording HTTP server on a loopback address that answers
// requests as an [api] says. It is safe for concurrent use.
type standIn[Q any] struct {
	loopback[recorded[Q]]
	api api[Q]
}

// loopback is a recording HTTP server on a loopback address, closed when
// the test ends: the server a stand-in runs on, and the requests it was
// sent. R is the stand-in's record of a request. It is safe for
// concurrent use.
type loopback[R any] struct {
	url  string
	done chan struct{} // closed when the test ends, to release stalls

	mu       sync.Mutex
	requests []R
}

// start serves serve at l.url until the test ends.
func (l *loopback[R]) start(t testing.TB, serve http.HandlerFunc) {
	t.Helper()
	l.done = make(chan struct{})
	hs := httptest.NewServer(serve)
	l.url = hs.URL
	t.Cleanup(func() {
		close(l.done) // Close waits for stalled handlers
		hs.Close()
	})
}

// record adds a request to the record.
func (l *loopback[R]) record(r R) {
	l.mu.Lock()
	l.requests = append(l.requests, r)
	l.mu.Unlock()
}

// recorded returns the requests received so far, in the order they
// arrived.
func (l *loopback[R]) recorded() []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]R(nil), l.requests...)
}

// stall holds the response to hr open until the client goes away or the
// test ends.
func (l *loopback[R]) stall(hr *http.Request) {
	select {
	case <-hr.Context().Done():
	case <-l.done:
	}
}

// recorded is one request a [standIn] was sent.
type recorded[Q any] struct {
	req      Q
	endpoint bool // a POST to the api's path
}

// startStandIn starts a [standIn] for a and closes it when the test ends.
func startStandIn[Q any](t testing.TB, a api[Q]) *standIn[Q] {
	t.Helper()
	s := &standIn[Q]{api: a}
	s.start(t, s.serve)
	return s
}

// all returns the requests received so far, in the order they arrived;
// with endpointOnly, only those to the api's endpoint.
func (s *standIn[Q]) all(endpointOnly bool) []Q {
	rs := s.recorded()
	out := make([]Q, 0, len(rs))
	for _, r := range rs {
		if r.endpoint || !endpointOnly {
			out = append(out, r.req)
		}
	}
	return out
}

func (s *standIn[Q]) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	endpoint := hr.Method == http.MethodPost && hr.URL.Path == s.api.path
	req := s.api.record(hr, body)
	if err == nil && endpoint {
		err = s.api.parse(req)
	}
	s.record(recorded[Q]{req, endpoint})
	switch {
	case err != nil:
		s.fail(w, http.StatusBadRequest, "invalid_request_error", err.Error())
	case endpoint:
		s.send(w, hr, s.api.reply(req))
	case !s.api.other(w, hr, body):
		s.fail(w, http.StatusNotFound, s.api.notFound, "modeltest: no endpoint "+hr.Method+" "+hr.URL.Path)
	}
}

func (s *standIn[Q]) send(w http.ResponseWriter, hr *http.Request, rep wireReply) {
	if rep.status != 0 && rep.status != http.StatusOK {
		typ := rep.errType
		if typ == "" {
			typ = s.api.errorType
		}
		s.fail(w, rep.status, typ, rep.errMessage)
		return
	}
	if rep.stall && (!rep.stream || !rep.partial) {
		s.stall(hr)
		return
	}
	w.Header().Set(s.api.requestID, "req_modeltest")
	if !rep.stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rep.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	evs := rep.events
	if rep.stall {
		evs = evs[:len(evs)-rep.held]
	}
	for _, ev := range evs {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], mustMarshal(ev))
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if rep.stall {
		s.stall(hr)
	}
}

// fail answers with an API error.
func (s *standIn[Q]) fail(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(s.api.requestID, "req_modeltest")
	w.WriteHeader(status)
	w.Write(s.api.errorBody(typ, msg))
}

// mustMarshal is [json.Marshal] of a value built from marshalable values.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// objectJSON returns v as JSON text, and panics with the message format
// (given v and the marshalling error) when that is not an object.
func objectJSON(v any, format string) []byte {
	raw, err := json.Marshal(v)
	if err != nil || len(raw) == 0 || raw[0] != '{' {
		panic(fmt.Sprintf("modeltest: "+format, v, err))
	}
	return raw
}

func hash(parts ...string) uint32 {
	h := fnv.New32a()
	for _, p := range parts {
		io.WriteString(h, p)
		h.Write([]byte{0})
	}
	return h.Sum32()
}

// always answers every request with r.
func always[Q, R any](r R) func(Q) R {
	return func(Q) R { return r }
}

// thenAfterTool answers a request that reports a tool's outcome (toolDone)
// with done, and any other with call.
func thenAfterTool[Q, R any](toolDone func(Q) bool, call, done R) func(Q) R {
	return func(q Q) R {
		if toolDone(q) {
			return done
		}
		return call
	}
}

// ifPrompt asks then when the request's prompt contains marker, and asks
// otherwise when it does not.
func ifPrompt[Q interface{ Prompt() string }, R any](marker string, then, otherwise func(Q) R) func(Q) R {
	return func(q Q) R {
		if strings.Contains(q.Prompt(), marker) {
			return then(q)
		}
		return otherwise(q)
	}
}
