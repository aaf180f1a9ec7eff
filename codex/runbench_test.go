package codex_test

import (
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
)

// BenchmarkRunToStart200 measures Agent.Run with 200 skills up to the
// moment the agent's program starts, as the Claude Code driver's
// benchmark does: a stand-in for codex reads the clock first thing
// ($EPOCHREALTIME) and answers with it. Modes:
//
//	warm       skills cached, the managed home ready: every later run
//	cold-home  skills cached, the managed home made anew
//	cold       empty cache: 200 skills materialized, the home made
func BenchmarkRunToStart200(b *testing.B) {
	stub := filepath.Join(b.TempDir(), "codex")
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`echo '{"type":"thread.started","thread_id":"th"}'` + "\n" +
		`echo '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"'$t'"}}'` + "\n" +
		`echo '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	refs, _ := clitest.NumberedSkills(200)
	userHome := b.TempDir()
	os.WriteFile(filepath.Join(userHome, "config.toml"), []byte("model = \"m\"\n"), 0o600)
	clitest.BenchRunToStart(b, "cold-home", "homes", func(b *testing.B, root string) *adaptor.Agent {
		d := codex.Driver(codex.Config{Command: stub, CacheRoot: root, Home: userHome, Env: []string{"HOME=" + b.TempDir()}})
		return clitest.NewAgent(d, root, b.TempDir(), adaptor.WithSkills(refs...))
	})
}
