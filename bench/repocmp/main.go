//go:build linux

// Command repocmp compares, side by side in one run, installing every
// skill of a 500-skill git repository into claude-code and codex with
// `agentskills add`, with the npm `skills` tool (version 1.4.9) and with
// the floor, from a local stand-in for a published repository: a
// repository made with git init in the scratch folder, which allows
// filters (uploadpack.allowFilter, as GitHub and GitLab do). Each tool
// gets the same repository in two forms, the two it can take without a
// network:
//
//   - as a git URL over file://, which both clone shallowly with the system
//     git: `agentskills add git+file://REPO#ref=main` and `skills add
//     file://REPO` (git clone --depth 1);
//   - as a local folder (the repository's checkout), which both read in
//     place.
//
// The floor is what any installer from git must do at least: `git clone
// --depth 1 --filter=blob:none --branch main file://REPO` (over file://,
// unlike a plain path, git goes through upload-pack and honours the depth
// and the filter), then `cp -r` of its skills folder into .agents/skills
// and `ln -rs` of each skill into .claude/skills, as installcmp's floor.
//
// The npm tool does not take a GitHub source (OWNER/REPO) without reaching
// github.com, so that form is not compared. Every run gets a fresh project
// folder, a fresh HOME and, for agentskills, an empty skill cache (the npm
// tool has none), so each install is cold. The contenders take turns going
// first; it prints the medians and the ratios.
//
//	go -C bench run ./repocmp [-skills 500] [-runs 5] [-csv FILE] [-npm-up-to N]
//
// -skills takes a comma-separated list too, and -csv writes every
// round's time per contender and size, for bench/plot. -npm-up-to N
// leaves the npm tool out at sizes above N skills (it takes minutes at
// 5,000).
//
// -old BIN adds another agentskills binary (a build from before a
// change), over git and as a folder, for before and after side by side.
//
// -repo DIR installs from a repository of one's own instead, such as a
// clone of a published one at a pinned commit on its branch main (with
// uploadpack.allowFilter set), every skill each tool finds there, with
// -add-args passed to agentskills add (such as --lenient); -skills is then
// ignored, and the floor, which knows only skills/, is left out. Every
// run prints the CPU time (user and system, of each tool and the
// programs it ran, such as git) beside the wall time.
//
// It builds agentskills from this checkout and runs the npm tool
// $AGENTADAPTOR_PEERS holds, else installs version 1.4.9 into its scratch
// folder with npm (the registry must be reachable once).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/bench/internal/benchrun"
)

func main() {
	npmUpTo := flag.Int("npm-up-to", 0, "run the npm skills tool only at sizes of at most this many skills (default 0: at every size)")
	repo := flag.String("repo", "", "a git repository to install from, on its branch main, instead of a generated one (default: none)")
	addArgs := flag.String("add-args", "", "more arguments for agentskills add, separated by spaces (default: none)")
	old := flag.String("old", "", "another agentskills binary to compare, such as a build from before a change (default: none)")
	benchrun.Main("repocmp", "skills in the repository", 500, 5, func(n, runs int, scratch string, out *benchrun.Results) error {
		return run(n, runs, scratch, out, *npmUpTo <= 0 || n <= *npmUpTo, *repo, strings.Fields(*addArgs), *old)
	})
}

