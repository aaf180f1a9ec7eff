package qwen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// TestRecordedSkillEvents checks that loading a skill with the skill tool
// is a skill event after the tool's result, in the streams recorded from
// the real CLI.
func TestRecordedSkillEvents(t *testing.T) {
	tests := []struct {
		file string
		want []driver.SkillEvent
	}{
		{"skill-call.jsonl", []driver.SkillEvent{{Name: "greet", ToolCallID: "call_d36224fa"}}},
		{"plain.jsonl", nil},
		{"api-error.jsonl", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var rec streamtest.Recorder
			p := newParser(rec.Emit)
			for _, l := range strings.Split(string(data), "\n") {
				p.Parse([]byte(l))
			}
			if got := streamtest.Skills(rec.Events()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("skill events = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSkillEventRules checks when a skill call is a skill event: once its
// result succeeded.
func TestSkillEventRules(t *testing.T) {
	call := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c1","name":"skill","input":{"skill":"greet"}}]}}`
	ok := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"Greets."}]}}`
	failed := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","is_error":true,"content":"declined"}]}}`
	tests := []struct {
		name  string
		lines []string
		want  []driver.SkillEvent
	}{
		{"loaded", []string{call, ok}, []driver.SkillEvent{{Name: "greet", ToolCallID: "c1"}}},
		{"declined", []string{call, failed}, nil},
		{"result without a call", []string{ok}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec streamtest.Recorder
			p := newParser(rec.Emit)
			for _, l := range tt.lines {
				p.Parse([]byte(l))
			}
			if got := streamtest.Skills(rec.Events()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("skill events of %q = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
}
