//go:build linux

// Command installcmp compares, side by side in one run, installing the
// same 200 local skills into claude-code and codex with `agentskills add`,
// with the npm `skills` tool (version 1.4.9), and with the floor: `cp -r`
// of the same folders into .agents/skills and one `ln -rs` making every
// link in .claude/skills (Codex reads .agents/skills). Each gets a fresh
// project folder; it prints the medians and the ratios.
//
//	go -C bench run ./installcmp [-skills 200] [-runs 7] [-csv FILE]
//
// -skills takes a comma-separated list too (-skills 200,2000,10000):
// each size is run in turn, and -csv writes every round's time per
// contender and size, the points of the scaling curve bench/plot draws.
//
// -npm-max N leaves the npm tool out of sizes above N skills (default:
// never), as it takes minutes at 10,000. -old BIN adds another
// agentskills binary (a build from before a change) as a contender of
// its own, its add and, with -ops, its list, verify and no-op sync, for
// before and after side by side. It prints the peak memory (the
// largest resident set, from the kernel's accounting of the process) of
// each `agentskills add`. -ops then times, side by side in rounds,
// `agentskills list`, `verify`, a no-op `sync` and a `sync --frozen` of
// the n skills one `agentskills add` installed, against `ls -l` of both
// skill folders and `sha256sum` of every installed file. -ops-only
// times only those (no add comparison, no npm tool). -before BIN adds
// the `verify` and `sync --frozen` of another agentskills binary (a
// build of an earlier commit) on the same project, taking turns with
// the others. -text KIB gives each skill a SKILL.md of that many KiB of
// ordinary instructions and a script, the size of a published skill's,
// in place of the one-line SKILL.md.
//
// It builds agentskills from this checkout and runs the npm tool
// $AGENTADAPTOR_PEERS holds, else installs version 1.4.9 into its scratch
// folder with npm (the registry must be reachable once). It prints CPU
// time (user and system, of each program and those it ran) beside the
// wall time.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentadaptor/agentadaptor/bench/internal/benchrun"
)

func main() {
	npmMax := flag.Int("npm-max", 0, "leave the npm tool out of sizes above this many skills (default 0: never)")
	ops := flag.Bool("ops", false, "also time agentskills list, verify, a no-op sync and a sync --frozen of the installed skills")
	opsOnly := flag.Bool("ops-only", false, "time only what -ops times: no add comparison, no npm tool")
	before := flag.String("before", "", "also time this agentskills binary's verify and sync --frozen with -ops (default: none)")
	text := flag.Int("text", 0, "KiB of instructions in each skill's SKILL.md, with a script (default 0: one line)")
	old := flag.String("old", "", "another agentskills binary to compare, such as a build from before a change (default: none)")
	benchrun.Main("installcmp", "skills to install", 200, 7, func(n, runs int, scratch string, out *benchrun.Results) error {
		if *opsOnly {
			bin := filepath.Join(scratch, "agentskills")
			if err := benchrun.BuildAgentskills(bin); err != nil {
				return err
			}
			src := filepath.Join(scratch, "skills")
			if err := makeSkills(src, n, *text); err != nil {
				return err
			}
			return timeOps(bin, *before, *old, n, runs, scratch, src)
		}
		return run(n, runs, scratch, out, *npmMax, *ops, *before, *old, *text)
	})
}

