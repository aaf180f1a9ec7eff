package codex

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

var record = flag.Bool("record", false, "write the real Codex CLI's skill stream to testdata/skill-call.jsonl")

// TestRealSkillStream runs the real Codex CLI with a skill in its home
// that the model loads by reading the SKILL.md its listing gives, and
// checks that the parser makes a skill event of the command; with -record
// it writes the stream to testdata/skill-call.jsonl, paths made
// placeholders as in testdata/README.md.
func TestRealSkillStream(t *testing.T) {
	t.Parallel()
	cli := modeltest.CodexCLI(t)
	var mu sync.Mutex
	var listed string // the SKILL.md the listing gives
	s := modeltest.NewResponses(t, func(r *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		if _, ok := r.ToolOutput(); ok {
			return modeltest.ResponsesText("Reviewed.")
		}
		skills, _ := r.Skills()
		for _, sk := range skills {
			if sk.Name == "review" {
				mu.Lock()
				listed = sk.Path
				mu.Unlock()
				return modeltest.ExecCommand("cat '" + sk.Path + "'")
			}
		}
		return modeltest.ResponsesText("no such skill")
	})
	env, _, codexHome := s.CodexEnv(t)
	dir := filepath.Join(codexHome, "skills", "review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Reviews changes.\n---\nCheck every line.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	cmd := exec.CommandContext(clitest.RunCtx(t), cli, "exec", "--json", "--skip-git-repo-check", "-")
	cmd.Env, cmd.Dir, cmd.Stdin = env, cwd, strings.NewReader("review please")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex: %v; stdout:\n%s", err, out)
	}
	var rec streamtest.Recorder
	p := &parser{emit: rec.Emit}
	var callID string
	for _, l := range strings.Split(string(out), "\n") {
		p.parse([]byte(l))
	}
	for _, ev := range rec.Events() {
		if c, ok := ev.(*driver.ToolCallEvent); ok && strings.Contains(string(c.Input), "SKILL.md") {
			callID = c.ID
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []driver.SkillEvent{{Name: "review", ToolCallID: callID, Path: listed}}
	if got := streamtest.Skills(rec.Events()); callID == "" || listed == "" || !reflect.DeepEqual(got, want) {
		t.Errorf("skill events = %+v, want %+v; events %q", got, want, streamtest.Kinds(rec.Events()))
	}
	if *record {
		var home, tmp string
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "HOME="); ok {
				home = v
			}
			if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
				tmp = v
			}
		}
		text := strings.NewReplacer(codexHome, "/home/user/.codex", cwd, "/work/project", home, "/home/user", tmp, "/tmp", s.URL, "http://127.0.0.1:PORT").Replace(string(out))
		if err := os.WriteFile(filepath.Join("testdata", "skill-call.jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
