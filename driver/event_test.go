package driver

import (
	"encoding/json"
	"testing"
)

// otherEvent is an event of another package's, with a field named like
// none of the driver's.
type otherEvent struct {
	Restarts int `json:"restarts"`
}

func (*otherEvent) Kind() string { return "restart" }

// emptyEvent has no fields.
type emptyEvent struct{}

func (emptyEvent) Kind() string { return "empty" }

func TestMarshalEvent(t *testing.T) {
	usage := &Usage{InputTokens: 3, OutputTokens: 4}
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"text", &TextEvent{Text: "hi \"there\"", Raw: json.RawMessage(`{"x":1}`)}, `{"type":"text","text":"hi \"there\""}`},
		{"skill", &SkillEvent{Name: "pdf", ToolCallID: "t1"}, `{"type":"skill","name":"pdf","tool_call_id":"t1"}`},
		{"result", &ResultEvent{Text: "done", Usage: usage}, `{"type":"result","text":"done","usage":{"input_tokens":3,"output_tokens":4}}`},
		{"raw keeps agent_type apart", &RawEvent{Type: "type", Raw: json.RawMessage(`{"a":1}`)}, `{"type":"raw","agent_type":"type","raw":{"a":1}}`},
		{"another package's", &otherEvent{Restarts: 2}, `{"type":"restart","restarts":2}`},
		{"no fields", emptyEvent{}, `{"type":"empty"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MarshalEvent(tt.ev)
			if err != nil || string(got) != tt.want {
				t.Fatalf("MarshalEvent(%#v) = %s, %v, want %s", tt.ev, got, err, tt.want)
			}
			var m map[string]any
			if err := json.Unmarshal(got, &m); err != nil || m["type"] != tt.ev.Kind() {
				t.Errorf("MarshalEvent(%#v) = %s: not an object of its kind: %v", tt.ev, got, err)
			}
		})
	}
	for _, ev := range []Event{nil, (*TextEvent)(nil)} {
		if got, err := MarshalEvent(ev); err == nil {
			t.Errorf("MarshalEvent(%#v) = %s, want an error", ev, got)
		}
	}
}
