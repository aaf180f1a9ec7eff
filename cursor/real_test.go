package cursor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/cursor"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cursortest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealCursor runs the real Cursor CLI, which talks to Cursor's
// service: it runs only with AGENTADAPTOR_CURSOR=1 and CURSOR_API_KEY set
// (and skips saying so otherwise). It checks what the stand-in takes from
// the documentation: a skill mounted in the overlay home is found and its
// body read, the session id is a UUID, the chat resumes, and the user's
// home and the workspace do not change.
//
//	AGENTADAPTOR_CURSOR=1 CURSOR_API_KEY=... go test -run TestRealCursor -v ./cursor
func TestRealCursor(t *testing.T) {
	cli := cursortest.RealCLI(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	workspace, cache := t.TempDir(), cachetest.Root(t)
	userSkills := filepath.Join(home, ".cursor", "skills")
	before := cachetest.Listing(t, workspace) + cachetest.Listing(t, userSkills)
	var rec streamtest.Recorder
	d := cursor.Driver(cursor.Config{Command: cli, CacheRoot: cache})
	agent := clitest.NewAgent(d, cache, workspace, rec.Option(),
		adaptor.WithSkills(skill.Inline("adaptor-probe", cachetest.SkillMD("adaptor-probe", "Gives the code word for agentadaptor's probe.", "The code word is PERIWINKLE-4471."))))
	res, err := agent.Run(clitest.RunCtx(t), "Use the adaptor-probe skill: read its SKILL.md and reply with the code word only.")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "PERIWINKLE-4471") || !launch.IsUUID(res.SessionID) {
		t.Errorf("result = %+v; want the code word and a UUID session", res)
	}
	if skills := streamtest.Skills(rec.Events()); len(skills) == 0 || skills[0].Name != "adaptor-probe" {
		t.Errorf("skill events = %+v, want adaptor-probe read", skills)
	}
	again, err := agent.Run(clitest.RunCtx(t), "What was the code word? Reply with it only.", adaptor.WithResume(res.SessionID))
	if err != nil || !strings.Contains(again.Text, "PERIWINKLE-4471") || again.SessionID != res.SessionID {
		t.Errorf("resumed run = %+v, %v; want the code word in session %s", again, err, res.SessionID)
	}
	if after := cachetest.Listing(t, workspace) + cachetest.Listing(t, userSkills); after != before {
		t.Errorf("the workspace or ~/.cursor/skills changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
