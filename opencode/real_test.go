package opencode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
	"github.com/agentadaptor/agentadaptor/opencode"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealSkillLoaded runs the real OpenCode against the stand-in with one
// skill mounted: the model is sent its body by the skill tool, the driver
// reports a SkillEvent and builds the result (text, ses_ id, usage). With
// OPENCODE_RECORD=DIR set, the stream is written to DIR/skill.jsonl.
func TestRealSkillLoaded(t *testing.T) {
	t.Parallel()
	cli := modeltest.OpenCodeCLI(t)
	m := modeltest.NewChat(t, modeltest.ChatToolThenText(modeltest.ChatToolUse("skill", map[string]string{"name": "greet"}), "loaded it"))
	env, _ := m.OpenCodeEnv(t)
	root, ws := t.TempDir(), t.TempDir()
	var rec streamtest.Recorder
	d := opencode.Driver(opencode.Config{Command: cli, Env: env, CacheRoot: root})
	res, err := clitest.NewAgent(d, root, ws).Run(clitest.RunCtx(t), "load the greet skill",
		adaptor.WithSkills(skill.Inline("greet", "---\nname: greet\ndescription: Greets the user.\n---\nSay GREET-BODY-7.\n")), rec.Option())
	if err != nil {
		t.Fatalf("run = %v", err)
	}
	if res.Text != "loaded it" || !strings.HasPrefix(res.SessionID, "ses_") || res.Usage == nil || res.Usage.InputTokens == 0 {
		t.Errorf("result = %+v (usage %+v), want the text, a ses_ id and the usage", res, res.Usage)
	}
	if s := streamtest.Skills(rec.Events()); len(s) != 1 || s[0].Name != "greet" {
		t.Errorf("skill events = %+v, want greet loaded", s)
	}
	var shown bool
	for _, r := range m.Requests() {
		if tr, ok := r.ToolResult(); ok && strings.Contains(tr.Text, "GREET-BODY-7") {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the model was not sent the skill's body")
	}
	if dir := os.Getenv("OPENCODE_RECORD"); dir != "" {
		record(t, filepath.Join(dir, "skill.jsonl"), rec.Events())
	}
}

// record writes the lines the events came from.
func record(t *testing.T, path string, evs []driver.Event) {
	var b bytes.Buffer
	var last json.RawMessage
	for _, ev := range evs {
		raw := rawOf(ev)
		if raw == nil || bytes.Equal(raw, last) {
			continue
		}
		last = raw
		b.Write(raw)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rawOf returns the line an event came from, nil for the result the
// driver builds.
func rawOf(ev driver.Event) json.RawMessage {
	switch e := ev.(type) {
	case *driver.InitEvent:
		return e.Raw
	case *driver.TextEvent:
		return e.Raw
	case *driver.ThinkingEvent:
		return e.Raw
	case *driver.ToolCallEvent:
		return e.Raw
	case *driver.ErrorEvent:
		return e.Raw
	case *driver.RawEvent:
		return e.Raw
	}
	return nil
}
