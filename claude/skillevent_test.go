package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// TestRecordedSkillEvents checks that loading a skill with the Skill tool
// is a skill event, made of the body message that follows the tool's
// result, in the streams recorded from the real CLI.
func TestRecordedSkillEvents(t *testing.T) {
	review := driver.SkillEvent{Name: "review", ToolCallID: "toolu_modeltest_0d8cf045", Path: "/work/skills/.claude/skills/review"}
	tests := []struct {
		file string
		want []driver.SkillEvent
	}{
		{"skill-call.jsonl", []driver.SkillEvent{review}},
		{"partial.jsonl", nil}, // filled below: its ids are its own
		{"max-turns.jsonl", nil},
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
			for _, l := range bytes.Split(data, []byte("\n")) {
				p.Parse(l)
			}
			evs := rec.Events()
			got := streamtest.Skills(evs)
			want := tt.want
			if tt.file == "partial.jsonl" || tt.file == "max-turns.jsonl" {
				// One load of review, by the stream's only Skill call.
				if len(got) != 1 || got[0].Name != "review" || got[0].ToolCallID == "" || got[0].Path != review.Path {
					t.Fatalf("skill events = %+v, want one of review with its call and folder", got)
				}
				want = got
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("skill events = %+v, want %+v", got, want)
			}
			// The body message is the skill event, not a raw event.
			for _, ev := range evs {
				if r, ok := ev.(*driver.RawEvent); ok && bytes.Contains(r.Raw, []byte("Base directory for this skill")) {
					t.Errorf("the skill's body is a raw event: %s", r.Raw)
				}
			}
		})
	}
}

// TestSkillEventRules checks when a Skill call is a skill event: only
// once its result succeeded and its body followed.
func TestSkillEventRules(t *testing.T) {
	call := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"review"}}]}}`
	ok := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Launching skill: review"}]}}`
	failed := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Unknown skill: review"}]}}`
	body := `{"type":"user","message":{"content":[{"type":"text","text":"Base directory for this skill: /s/review\n\nBody."}]},"isSynthetic":true}`
	other := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"skill":"review"}}]}}`
	tests := []struct {
		name  string
		lines []string
		want  []driver.SkillEvent
	}{
		{"loaded", []string{call, ok, body}, []driver.SkillEvent{{Name: "review", ToolCallID: "t1", Path: "/s/review"}}},
		{"no body yet", []string{call, ok}, nil},
		{"failed call", []string{call, failed, body}, nil},
		{"body without a call", []string{body}, nil},
		{"another tool", []string{other, ok, body}, nil},
		{"twice", []string{call, ok, body, body}, []driver.SkillEvent{{Name: "review", ToolCallID: "t1", Path: "/s/review"}}},
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
