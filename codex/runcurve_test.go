package codex_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
)

// BenchmarkRunToStartCurve measures a warm Agent.Run up to the moment the
// agent's program starts (as BenchmarkRunToStart200's warm mode, with the
// same stand-in) at 20, 200 and 2,000 skills, inline and as folders used
// in place (skill.Dir), for the curve of run overhead against the number
// of skills.
func BenchmarkRunToStartCurve(b *testing.B) {
	stub := filepath.Join(b.TempDir(), "codex")
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`echo '{"type":"thread.started","thread_id":"th"}'` + "\n" +
		`echo '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"'$t'"}}'` + "\n" +
		`echo '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	userHome := b.TempDir()
	os.WriteFile(filepath.Join(userHome, "config.toml"), []byte("model = \"m\"\n"), 0o600)
	for _, kind := range []string{"inline", "folder"} {
		for _, n := range []int{20, 200, 2000} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				refs, _ := clitest.NumberedSkills(n)
				if kind == "folder" {
					refs, _ = clitest.FolderSkills(b, n)
				}
				clitest.BenchWarmRunToStart(b, func(b *testing.B, root string) *adaptor.Agent {
					d := codex.Driver(codex.Config{Command: stub, CacheRoot: root, Home: userHome, Env: []string{"HOME=" + b.TempDir()}})
					return clitest.NewAgent(d, root, b.TempDir(), adaptor.WithSkills(refs...))
				})
			})
		}
	}
}
