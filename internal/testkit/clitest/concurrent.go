package clitest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// SkillSets returns sets skill sets of size inline skills each, and each
// set's skill names, overlapping as the sets of the programs on one
// machine do: every set holds the same size/5 base skills (a team's
// common set, base-00 and on), and the rest of each set is a window over
// a pool of skills (skill-0000 and on) that moves by half its width from
// one set to the next, so that neighbouring sets share half of those and
// sets further apart none. A skill of one name is the same skill in every
// set. 64 sets of 50: 10 base skills, windows of 40 moving by 20, 1,310
// skills in all.
func SkillSets(sets, size int) (refs [][]skill.Ref, names [][]string) {
	base := size / 5
	own := size - base
	stride := max(own/2, 1)
	made := map[string]skill.Ref{}
	ref := func(name string) skill.Ref {
		if r, ok := made[name]; ok {
			return r
		}
		r := skill.Inline(name, cachetest.SkillMD(name, "the "+name+" skill", "Do "+name+"."))
		made[name] = r
		return r
	}
	for i := range sets {
		var rs []skill.Ref
		var ns []string
		for j := range base {
			ns = append(ns, fmt.Sprintf("base-%02d", j))
		}
		for j := range own {
			ns = append(ns, fmt.Sprintf("skill-%04d", i*stride+j))
		}
		for _, n := range ns {
			rs = append(rs, ref(n))
		}
		refs, names = append(refs, rs), append(names, ns)
	}
	return refs, names
}

// Percentile returns the p-th percentile (0 < p <= 100) of ds by nearest
// rank: the smallest duration at least p percent of ds do not exceed. ds
// is sorted in place; it must not be empty.
func Percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	i := int(float64(len(ds))*p/100+0.999999) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// BenchConcurrent measures Agent.Run up to the moment the agent's program
// starts, with several runs at once. agents returns, for a cache root, one
// agent per skill set (sets of them), each running a stand-in that reads the clock first
// thing ($EPOCHREALTIME) and answers with it. A round runs every agent
// once, level runs at a time (goroutines of this process, each taking the
// next agent when its run returns); each run's start overhead is the
// stand-in's clock less the time Run was called. The metrics p50-ms and
// p99-ms are the percentiles over every run of every round. Modes, each
// at every level:
//
//	warm   the cache and the agents' folders as two rounds left them
//	cold   a new cache root, and new agents, for each round
//	floor  no agent: the stand-in's program (bash) started directly with
//	       os/exec, as many per round and as many at once, the cost of
//	       starting a process on this machine at that load
func BenchConcurrent(b *testing.B, levels []int, sets int, agents func(b *testing.B, root string) []*adaptor.Agent) {
	for _, mode := range []string{"warm", "cold", "floor"} {
		for _, level := range levels {
			b.Run(fmt.Sprintf("%s/%d", mode, level), func(b *testing.B) {
				var runs []func(context.Context) (string, error)
				fresh := func() {
					runs = runs[:0]
					for _, a := range agents(b, cachetest.Root(b)) {
						runs = append(runs, agentRun(a))
					}
				}
				switch mode {
				case "floor":
					stub := floorStub(b)
					for range sets {
						runs = append(runs, execRun(stub))
					}
				case "warm":
					fresh()
					for range 2 {
						if _, err := round(b.Context(), runs, level); err != nil {
							b.Fatal(err)
						}
					}
				}
				var all []time.Duration
				for b.Loop() {
					if mode == "cold" {
						b.StopTimer()
						fresh()
						b.StartTimer()
					}
					ds, err := round(b.Context(), runs, level)
					if err != nil {
						b.Fatal(err)
					}
					all = append(all, ds...)
				}
				b.ReportMetric(ms(Percentile(all, 50)), "p50-ms")
				b.ReportMetric(ms(Percentile(all, 99)), "p99-ms")
			})
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// agentRun returns a run of a: its answer is the stand-in's clock.
func agentRun(a *adaptor.Agent) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		res, err := a.Run(ctx, "x")
		if err != nil {
			return "", err
		}
		return res.Text, nil
	}
}

// floorStub writes a program that, like the stand-ins, reads the clock
// first thing, and answers with it alone.
func floorStub(b *testing.B) string {
	stub := filepath.Join(b.TempDir(), "floor")
	if err := os.WriteFile(stub, []byte("#!/bin/bash\necho $EPOCHREALTIME\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	return stub
}

// execRun returns a run of the program stub started with os/exec.
func execRun(stub string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		out, err := exec.CommandContext(ctx, stub).Output()
		return strings.TrimSpace(string(out)), err
	}
}

// round calls every run once, level at a time, and returns each one's
// time from its call to the clock it answered with.
func round(ctx context.Context, runs []func(context.Context) (string, error), level int) ([]time.Duration, error) {
	ds := make([]time.Duration, len(runs))
	errs := make([]error, len(runs))
	next := make(chan int, len(runs))
	for i := range runs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(level, len(runs)) {
		wg.Go(func() {
			for i := range next {
				begin := time.Now()
				text, err := runs[i](ctx)
				if err != nil {
					errs[i] = err
					continue
				}
				ds[i], errs[i] = toStart(begin, text)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ds, nil
}
