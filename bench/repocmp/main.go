//go:build linux

// Command repocmp compares, side by side in one run, installing every
// skill of a 500-skill git repository into claude-code and codex with
// `agentskills add` and with the npm `skills` tool (version 1.4.9), from a
// local stand-in for a published repository: a repository made with git
// init in the scratch folder. Each tool gets the same repository in two
// forms, the two it can take without a network:
//
//   - as a git URL over file://, which both clone shallowly with the system
//     git: `agentskills add git+file://REPO#ref=main` (git fetch --depth 1
//     of the ref, then git archive of the commit) and `skills add
//     file://REPO` (git clone --depth 1);
//   - as a local folder (the repository's checkout), which both read in
//     place.
//
// The npm tool does not take a GitHub source (OWNER/REPO) without reaching
// github.com, so that form is not compared. Every run gets a fresh project
// folder, a fresh HOME and, for agentskills, an empty skill cache (the npm
// tool has none), so each install is cold. The contenders take turns going
// first; it prints the medians and the ratios.
//
//	go run ./bench/repocmp [-skills 500] [-runs 5]
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
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("skills", 500, "skills in the repository")
	runs := flag.Int("runs", 5, "runs of each contender")
	scratch := flag.String("dir", filepath.Join(os.TempDir(), "agentadaptor-repocmp"), "scratch folder (kept, so the npm tool is installed once)")
	flag.Parse()
	if err := run(*n, *runs, *scratch); err != nil {
		fmt.Fprintln(os.Stderr, "repocmp:", err)
		os.Exit(1)
	}
}

// contender is one command that installs the repository's skills.
type contender struct {
	name string
	args []string
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
	repo := filepath.Join(scratch, "repo")
	if err := makeRepo(repo, n); err != nil {
		return err
	}
	contenders := []contender{
		{"agentskills add git+file://", []string{bin, "add", "git+file://" + repo + "#ref=main", "--agent", "claude-code,codex", "--quiet"}},
		{"npm skills add file://", []string{"node", npmCLI, "add", "file://" + repo, "--skill", "*", "-a", "claude-code", "-a", "codex", "-y"}},
		{"agentskills add FOLDER", []string{bin, "add", repo, "--agent", "claude-code,codex", "--quiet"}},
		{"npm skills add FOLDER", []string{"node", npmCLI, "add", repo, "--skill", "*", "-a", "claude-code", "-a", "codex", "-y"}},
	}
	fmt.Printf("a git repository of %d skills (skills/skill-NNN) into claude-code and codex, fresh project and cache each time, %d runs each\n", n, runs)
	for _, c := range contenders {
		fmt.Printf("  %s: %s\n", c.name, strings.Join(c.args, " "))
	}
	times := make([][]time.Duration, len(contenders))
	for r := range runs {
		for i := range contenders {
			idx := (i + r) % len(contenders) // alternate who goes first
			c := contenders[idx]
			project := filepath.Join(scratch, fmt.Sprintf("project-%d-%d", idx, r))
			os.RemoveAll(project)
			if err := os.MkdirAll(filepath.Join(project, "home"), 0o755); err != nil {
				return err
			}
			cmd := exec.Command(c.args[0], c.args[1:]...)
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(project, "home"), "DISABLE_TELEMETRY=1", "DO_NOT_TRACK=1",
				"AGENT_ADAPTOR_SKILL_CACHE_ROOT="+filepath.Join(project, "cache"), "GIT_CONFIG_GLOBAL=/dev/null")
			syscall.Sync()
			start := time.Now()
			out, err := cmd.CombinedOutput()
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %v: %s", c.name, err, out)
			}
			times[idx] = append(times[idx], elapsed)
			links, _ := os.ReadDir(filepath.Join(project, ".claude", "skills"))
			copies, _ := os.ReadDir(filepath.Join(project, ".agents", "skills"))
			if len(links) != n || len(copies) != n {
				return fmt.Errorf("%s installed %d skills for claude-code and %d in .agents/skills, want %d: %s", c.name, len(links), len(copies), n, out)
			}
			os.RemoveAll(project)
		}
	}
	fmt.Printf("%-30s %10s\n", "contender", "median")
	for i, c := range contenders {
		fmt.Printf("%-30s %10s\n", c.name, median(times[i]).Round(time.Millisecond))
	}
	fmt.Printf("agentskills / npm skills, git over file:// = %.2fx\n", float64(median(times[0]))/float64(median(times[1])))
	fmt.Printf("agentskills / npm skills, folder = %.2fx\n", float64(median(times[2]))/float64(median(times[3])))
	return nil
}

// makeRepo makes a git repository at dir, on branch main, holding n
// skills under skills/, each a SKILL.md and a reference file, as
// published skill repositories keep them.
func makeRepo(dir string, n int) error {
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Benchmark skills\n"), 0o644); err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		skill := filepath.Join(dir, "skills", name)
		if err := os.MkdirAll(filepath.Join(skill, "references"), 0o755); err != nil {
			return err
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs from a repository.\n---\n# %s\n\nStep one, step two; see references/notes.md.\n", name, i, name)
		if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(md), 0o644); err != nil {
			return err
		}
		notes := strings.Repeat(fmt.Sprintf("Notes for %s: what to check, and in which order.\n", name), 20)
		if err := os.WriteFile(filepath.Join(skill, "references", "notes.md"), []byte(notes), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "skills"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.org",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