func run(n, runs int, scratch string, out *benchrun.Results, npmMax int, ops bool, before, old string, text int) error {
	npm, bin, err := benchrun.Tools(scratch)
	if err != nil {
		return err
	}
	src := filepath.Join(scratch, "skills")
	if err := makeSkills(src, n, text); err != nil {
		return err
	}
	fmt.Printf("%d skills into claude-code and codex, fresh project each time, %d runs each\n", n, runs)

	contenders := []benchrun.Contender{
		{Name: "agentskills add", Args: []string{bin, "add", src, "--agent", "claude-code,codex", "--quiet"}},
		{Name: "npm skills add (" + npm.Version + ")", Args: npm.Args("add", "./skills", "--skill", "*", "-a", "claude-code", "-a", "codex", "-y")},
		{Name: "floor: cp -r + ln -rs", Args: []string{"sh", "-c", "mkdir -p .agents/skills .claude/skills && cp -r skills/* .agents/skills/ && ln -rs .agents/skills/* .claude/skills/"}},
	}
	withNpm := npmMax <= 0 || n <= npmMax
	if !withNpm {
		fmt.Printf("the npm tool is left out above %d skills (-npm-max)\n", npmMax)
		contenders = slices.Delete(contenders, 1, 2)
	}
	if old != "" {
		contenders = slices.Insert(contenders, 1, benchrun.Contender{Name: "agentskills add (-old)", Args: []string{old, "add", src, "--agent", "claude-code,codex", "--quiet"}})
	}
	var rss []int64 // peak memory of each agentskills add, in KiB
	cpu := make([][]time.Duration, len(contenders))
	times, err := benchrun.Rounds(len(contenders), runs, func(r, i int) (time.Duration, error) {
		project := filepath.Join(scratch, fmt.Sprintf("project-%d-%d", i, r))
		d, c, peak, err := install(contenders[i], project, src, filepath.Join(scratch, "cache"), n, false)
		if i == 0 {
			rss = append(rss, peak)
		}
		cpu[i] = append(cpu[i], c)
		return d, err
	})
	if err != nil {
		return err
	}
	if err := out.Add(n, contenders, times); err != nil {
		return err
	}
	benchrun.PrintMedians(26, contenders, times)
	fmt.Println("CPU time (user and system, with the programs each ran):")
	benchrun.PrintMedians(26, contenders, cpu)
	ours, floor := benchrun.Median(times[0]), benchrun.Median(times[len(times)-1])
	fmt.Printf("CPU: agentskills / floor = %.2fx\n", float64(benchrun.Median(cpu[0]))/float64(benchrun.Median(cpu[len(cpu)-1])))
	if old != "" {
		fmt.Printf("agentskills -old / floor = %.2fx; CPU %.2fx\n", float64(benchrun.Median(times[1]))/float64(floor),
			float64(benchrun.Median(cpu[1]))/float64(benchrun.Median(cpu[len(cpu)-1])))
	}
	if withNpm {
		theirs := benchrun.Median(times[len(times)-2])
		fmt.Printf("agentskills / npm skills = %.2fx (goal <= 0.2x)\n", float64(ours)/float64(theirs))
		fmt.Printf("floor / npm skills = %.2fx\n", float64(floor)/float64(theirs))
	}
	fmt.Printf("agentskills / floor = %.2fx (goal <= 1.2x)\n", float64(ours)/float64(floor))
	fmt.Printf("agentskills add peak memory (RSS): %.1f MiB at most (goal < 100 MiB at 10,000 skills)\n", float64(slices.Max(rss))/1024)
	if ops {
		return timeOps(bin, before, old, n, runs, scratch, src)
	}
	return nil
}

