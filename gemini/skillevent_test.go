package gemini

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// TestSkillEvents checks when an activate_skill call is a skill event:
// once its result succeeded; the recorded stream (TestRealSkillStream
// -record) is one.
func TestSkillEvents(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join("testdata", "skill-call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const id = "activate_skill__activate_skill_1796149899349_0"
	call := `{"type":"tool_use","tool_name":"activate_skill","tool_id":"a1","parameters":{"name":"review"}}`
	ok := "{\"type\":\"tool_result\",\"tool_id\":\"a1\",\"status\":\"success\",\"output\":\"Skill **review** activated. Resources loaded from `/h/review`:\\n\"}"
	failed := `{"type":"tool_result","tool_id":"a1","status":"error","output":"","error":{"type":"x","message":"Tool \"activate_skill\" not found"}}`
	other := `{"type":"tool_use","tool_name":"read_file","tool_id":"a1","parameters":{"name":"review"}}`
	tests := []struct {
		name  string
		lines []string
		want  []driver.SkillEvent
	}{
		{"recorded", strings.Split(string(recorded), "\n"), []driver.SkillEvent{{Name: "review", ToolCallID: id, Path: "$HOME/.gemini/skills/review"}}},
		{"loaded", []string{call, ok}, []driver.SkillEvent{{Name: "review", ToolCallID: "a1", Path: "/h/review"}}},
		{"not found", []string{call, failed}, nil},
		{"another tool", []string{other, ok}, nil},
		{"result without a call", []string{ok}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec streamtest.Recorder
			p := &parser{emit: rec.Emit}
			for _, l := range tt.lines {
				p.parse([]byte(l))
			}
			if got := streamtest.Skills(rec.Events()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("skill events of %s = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
}
