package gemini

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

var record = flag.Bool("record", false, "write the real Gemini CLI's skill stream to testdata/skill-call.jsonl")

// TestRealSkillStream runs the real Gemini CLI with a skill that the
// model activates, with the driver's policy, and checks that the parser
// makes a skill event of the activate_skill call; with -record it writes
// the stream to testdata/skill-call.jsonl, paths made placeholders.
func TestRealSkillStream(t *testing.T) {
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, modeltest.GeminiToolThenText(modeltest.GeminiSkillCall("review"), "reviewed"))
	env, home := s.GeminiEnv(t)
	dir := filepath.Join(home, ".gemini", "skills", "review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Reviews changes.\n---\nCheck every line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	policyPath := filepath.Join(t.TempDir(), policyFile)
	if err := os.WriteFile(policyPath, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	cmd := exec.CommandContext(clitest.RunCtx(t), cli, "--policy", policyPath, "--output-format", "stream-json", "--skip-trust")
	cmd.Env, cmd.Dir, cmd.Stdin = env, cwd, strings.NewReader("review please")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gemini: %v; stdout:\n%s", err, out)
	}
	var rec streamtest.Recorder
	p := &parser{emit: rec.Emit}
	var callID string
	for _, l := range strings.Split(string(out), "\n") {
		p.parse([]byte(l))
	}
	for _, ev := range rec.Events() {
		if c, ok := ev.(*driver.ToolCallEvent); ok && c.Name == "activate_skill" {
			callID = c.ID
		}
	}
	want := []driver.SkillEvent{{Name: "review", ToolCallID: callID, Path: dir}}
	if got := streamtest.Skills(rec.Events()); callID == "" || !reflect.DeepEqual(got, want) {
		t.Errorf("skill events = %+v, want %+v; events %q", got, want, streamtest.Kinds(rec.Events()))
	}
	if *record {
		text := strings.NewReplacer(home, "$HOME", cwd, "$CWD", filepath.Dir(policyPath), "$POLICY", s.URL, "$URL").Replace(string(out))
		if err := os.WriteFile(filepath.Join("testdata", "skill-call.jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