// run compares the contenders at n skills, the npm tool among them when
// withNPM is set; with repo, from that repository, whatever n says.
func run(n, runs int, scratch string, out *benchrun.Results, withNPM bool, repo string, addArgs []string, old string) error {
	npmTool, bin, err := benchrun.Tools(scratch)
	if err != nil {
		return err
	}
	given := repo != ""
	if given {
		if repo, err = filepath.Abs(repo); err != nil {
			return err
		}
		n = 0 // every skill each tool finds
	} else {
		repo = filepath.Join(scratch, "repo")
		if err := makeRepo(repo, n); err != nil {
			return err
		}
	}
	add := func(src string) []string {
		return append([]string{bin, "add", src, "--agent", "claude-code,codex", "--quiet"}, addArgs...)
	}
	oldAdd := func(src string) []string {
		return append([]string{old, "add", src, "--agent", "claude-code,codex", "--quiet"}, addArgs...)
	}
	ours := []benchrun.Contender{
		{Name: "agentskills add git+file://", Args: add("git+file://" + repo + "#ref=main")},
		{Name: "floor: git clone + cp -r + ln -rs", Args: []string{"sh", "-c", floorScript, "floor", "file://" + repo}},
		{Name: "agentskills add FOLDER", Args: add(repo)},
	}
	if given {
		ours = slices.Delete(ours, 1, 2)
	}
	npm := []benchrun.Contender{
		{Name: "npm skills add file://", Args: npmTool.Args("add", "file://"+repo, "--skill", "*", "-a", "claude-code", "-a", "codex", "-y")},
		{Name: "npm skills add FOLDER", Args: npmTool.Args("add", repo, "--skill", "*", "-a", "claude-code", "-a", "codex", "-y")},
	}
	contenders := ours
	if withNPM {
		contenders = append(contenders, npm...)
	}
	if old != "" {
		contenders = append(contenders,
			benchrun.Contender{Name: "-old add git+file://", Args: oldAdd("git+file://" + repo + "#ref=main")},
			benchrun.Contender{Name: "-old add FOLDER", Args: oldAdd(repo)})
	}
	if given {
		fmt.Printf("the git repository %s into claude-code and codex, fresh project and cache each time, %d runs each\n", repo, runs)
	} else {
		fmt.Printf("a git repository of %d skills (skills/skill-NNN) into claude-code and codex, fresh project and cache each time, %d runs each\n", n, runs)
	}
	if !withNPM {
		fmt.Printf("  (the npm skills tool is left out at this size: -npm-up-to)\n")
	}
	for _, c := range contenders {
		fmt.Printf("  %s: %s\n", c.Name, strings.Join(c.Args, " "))
	}
	cpu := make([][]time.Duration, len(contenders))
	installed := make([]int, len(contenders))
	times, err := benchrun.Rounds(len(contenders), runs, func(r, i int) (time.Duration, error) {
		d, c, got, err := install(contenders[i], filepath.Join(scratch, fmt.Sprintf("project-%d-%d", i, r)), n)
		cpu[i] = append(cpu[i], c)
		installed[i] = got
		return d, err
	})
	if err != nil {
		return err
	}
	if !given { // a curve's point: a repository of one's own has no size to plot
		if err := out.Add(n, contenders, times); err != nil {
			return err
		}
	}
	fmt.Println("wall time:")
	benchrun.PrintMedians(34, contenders, times)
	fmt.Println("CPU time (user and system, with the programs each ran):")
	benchrun.PrintMedians(34, contenders, cpu)
	if given {
		for i, c := range contenders {
			fmt.Printf("  %s installed %d skills\n", c.Name, installed[i])
		}
	}
	ratio := func(t [][]time.Duration, a, b int) float64 {
		return float64(benchrun.Median(t[a])) / float64(benchrun.Median(t[b]))
	}
	if !given {
		fmt.Printf("agentskills / floor, git over file:// = %.2fx (goal <= 1.3x)\n", ratio(times, 0, 1))
	}
	if withNPM {
		git, folder := len(ours), len(ours)+1
		fmt.Printf("agentskills / npm skills, git over file:// = %.2fx, CPU %.2fx\n", ratio(times, 0, git), ratio(cpu, 0, git))
		fmt.Printf("agentskills / npm skills, folder = %.2fx, CPU %.2fx\n", ratio(times, len(ours)-1, folder), ratio(cpu, len(ours)-1, folder))
	}
	return nil
}

// floorScript is the floor over git: a shallow clone of the ref that
// leaves out the blobs it does not check out (git clone --depth 1
// --filter=blob:none over file://, which, unlike a plain path, goes
// through upload-pack and so honours the depth and the filter; the
// repository allows filters), then cp -r of its skills folder into
// .agents/skills and ln -rs of each skill into .claude/skills, as
// installcmp's floor. $1 is the repository's file:// URL.
const floorScript = `git clone -q --depth 1 --filter=blob:none --branch main --end-of-options "$1" clone && mkdir -p .agents/skills .claude/skills && cp -r clone/skills/* .agents/skills/ && ln -rs .agents/skills/* .claude/skills/`

// install runs one contender in a fresh project folder, with a fresh HOME
// and skill cache, checks that it installed the n skills for claude-code
// and in .agents/skills (with n 0, as many in each, and some), and
// returns how long it took, its CPU time and how many it installed.
func install(c benchrun.Contender, project string, n int) (time.Duration, time.Duration, int, error) {
	os.RemoveAll(project)
	if err := os.MkdirAll(filepath.Join(project, "home"), 0o755); err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	elapsed, out, err := benchrun.Time(c.Name, cmd, project, filepath.Join(project, "cache"), "GIT_CONFIG_GLOBAL=/dev/null")
	if err != nil {
		return 0, 0, 0, err
	}
	links, _ := os.ReadDir(filepath.Join(project, ".claude", "skills"))
	copies, _ := os.ReadDir(filepath.Join(project, ".agents", "skills"))
	if n > 0 && (len(links) != n || len(copies) != n) || n == 0 && (len(links) != len(copies) || len(links) == 0) {
		return 0, 0, 0, fmt.Errorf("%s installed %d skills for claude-code and %d in .agents/skills, want %d: %s", c.Name, len(links), len(copies), n, out)
	}
	os.RemoveAll(project)
	return elapsed, benchrun.CPU(cmd), len(links), nil
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
	// uploadpack.allowFilter: the repository filters blobs, as GitHub and
	// GitLab do, for the floor's clone and agentskills' fetches alike.
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "uploadpack.allowFilter", "true"}, {"add", "-A"}, {"commit", "-q", "-m", "skills"}} {
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
