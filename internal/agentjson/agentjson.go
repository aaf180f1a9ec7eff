// Package agentjson reads the JSON lines agent CLIs print, for the
// drivers' parsers: one object a line, fields decoded one by one so that a
// field of an unexpected type does not hide the rest.
package agentjson

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Emit receives a parser's events; nil drops them (a parser that reads
// only for the result).
type Emit func(driver.Event)

// Send gives ev to e, unless e is nil.
func (e Emit) Send(ev driver.Event) {
	if e != nil {
		e(ev)
	}
}

// Line is a line of an agent's output, decoded as a JSON object.
type Line struct {
	// Fields are its fields, each still encoded.
	Fields map[string]json.RawMessage
	// Raw is a copy of the line, trimmed.
	Raw json.RawMessage
	// Type is its "type" field, which names the event in the stream of
	// every agent whose lines have one; "" when it is absent or not a
	// string.
	Type string
}

// Parse reads one line of an agent's output, b, for a driver's parser:
// it decodes it as a JSON object and gives it to event, which sends the
// events the line means and reports whether it knew the line. A line
// event did not know is sent as a driver.RawEvent of the line's Type, so
// that no line is lost. A blank line is skipped; one that is not a JSON
// object is sent as a driver.ErrorEvent and does not reach event. So a
// parser never fails on a line; one that reads the fields with [Text] and
// [Decode] leaves out a field of an unexpected type and uses the rest.
func Parse(b []byte, send Emit, event func(l Line) bool) {
	fields, raw, ok := object(b, send)
	if !ok {
		return
	}
	l := Line{Fields: fields, Raw: raw, Type: Text(fields["type"])}
	if !event(l) {
		send.Send(&driver.RawEvent{Type: l.Type, Raw: raw})
	}
}

// object decodes a line of an agent's output as a JSON object and returns
// its fields and a copy of the trimmed line. A blank line gives ok false;
// so does a line that is not a JSON object, after it is sent as a
// driver.ErrorEvent.
func object(b []byte, send Emit) (fields map[string]json.RawMessage, raw json.RawMessage, ok bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil, false
	}
	raw = json.RawMessage(bytes.Clone(b))
	if err := json.Unmarshal(b, &fields); err != nil {
		send.Send(&driver.ErrorEvent{Message: fmt.Sprintf("agent output line is not a JSON object (%v): %s", err, Excerpt(b)), Raw: raw})
		return nil, nil, false
	}
	return fields, raw, true
}

// Decode decodes the field raw into a new T. An absent field (raw empty)
// gives nil; so does one that does not decode, after a driver.ErrorEvent
// that names the field as what says ("the result's usage") is sent.
func Decode[T any](raw json.RawMessage, what string, send Emit) *T {
	if len(raw) == 0 {
		return nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		send.Send(&driver.ErrorEvent{Message: fmt.Sprintf("cannot decode %s (%v): %s", what, err, Excerpt(raw))})
		return nil
	}
	return v
}

// String decodes a JSON string.
func String(raw json.RawMessage) (string, bool) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// Text decodes a JSON string, or returns "" for anything else.
func Text(raw json.RawMessage) string {
	s, _ := String(raw)
	return s
}

// Excerpt shows the start of a line in an error message.
func Excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
