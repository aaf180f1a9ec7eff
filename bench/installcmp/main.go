//go:build linux

// Command installcmp compares, side by side in one run, installing the
// same 200 local skills into claude-code and codex with `agentskills add`,
// with the npm `skills` tool (version 1.4.9), and with the floor: `cp -r`
// of the same folders into .agents/skills and one `ln -rs` making every
// link in .claude/skills (Codex reads .agents/skills). Each gets a fresh
// project folder; it prints the medians and the ratios.
//
//	go run ./bench/installcmp [-skills 200] [-runs 7] [-csv FILE]
//
// -skills takes a comma-separated list too (-skills 200,2000,10000):
// each size is run in turn, and -csv writes every round's time per
// contender and size, the points of the scaling curve bench/plot draws.
//
// It builds agentskills from this checkout and installs the npm tool into
// its scratch folder with npm (the registry must be reachable once).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agentadaptor/agentadaptor/bench/internal/benchrun"
)

func main() {
	benchrun.Main("installcmp", "skills to install", 200, 7, run)
}

func run(n, runs int, scratch string, out *benchrun.Results) error {
	npmCLI, bin, err := benchrun.Tools(scratch)
	if err != nil {
		return err
	}
	src := filepath.Join(scratch, "skills")
	if err := makeSkills(src, n); err != nil {
		return err
	}
	fmt.Printf("%d skills into claude-code and codex, fresh project each time, %d runs each\n", n, runs)

	contenders := []benchrun.Contender{
		{Name: "agentskills add", Args: []string{bin, "add", src, "--agent", "claude-code,codex", "--quiet"}},
		{Name: "npm skills add (1.4.9)", Args: []string{"node", npmCLI, "add", "./skills", "--skill", "*", "-a", "claude-code", "-a", "codex", "-y"}},
		{Name: "floor: cp -r + ln -rs", Args: []string{"sh", "-c", "mkdir -p .agents/skills .claude/skills && cp -r skills/* .agents/skills/ && ln -rs .agents/skills/* .claude/skills/"}},
	}
	times, err := benchrun.Rounds(len(contenders), runs, func(r, i int) (time.Duration, error) {
		project := filepath.Join(scratch, fmt.Sprintf("project-%d-%d", i, r))
		return install(contenders[i], project, src, filepath.Join(scratch, "cache"), n)
	})
	if err != nil {
		return err
	}
	if err := out.Add(n, contenders, times); err != nil {
		return err
	}
	benchrun.PrintMedians(26, contenders, times)
	ours, theirs, floor := benchrun.Median(times[0]), benchrun.Median(times[1]), benchrun.Median(times[2])
	fmt.Printf("agentskills / npm skills = %.2fx (goal <= 0.2x)\n", float64(ours)/float64(theirs))
	fmt.Printf("agentskills / floor = %.2fx (goal <= 1.5x)\n", float64(ours)/float64(floor))
	fmt.Printf("floor / npm skills = %.2fx\n", float64(floor)/float64(theirs))
	return nil
}

// makeSkills makes n skill folders under src, each holding a SKILL.md.
func makeSkills(src string, n int) error {
	os.RemoveAll(src)
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		dir := filepath.Join(src, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs.\n---\n# %s\n\nStep one, step two.\n", name, i, name)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// install runs one contender in a fresh project folder holding a copy of
// the skills in src, checks that it installed n skills for claude-code,
// and returns how long it took.
func install(c benchrun.Contender, project, src, cacheRoot string, n int) (time.Duration, error) {
	os.RemoveAll(project)
	if err := os.MkdirAll(project, 0o755); err != nil {
		return 0, err
	}
	// The npm tool takes a path inside the project; both get the
	// same files.
	if out, err := exec.Command("cp", "-r", src, filepath.Join(project, "skills")).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("cp: %v: %s", err, out)
	}
	elapsed, out, err := benchrun.Time(c.Name, exec.Command(c.Args[0], c.Args[1:]...), project, cacheRoot)
	if err != nil {
		return 0, err
	}
	links, _ := os.ReadDir(filepath.Join(project, ".claude", "skills"))
	if len(links) != n {
		return 0, fmt.Errorf("%s installed %d skills for claude-code, want %d: %s", c.Name, len(links), n, out)
	}
	os.RemoveAll(project)
	return elapsed, nil
}
