// Package clitest sets up the tests that run an agent's CLI (claude,
// codex) through its driver: the agent, the CLI's environment, a time
// bound on each run, and the run-to-start benchmark with its skills.
package clitest

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// RunCtx bounds a run: a stuck agent fails its test instead of hanging
// the whole package.
func RunCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TaggedEnv returns env for running the CLI at the path cli by its name:
// with the CLI's folder first in PATH, and with AGENTADAPTOR_TEST_RUN set
// to a new marker, returned too, that tags every process of the run (see
// modeltest.Processes).
func TaggedEnv(env []string, cli string) (tagged []string, marker string) {
	marker = rand.Text()
	return append(env, "PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"), "AGENTADAPTOR_TEST_RUN="+marker), marker
}

// NewAgent returns an agent of the driver d that materializes skills in
// the cache root and works in workspace, with opts.
func NewAgent(d driver.Driver, cacheRoot, workspace string, opts ...adaptor.Option) *adaptor.Agent {
	base := []adaptor.Option{
		adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cacheRoot))),
		adaptor.WithWorkspace(workspace),
	}
	return adaptor.New(d, append(base, opts...)...)
}

// NumberedSkills returns n inline skills, skill-000 and on, and their
// names.
func NumberedSkills(n int) (refs []skill.Ref, names []string) {
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		names = append(names, name)
		refs = append(refs, skill.Inline(name, cachetest.SkillMD(name, "the "+name+" skill", "Do "+name+".")))
	}
	return refs, names
}

// FolderSkills writes n skill folders, skill-000 and on, each with a
// SKILL.md and a reference file, under a new folder, and returns them as
// skill.Dir references, with their names.
func FolderSkills(tb testing.TB, n int) (refs []skill.Ref, names []string) {
	parent := tb.TempDir()
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
			tb.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(cachetest.SkillMD(name, "the "+name+" skill", "Do "+name+".")), 0o644)
		os.WriteFile(filepath.Join(dir, "references", "notes.md"), []byte("notes of "+name), 0o644)
		names = append(names, name)
		refs = append(refs, skill.Dir(dir))
	}
	return refs, names
}

// BenchWarmRunToStart measures Agent.Run up to the moment the agent's
// program starts, as BenchRunToStart's warm mode does, after a first run
// filled the cache and the folders and trees it recorded were let out of
// the racy window (package cache, rule 4) and recorded again, as they
// are for any run that starts more than 50 ms after the one before. Where
// the platform says, it also reports cpu-ms/op: the CPU time of the
// process and of the stand-ins, which waiting for a core under load does
// not change.
func BenchWarmRunToStart(b *testing.B, newAgent func(b *testing.B, root string) *adaptor.Agent) {
	root := cachetest.Root(b)
	agent := newAgent(b, root)
	for range 2 {
		if _, err := agent.Run(b.Context(), "x"); err != nil {
			b.Fatal(err)
		}
		cachetest.Settle()
	}
	var total time.Duration
	cpu := cpuTime()
	for b.Loop() {
		total += runToStart(b, agent)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-start")
	if cpu := cpuTime() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// runToStart runs agent once and returns the time from the call of Run
// to the moment the stand-in read the clock.
func runToStart(b *testing.B, agent *adaptor.Agent) time.Duration {
	begin := time.Now()
	res, err := agent.Run(b.Context(), "x")
	if err != nil {
		b.Fatal(err)
	}
	d, err := toStart(begin, res.Text)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchRunToStart measures Agent.Run up to the moment the agent's program
// starts. The agents that newAgent makes for a cache root run a stand-in
// that reads the clock first thing and answers with it (seconds since the
// epoch); the metric ms-to-start is that time less the time Run was
// called. It runs three modes, each with a cache root of its own that a
// first run fills:
//
//	warm     the cache as the first run left it: the cost of every later run
//	partial  the cache root's folder part removed before each run
//	cold     a new cache root, and a new agent, for each run
func BenchRunToStart(b *testing.B, partial, part string, newAgent func(b *testing.B, root string) *adaptor.Agent) {
	for _, mode := range []string{"warm", partial, "cold"} {
		b.Run(mode, func(b *testing.B) {
			root := cachetest.Root(b)
			agent := newAgent(b, root)
			if _, err := agent.Run(b.Context(), "x"); err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for b.Loop() {
				switch mode {
				case partial:
					b.StopTimer()
					cachetest.Writable(filepath.Join(root, part))
					os.RemoveAll(filepath.Join(root, part))
					b.StartTimer()
				case "cold":
					b.StopTimer()
					root = cachetest.Root(b)
					agent = newAgent(b, root)
					b.StartTimer()
				}
				total += runToStart(b, agent)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-start")
		})
	}
}

// toStart returns the time from begin to the clock a stand-in answered
// with (seconds since the epoch).
func toStart(begin time.Time, answer string) (time.Duration, error) {
	started, err := strconv.ParseFloat(answer, 64)
	if err != nil {
		return 0, fmt.Errorf("stand-in answered %q", answer)
	}
	return time.Unix(0, int64(started*1e9)).Sub(begin), nil
}
