package codex_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
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
	var refs []skill.Ref
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		refs = append(refs, skill.Inline(name, fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\nDo %s.\n", name, name, name)))
	}
	userHome := b.TempDir()
	os.WriteFile(filepath.Join(userHome, "config.toml"), []byte("model = \"m\"\n"), 0o600)
	for _, mode := range []string{"warm", "cold-home", "cold"} {
		b.Run(mode, func(b *testing.B) {
			root := cachetest.Root(b)
			newAgent := func(root string) *adaptor.Agent {
				return adaptor.New(
					codex.Driver(codex.Config{Command: stub, CacheRoot: root, Home: userHome, Env: []string{"HOME=" + b.TempDir()}}),
					adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root))),
					adaptor.WithSkills(refs...),
					adaptor.WithWorkspace(b.TempDir()),
				)
			}
			agent := newAgent(root)
			if _, err := agent.Run(b.Context(), "x"); err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for b.Loop() {
				switch mode {
				case "cold-home":
					b.StopTimer()
					os.RemoveAll(filepath.Join(root, "homes"))
					b.StartTimer()
				case "cold":
					b.StopTimer()
					root = cachetest.Root(b)
					agent = newAgent(root)
					b.StartTimer()
				}
				begin := time.Now()
				res, err := agent.Run(b.Context(), "x")
				if err != nil {
					b.Fatal(err)
				}
				started, err := strconv.ParseFloat(res.Text, 64)
				if err != nil {
					b.Fatalf("stand-in answered %q", res.Text)
				}
				total += time.Unix(0, int64(started*1e9)).Sub(begin)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-start")
		})
	}
}
