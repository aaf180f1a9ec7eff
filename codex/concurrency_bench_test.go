package codex_test

import (
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// BenchmarkConcurrentRuns measures Agent.Run to the start of the agent's
// program with 64 agents of 64 different skill sets of 50 skills, 1, 8
// and 64 runs at once, warm and cold, as the Claude Code driver's
// benchmark does (clitest.BenchConcurrent). The stand-in for codex reads
// the clock first thing, then marks the managed home as Codex does once
// it has installed its built-in skills, so that later runs in the home
// do not take turns (rule 5 of the managed home).
func BenchmarkConcurrentRuns(b *testing.B) {
	const sets, size = 64, 50
	refs, _ := clitest.SkillSets(sets, size)
	stub := filepath.Join(b.TempDir(), "codex")
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`mkdir -p "$CODEX_HOME/skills/.system" && touch "$CODEX_HOME/skills/.system/.codex-system-skills.marker"` + "\n" +
		`echo '{"type":"thread.started","thread_id":"th"}'` + "\n" +
		`echo '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"'$t'"}}'` + "\n" +
		`echo '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	userHome, home := b.TempDir(), b.TempDir()
	os.WriteFile(filepath.Join(userHome, "config.toml"), []byte("model = \"m\"\n"), 0o600)
	clitest.BenchConcurrent(b, []int{1, 8, 64}, sets, func(b *testing.B, root string) []*adaptor.Agent {
		cache := skill.NewCache(skill.WithSkillCacheRoot(root))
		workspace := b.TempDir()
		agents := make([]*adaptor.Agent, sets)
		for i := range sets {
			d := codex.Driver(codex.Config{Command: stub, CacheRoot: root, Home: userHome, Env: []string{"HOME=" + home}})
			agents[i] = adaptor.New(d, adaptor.WithSkillMaterializer(cache), adaptor.WithWorkspace(workspace), adaptor.WithSkills(refs[i]...))
		}
		return agents
	})
}