// timeOps installs the n skills of src with agentskills into a fresh
// project, then times agentskills list, verify, a sync that has nothing
// to do and a sync --frozen, with before's verify and sync --frozen when
// before is not "", alternating with ls -l of both skill folders and
// sha256sum of every installed file, and prints their medians and the
// ratios of verify and sync --frozen to list; with old, old's list,
// verify and no-op sync too.
func timeOps(bin, before, old string, n, runs int, scratch, src string) error {
	project := filepath.Join(scratch, "project-ops")
	add := benchrun.Contender{Name: "agentskills add", Args: []string{bin, "add", src, "--agent", "claude-code,codex", "--quiet"}}
	cacheRoot := filepath.Join(scratch, "cache")
	if _, _, _, err := install(add, project, src, cacheRoot, n, true); err != nil {
		return err
	}
	defer os.RemoveAll(project)
	contenders := []benchrun.Contender{
		{Name: "agentskills list", Args: []string{bin, "list"}},
		{Name: "agentskills verify", Args: []string{bin, "verify"}},
		{Name: "agentskills sync (no-op)", Args: []string{bin, "sync", "--quiet"}},
		{Name: "agentskills sync --frozen", Args: []string{bin, "sync", "--frozen", "--quiet"}},
		{Name: "ls -l of both folders", Args: []string{"sh", "-c", "ls -l .agents/skills .claude/skills >/dev/null"}},
		{Name: "sha256sum of every file", Args: []string{"sh", "-c", "find .agents/skills -type f -exec sha256sum {} + >/dev/null"}},
	}
	if before != "" {
		contenders = append(contenders,
			benchrun.Contender{Name: "before: verify", Args: []string{before, "verify"}},
			benchrun.Contender{Name: "before: sync --frozen", Args: []string{before, "sync", "--frozen", "--quiet"}})
	}
	if old != "" {
		contenders = append(contenders,
			benchrun.Contender{Name: "-old list", Args: []string{old, "list"}},
			benchrun.Contender{Name: "-old verify", Args: []string{old, "verify"}},
			benchrun.Contender{Name: "-old sync (no-op)", Args: []string{old, "sync", "--quiet"}})
	}
	cpu := make([][]time.Duration, len(contenders)) // user and system time
	times, err := benchrun.Rounds(len(contenders), runs, func(r, i int) (time.Duration, error) {
		c := contenders[i]
		cmd := exec.Command(c.Args[0], c.Args[1:]...)
		d, _, err := benchrun.Time(c.Name, cmd, project, cacheRoot)
		if err == nil {
			cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
		return d, err
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d installed skills, %d runs each; wall time, then CPU time\n", n, runs)
	benchrun.PrintMedians(26, contenders, times)
	benchrun.PrintMedians(26, contenders, cpu)
	ratios := func(label string, times [][]time.Duration, verify, frozen int) {
		list := float64(benchrun.Median(times[0]))
		fmt.Printf("%s: verify / list = %.2fx, sync --frozen / list = %.2fx\n", label, float64(benchrun.Median(times[verify]))/list, float64(benchrun.Median(times[frozen]))/list)
	}
	ratios("wall", times, 1, 3)
	ratios("CPU", cpu, 1, 3)
	if before != "" {
		k := 6 // before's verify and sync --frozen follow the six above
		ratios("before, wall", times, k, k+1)
		ratios("before, CPU", cpu, k, k+1)
	}
	fmt.Println("(goal: verify and sync --frozen at most 2x list)")
	return nil
}

// makeSkills makes n skill folders under src, each holding a SKILL.md
// and, when text is above 0, text KiB of instructions in it and a script.
func makeSkills(src string, n, text int) error {
	os.RemoveAll(src)
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		dir := filepath.Join(src, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs.\n---\n# %s\n\nStep one, step two.\n", name, i, name)
		for j := 0; len(md) < text<<10; j++ {
			md += fmt.Sprintf("%d. Read the project's README and the files under `src/`; run `go test ./...` and fix what fails before you commit.\n", j+1)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			return err
		}
		if text > 0 {
			script := "#!/bin/sh\nset -eu\n# Fetch the fixtures and check them.\ncurl -fsSL -o fixtures.json https://example.org/fixtures.json\njq '.items | length' fixtures.json\n"
			if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "scripts", "check.sh"), []byte(script), 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// install runs one contender in a fresh project folder holding a copy of
// the skills in src, checks that it installed n skills for claude-code,
// and returns how long it took, its CPU time and its peak memory in KiB.
// It removes the project unless keep is set.
func install(c benchrun.Contender, project, src, cacheRoot string, n int, keep bool) (time.Duration, time.Duration, int64, error) {
	os.RemoveAll(project)
	if err := os.MkdirAll(project, 0o755); err != nil {
		return 0, 0, 0, err
	}
	// The npm tool takes a path inside the project; both get the
	// same files.
	if out, err := exec.Command("cp", "-r", src, filepath.Join(project, "skills")).CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("cp: %v: %s", err, out)
	}
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	elapsed, out, err := benchrun.Time(c.Name, cmd, project, cacheRoot)
	if err != nil {
		return 0, 0, 0, err
	}
	links, _ := os.ReadDir(filepath.Join(project, ".claude", "skills"))
	if len(links) != n {
		return 0, 0, 0, fmt.Errorf("%s installed %d skills for claude-code, want %d: %s", c.Name, len(links), n, out)
	}
	if !keep {
		os.RemoveAll(project)
	}
	return elapsed, benchrun.CPU(cmd), benchrun.PeakRSS(cmd), nil
}
