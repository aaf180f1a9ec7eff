package claude_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
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
	var names, refs = []string{}, []skill.Ref{}
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		names = append(names, `"`+name+`"`)
		refs = append(refs, skill.Inline(name, fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\nDo %s.\n", name, name, name)))
	}
	script := "#!/bin/bash\nt=$EPOCHREALTIME\n" +
		`echo '{"type":"system","subtype":"init","session_id":"s","skills":[` + strings.Join(names, ",") + `]}'` + "\n" +
		`echo '{"type":"result","subtype":"success","session_id":"s","result":"'$t'"}'` + "\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"warm", "cold-mount", "cold"} {
		b.Run(mode, func(b *testing.B) {
			root := cachetest.Root(b)
			newAgent := func(root string) *adaptor.Agent {
				return adaptor.New(
					claude.Driver(claude.Config{Command: stub, CacheRoot: root, Env: []string{"HOME=" + b.TempDir()}}),
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
				case "cold-mount":
					b.StopTimer()
					removeAll(filepath.Join(root, "mounts"))
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

// removeAll removes a tree whose folders may be read-only.
func removeAll(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}
