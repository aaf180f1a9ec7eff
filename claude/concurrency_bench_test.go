package claude_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// BenchmarkConcurrentRuns measures Agent.Run to the start of the agent's
// program with 64 agents of 64 different skill sets of 50 skills
// (clitest.SkillSets says how they overlap), 1, 8 and 64 runs at once,
// warm and cold, beside the floor of starting the stand-in's program
// directly (clitest.BenchConcurrent). The agents share one skill cache,
// as the agents of one program do; each runs a stand-in for claude that
// reads the clock first thing and lists its set's skills.
func BenchmarkConcurrentRuns(b *testing.B) {
	const sets, size = 64, 50
	refs, names := clitest.SkillSets(sets, size)
	dir, home := b.TempDir(), b.TempDir()
	stubs := make([]string, sets)
	for i := range sets {
		stubs[i] = filepath.Join(dir, fmt.Sprintf("claude-%02d", i))
		script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
			`echo '{"type":"system","subtype":"init","session_id":"s","skills":["` + strings.Join(names[i], `","`) + `"]}'` + "\n" +
			`echo '{"type":"result","subtype":"success","session_id":"s","result":"'$t'"}'` + "\n"
		if err := os.WriteFile(stubs[i], []byte(script), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	clitest.BenchConcurrent(b, []int{1, 8, 64}, sets, func(b *testing.B, root string) []*adaptor.Agent {
		cache := skill.NewCache(skill.WithSkillCacheRoot(root))
		workspace := b.TempDir()
		agents := make([]*adaptor.Agent, sets)
		for i := range sets {
			d := claude.Driver(claude.Config{Command: stubs[i], CacheRoot: root, Env: []string{"HOME=" + home}})
			agents[i] = adaptor.New(d, adaptor.WithSkillMaterializer(cache), adaptor.WithWorkspace(workspace), adaptor.WithSkills(refs[i]...))
		}
		return agents
	})
}
