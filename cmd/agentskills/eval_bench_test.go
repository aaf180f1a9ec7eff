package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// evalBenchCases is the number of cases of the benchmark's suite, and of
// `agentskills run` calls each round makes.
const evalBenchCases = 8

// BenchmarkEvalOverhead measures what eval adds to each run of the agent
// over `agentskills run`: each round runs the same prompts with the same
// stand-in model (answering "ok" at once) evalBenchCases times through
// `agentskills run -s SKILL`, one process each, and once through
// `agentskills eval --judge none --fresh` on a suite of evalBenchCases
// cases (so 2 x evalBenchCases runs, with_skill and without_skill, in
// one process). It reports run-ms (the median time of a run call),
// eval-ms (the median over the rounds of an eval's time divided by its
// runs) and their difference, overhead-ms, for Claude Code and Codex;
// and agent-ms, the median time of the agent's runs inside eval
// (timing.json: the skills' staging and the agent's program), which
// eval-ms and run-ms exceed by what each adds around a run. run-cpu-ms
// and eval-cpu-ms are the same medians of CPU time (user and system, of
// agentskills and the agent's processes it waited for), which waiting
// for a core on a loaded machine does not lengthen.
// Run it without -race: agentskills is this test binary.
func BenchmarkEvalOverhead(b *testing.B) {
	for _, a := range []struct {
		agent string
		env   func(b *testing.B) []string
	}{
		{"claude-code", func(b *testing.B) []string {
			cli := modeltest.ClaudeCLI(b)
			env, home := modeltest.NewAnthropic(b, nil).ClaudeEnv(b)
			return benchEnv(env, cli, home)
		}},
		{"codex", func(b *testing.B) []string {
			cli := modeltest.CodexCLI(b)
			env, home, _ := modeltest.NewResponses(b, nil).CodexEnv(b)
			return benchEnv(env, cli, home)
		}},
	} {
		b.Run(a.agent, func(b *testing.B) {
			env := a.env(b)
			dir := filepath.Join(b.TempDir(), "plain")
			writeBenchSkill(b, dir)
			ws, out := b.TempDir(), filepath.Join(b.TempDir(), "out")
			var runs, evals, agents, runCPU, evalCPU []time.Duration
			for b.Loop() {
				for i := range evalBenchCases {
					wall, cpu := benchCommand(b, env, ws, "run", "-a", a.agent, "-s", dir, "-q", benchPrompt(i))
					runs, runCPU = append(runs, wall), append(runCPU, cpu)
				}
				wall, cpu := benchCommand(b, env, ws, "eval", dir, "-a", a.agent, "--judge", "none", "--fresh", "-q", "--out", out)
				evals, evalCPU = append(evals, wall/(2*evalBenchCases)), append(evalCPU, cpu/(2*evalBenchCases))
				timings, _ := filepath.Glob(filepath.Join(out, "iteration-1", "eval-*", "*", "timing.json"))
				if len(timings) != 2*evalBenchCases {
					b.Fatalf("%d timing.json files, want %d", len(timings), 2*evalBenchCases)
				}
				for _, f := range timings {
					agents = append(agents, time.Duration(readJSON[eval.Timing](b, f).DurationMS)*time.Millisecond)
				}
			}
			run, ev, agent := median(runs), median(evals), median(agents)
			b.ReportMetric(float64(run)/1e6, "run-ms")
			b.ReportMetric(float64(ev)/1e6, "eval-ms")
			b.ReportMetric(float64(ev-run)/1e6, "overhead-ms")
			b.ReportMetric(float64(agent)/1e6, "agent-ms")
			b.ReportMetric(float64(median(runCPU))/1e6, "run-cpu-ms")
			b.ReportMetric(float64(median(evalCPU))/1e6, "eval-cpu-ms")
			if load, err := os.ReadFile("/proc/loadavg"); err == nil {
				b.Logf("load average %s", strings.Fields(string(load))[0])
			}
		})
	}
}

func benchPrompt(i int) string { return fmt.Sprintf("Say ok. (case %d)", i+1) }

// benchEnv is env with the agent's program on PATH and agentskills'
// caches in home.
func benchEnv(env []string, cli, home string) []string {
	return append(env,
		"PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENT_ADAPTOR_SKILL_CACHE_ROOT="+filepath.Join(home, ".cache", "skills"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
	)
}

// writeBenchSkill writes a skill with a suite of evalBenchCases cases at
// dir, each passing by a command that always passes.
func writeBenchSkill(b testing.TB, dir string) {
	if err := os.MkdirAll(filepath.Join(dir, "evals"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: plain\ndescription: Says ok.\n---\nSay ok.\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var cases []string
	for i := range evalBenchCases {
		cases = append(cases, fmt.Sprintf(`{"id": %d, "prompt": %q, "expectations": [{"text": "it ran", "command": ["true"]}]}`, i+1, benchPrompt(i)))
	}
	suite := `{"skill_name": "plain", "evals": [` + strings.Join(cases, ",") + `]}`
	if err := os.WriteFile(filepath.Join(dir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
		b.Fatal(err)
	}
}

// benchCommand runs agentskills (this test binary) with env in dir and
// returns its wall time and CPU time (its own and that of the processes
// it waited for); it fails the benchmark unless it exits 0.
func benchCommand(b testing.TB, env []string, dir string, args ...string) (wall, cpu time.Duration) {
	bin, err := exec.LookPath("agentskills")
	if err != nil {
		b.Fatalf("agentskills is not on PATH (TestMain puts it there): %v", err)
	}
	cmd := exec.CommandContext(b.Context(), bin, args...)
	cmd.Env = slices.DeleteFunc(append(os.Environ(), env...), func(kv string) bool { return strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") })
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("agentskills %q: %v\n%s", args, err, out.String())
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// median returns the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	if n := len(ds); n%2 == 0 {
		return (ds[n/2-1] + ds[n/2]) / 2
	}
	return ds[len(ds)/2]
}
