package gemini_test

import (
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
)

// BenchmarkRunToStart200 measures Agent.Run with 200 skills up to the
// moment the agent's program starts, as the Claude Code driver's
// benchmark does: a stand-in for gemini reads the clock first thing
// ($EPOCHREALTIME) and answers with it. Modes:
//
//	warm       skills cached, the overlay home ready: every later run
//	cold-home  skills cached, the overlay home made anew
//	cold       empty cache: 200 skills materialized, the home made
func BenchmarkRunToStart200(b *testing.B) {
	stub := filepath.Join(b.TempDir(), "gemini")
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`echo '{"type":"init","session_id":"5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1","model":"m"}'` + "\n" +
		`echo '{"type":"message","role":"assistant","content":"'$t'","delta":true}'` + "\n" +
		`echo '{"type":"result","status":"success","stats":{"input_tokens":1,"output_tokens":1}}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	refs, _ := clitest.NumberedSkills(200)
	userHome := b.TempDir()
	os.MkdirAll(filepath.Join(userHome, ".gemini", "tmp"), 0o755)
	os.WriteFile(filepath.Join(userHome, ".gemini", "settings.json"), []byte("{}"), 0o600)
	clitest.BenchRunToStart(b, "cold-home", "homes", func(b *testing.B, root string) *adaptor.Agent {
		d := gemini.Driver(gemini.Config{Command: stub, CacheRoot: root, Home: userHome})
		return clitest.NewAgent(d, root, b.TempDir(), adaptor.WithSkills(refs...))
	})
}
