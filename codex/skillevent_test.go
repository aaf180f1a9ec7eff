package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// TestSkillEvents checks when a command is a skill event: it names a
// SKILL.md and succeeded; the recorded stream (TestRealSkillStream
// -record) is one, and other commands are none.
func TestSkillEvents(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join("testdata", "skill-call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	command := func(cmd string, exit int) string {
		b, _ := json.Marshal(map[string]any{"type": "item.completed", "item": map[string]any{
			"id": "item_0", "type": "command_execution", "command": cmd, "exit_code": exit, "status": "completed"}})
		return string(b)
	}
	tests := []struct {
		name  string
		lines []string
		want  []driver.SkillEvent
	}{
		{"recorded", strings.Split(string(recorded), "\n"),
			[]driver.SkillEvent{{Name: "review", ToolCallID: "item_0", Path: "/home/user/.codex/skills/review/SKILL.md"}}},
		{"sed", []string{command(`/bin/bash -lc "sed -n '1,200p' skills/lint/SKILL.md"`, 0)},
			[]driver.SkillEvent{{Name: "lint", ToolCallID: "item_0", Path: "skills/lint/SKILL.md"}}},
		{"windows", []string{command(`powershell.exe -Command "Get-Content C:\s\lint\SKILL.md"`, 0)},
			[]driver.SkillEvent{{Name: "lint", ToolCallID: "item_0", Path: `C:\s\lint\SKILL.md`}}},
		{"failed", []string{command(`/bin/bash -lc "cat skills/lint/SKILL.md"`, 1)}, nil},
		{"another file", []string{command(`/bin/bash -lc "cat notes/NOT-SKILL.md"`, 0)}, nil},
		{"started only", []string{strings.Replace(command(`cat a/SKILL.md`, 0), "item.completed", "item.started", 1)}, nil},
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
