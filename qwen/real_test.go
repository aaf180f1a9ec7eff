package qwen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// TestRealApprovalDefault checks "Approvals" against the real Qwen Code:
// in the driver's default approval mode ("default") its
// --allowed-tools=skill lets the skill tool run, with no classifier call,
// and the model is shown the skill's body.
func TestRealApprovalDefault(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatToolThenText(modeltest.ChatSkillCall("greet"), "Greeted."))
	env, _ := s.QwenEnv(t)
	env = append(env, "PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"))

	dir := filepath.Join(t.TempDir(), "greet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: greet\ndescription: Greets.\n---\nGREET-BODY-MARK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := qwen.Driver(qwen.Config{Env: env, CacheRoot: t.TempDir()})
	res, err := d.Run(t.Context(), &driver.Request{
		Prompt: "greet me", Workspace: t.TempDir(),
		Skills: driver.ResolvedSkills{Fingerprint: "f", Entries: []driver.ResolvedSkill{{Key: "greet", RuntimeName: "greet", Path: dir}}},
	})
	if err != nil || res.Text != "Greeted." {
		t.Fatalf("Run = %+v, %v; want Greeted.", res, err)
	}
	main := s.MainRequests()
	if tr, ok := main[len(main)-1].ToolResult(); !ok || !strings.Contains(tr.Text, "GREET-BODY-MARK") {
		t.Errorf("the last request's tool result = %q (%v), want the skill's body", tr.Text, ok)
	}
	for _, r := range s.Requests() {
		if r.Kind() == modeltest.ChatClassifier {
			t.Errorf("a classifier call in approval mode default")
		}
	}
}
