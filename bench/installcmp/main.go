//go:build linux

// Command installcmp compares, side by side in one run, installing the
// same 200 local skills into claude-code and codex with `agentskills add`,
// with the npm `skills` tool (version 1.4.9), and with the floor: `cp -r`
// of the same folders into .agents/skills and one `ln -rs` making every
// link in .claude/skills (Codex reads .agents/skills). Each gets a fresh
// project folder; it prints the medians and the ratios.
//
//	go run ./bench/installcmp [-skills 200] [-runs 7]
//
// It builds agentskills from this checkout and installs the npm tool into
// its scratch folder with npm (the registry must be reachable once).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("skills", 200, "skills to install")
	runs := flag.Int("runs", 7, "runs of each contender")
	scratch := flag.String("dir", filepath.Join(os.TempDir(), "agentadaptor-installcmp"), "scratch folder (kept, so the npm tool is installed once)")
	flag.Parse()
	if err := run(*n, *runs, *scratch); err != nil {
		fmt.Fprintln(os.Stderr, "installcmp:", err)
		os.Exit(1)
	}
}

func run(n, runs int, scratch string) error {
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	npmCLI := filepath.Join(scratch, "node_modules", "skills", "bin", "cli.mjs")
	if _, err := os.Stat(npmCLI); err != nil {
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "skills@1.4.9")
		cmd.Dir = scratch
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("npm install skills@1.4.9: %v: %s", err, out)
		}
	}
	bin := filepath.Join(scratch, "agentskills")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/agentskills").CombinedOutput(); err != nil {
		return fmt.Errorf("build agentskills (run from the repository root): %v: %s", err, out)
	}
	src := filepath.Join(scratch, "skills")
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
	fmt.Printf("%d skills into claude-code and codex, fresh project each time, %d runs each\n", n, runs)

	contenders := []struct {
		name string
		args func(project string) *exec.Cmd
	}{
		{"agentskills add", func(project string) *exec.Cmd {
			return exec.Command(bin, "add", src, "--agent", "claude-code,codex", "--quiet")
		}},
		{"npm skills add (1.4.9)", func(project string) *exec.Cmd {
			return exec.Command("node", npmCLI, "add", "./skills", "--skill", "*", "-a", "claude-code", "-a", "codex", "-y")
		}},
		{"floor: cp -r + ln -rs", func(project string) *exec.Cmd {
			return exec.Command("sh", "-c", "mkdir -p .agents/skills .claude/skills && cp -r skills/* .agents/skills/ && ln -rs .agents/skills/* .claude/skills/")
		}},
	}
	times := make([][]time.Duration, len(contenders))
	for r := range runs {
		for i := range contenders {
			c := contenders[(i+r)%len(contenders)] // alternate who goes first
			idx := (i + r) % len(contenders)
			project := filepath.Join(scratch, fmt.Sprintf("project-%d-%d", idx, r))
			os.RemoveAll(project)
			if err := os.MkdirAll(project, 0o755); err != nil {
				return err
			}
			// The npm tool takes a path inside the project; both get the
			// same files.
			if out, err := exec.Command("cp", "-r", src, filepath.Join(project, "skills")).CombinedOutput(); err != nil {
				return fmt.Errorf("cp: %v: %s", err, out)
			}
			cmd := c.args(project)
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(project, "home"), "DISABLE_TELEMETRY=1", "DO_NOT_TRACK=1",
				"AGENT_ADAPTOR_SKILL_CACHE_ROOT="+filepath.Join(scratch, "cache"))
			syscall.Sync()
			start := time.Now()
			out, err := cmd.CombinedOutput()
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %v: %s", c.name, err, out)
			}
			times[idx] = append(times[idx], elapsed)
			links, _ := os.ReadDir(filepath.Join(project, ".claude", "skills"))
			if len(links) != n {
				return fmt.Errorf("%s installed %d skills for claude-code, want %d: %s", c.name, len(links), n, out)
			}
			os.RemoveAll(project)
		}
	}
	fmt.Printf("%-26s %10s\n", "contender", "median")
	for i, c := range contenders {
		fmt.Printf("%-26s %10s\n", c.name, median(times[i]).Round(time.Millisecond))
	}
	ours, theirs, floor := median(times[0]), median(times[1]), median(times[2])
	fmt.Printf("agentskills / npm skills = %.2fx (goal <= 0.2x)\n", float64(ours)/float64(theirs))
	fmt.Printf("agentskills / floor = %.2fx (goal <= 1.5x)\n", float64(ours)/float64(floor))
	fmt.Printf("floor / npm skills = %.2fx\n", float64(floor)/float64(theirs))
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
