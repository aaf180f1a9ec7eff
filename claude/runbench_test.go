package claude_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
)

// BenchmarkRunToStart200 measures Agent.Run with 200 skills up to the
// moment the agent's program starts. A stand-in for claude reads the clock
// first thing ($EPOCHREALTIME, a bash builtin) and answers with it; the
// metric ms-to-start is that time less the time Run was called, so the
// stand-in's own exit is not counted (bash's start is). Modes:
//
//	warm        skills cached and the mount built: the cost of every later run
//	cold-mount  skills cached, the mount built anew
//	cold        empty cache: 200 skills materialized and mounted
func BenchmarkRunToStart200(b *testing.B) {
	stub := filepath.Join(b.TempDir(), "claude")
	refs, names := clitest.NumberedSkills(200)
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`echo '{"type":"system","subtype":"init","session_id":"s","skills":["` + strings.Join(names, `","`) + `"]}'` + "\n" +
		`echo '{"type":"result","subtype":"success","session_id":"s","result":"'$t'"}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	clitest.BenchRunToStart(b, "cold-mount", "mounts", func(b *testing.B, root string) *adaptor.Agent {
		d := claude.Driver(claude.Config{Command: stub, CacheRoot: root, Env: []string{"HOME=" + b.TempDir()}})
		return clitest.NewAgent(d, root, b.TempDir(), adaptor.WithSkills(refs...))
	})
}
