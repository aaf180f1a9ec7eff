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
	"github.com/agentadaptor/agentadaptor/trust"
)

// BenchmarkRunToStartCurve measures a warm Agent.Run up to the moment the
// agent's program starts (as BenchmarkRunToStart200's warm mode, with the
// same stand-in) at 20, 200 and 2,000 skills, inline and as folders used
// in place (skill.Dir), for the curve of run overhead against the number
// of skills; "trusted" is the inline skills through package trust's
// checking materializer with the zero policy, which audits each tree once
// and applies the policy on every run.
func BenchmarkRunToStartCurve(b *testing.B) {
	for _, kind := range []string{"inline", "folder", "trusted"} {
		for _, n := range []int{20, 200, 2000} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				refs, names := clitest.NumberedSkills(n)
				if kind == "folder" {
					refs, names = clitest.FolderSkills(b, n)
				}
				stub := claudeStandIn(b, names)
				clitest.BenchWarmRunToStart(b, func(b *testing.B, root string) *adaptor.Agent {
					d := claude.Driver(claude.Config{Command: stub, CacheRoot: root, Env: []string{"HOME=" + b.TempDir()}})
					opts := []adaptor.Option{adaptor.WithSkills(refs...)}
					if kind == "trusted" {
						m := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), nil)
						opts = append(opts, adaptor.WithSkillMaterializer(m))
					}
					return clitest.NewAgent(d, root, b.TempDir(), opts...)
				})
			})
		}
	}
}

// claudeStandIn writes a stand-in for claude that reads the clock first
// thing and reports the skills names as loaded.
func claudeStandIn(b *testing.B, names []string) string {
	stub := filepath.Join(b.TempDir(), "claude")
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`echo '{"type":"system","subtype":"init","session_id":"s","skills":["` + strings.Join(names, `","`) + `"]}'` + "\n" +
		`echo '{"type":"result","subtype":"success","session_id":"s","result":"'$t'"}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	return stub
}
