package gemini_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealResumeBothWays checks rule 3 of "The overlay home": sessions
// stay the user's, so a session started through the driver resumes in a
// plain run of Gemini CLI, and one started in a plain run resumes through
// the driver; the model is shown the first turn again each time.
func TestRealResumeBothWays(t *testing.T) {
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, modeltest.GeminiAlways(modeltest.GeminiText("noted")))
	env, home := s.GeminiEnv(t)
	env, _ = clitest.TaggedEnv(env, cli)
	if err := os.MkdirAll(filepath.Join(home, ".gemini", "tmp"), 0o755); err != nil {
		t.Fatal(err) // a user who has run Gemini CLI has it
	}
	root, ws := cachetest.Root(t), t.TempDir()
	agent := clitest.NewAgent(gemini.Driver(gemini.Config{Env: env, CacheRoot: root}), root, ws,
		adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	plain := func(prompt string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(clitest.RunCtx(t), cli, append([]string{"-o", "stream-json", "--skip-trust"}, args...)...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, ws, strings.NewReader(prompt)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("plain gemini %v: %v", args, err)
		}
		_, rest, _ := strings.Cut(string(out), `"session_id":"`)
		id, _, _ := strings.Cut(rest, `"`)
		return id
	}
	shownLast := func(mark string) {
		t.Helper()
		turns := s.TurnRequests()
		if got := fmt.Sprint(turns[len(turns)-1].Contents); !strings.Contains(got, mark) {
			t.Errorf("the resumed turn does not replay %q: %s", mark, got)
		}
	}

	res, err := agent.Run(clitest.RunCtx(t), "DRIVER-FIRST-MARK")
	if err != nil {
		t.Fatal(err)
	}
	if id := plain("again", "--resume="+res.SessionID); id != res.SessionID {
		t.Errorf("plain resume of the driver's session %s reports session %q", res.SessionID, id)
	}
	shownLast("DRIVER-FIRST-MARK")

	id := plain("PLAIN-FIRST-MARK")
	res, err = agent.Run(clitest.RunCtx(t), "again", adaptor.WithResume(id))
	if err != nil || res.SessionID != id {
		t.Fatalf("driver resume of the plain session %s = %+v, %v", id, res, err)
	}
	shownLast("PLAIN-FIRST-MARK")
}
