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
//	go -C bench run ./repocmp [-skills 500] [-runs 5] [-csv FILE] [-npm-up-to N] [-old BIN]
//
// -skills takes a comma-separated list too, and -csv writes every
// round's time per contender and size, for bench/plot. -npm-up-to N
// leaves the npm tool out at sizes above N skills (it takes minutes at
// 5,000). -old BIN compares a change side by side: BIN, another build of
// agentskills (one made before the change), installs the same
// repository too, over git, from a tar.gz of its checkout, and from that
// tar.gz served over HTTP from this program on the loopback address and
// pinned with #sha256= (extracted as a GitHub tarball is), as does this
// checkout's build from both; the program then prints each
// agentskills contender's CPU time (user and system, its children
// included) and peak memory as well, as medians.
//
// -repo DIR installs from a repository of one's own instead, such as a
// clone of a published one at a pinned commit on its branch main (with
// uploadpack.allowFilter set), every skill each tool finds there, with
// -add-args passed to every agentskills add (such as --lenient); -skills
// is then ignored, the floor, which knows only skills/, is left out, and
// nothing is written to -csv. Every run prints the CPU time (user and
// system, of each tool and the programs it ran, such as git) beside the
// wall time, and the ratios to the npm tool's.
//
// It builds agentskills from this checkout and runs the npm tool
// $AGENTADAPTOR_PEERS holds, else installs version 1.4.9 into its scratch
// folder with npm (the registry must be reachable once).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	old := flag.String("old", "", "also run this other build of agentskills, over git, from a tar.gz and from it pinned over HTTP, and this one from both (default none)")
	repo := flag.String("repo", "", "a git repository to install from, on its branch main, instead of a generated one (default: none)")
	addArgs := flag.String("add-args", "", "more arguments for every agentskills add, separated by spaces (default: none)")
	benchrun.Main("repocmp", "skills in the repository", 500, 5, func(n, runs int, scratch string, out *benchrun.Results) error {
		return run(n, runs, scratch, out, *npmUpTo <= 0 || n <= *npmUpTo, *old, *repo, strings.Fields(*addArgs))
	})
}

// run compares the contenders at n skills, the npm tool among them when
// withNPM is set, and the build old of agentskills when it is not ""; with
// repo, from that repository, whatever n says.
func run(n, runs int, scratch string, out *benchrun.Results, withNPM bool, old, repo string, addArgs []string) error {
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
	add := func(bin, src string) []string {
		return append([]string{bin, "add", src, "--agent", "claude-code,codex", "--quiet"}, addArgs...)
	}
	ours := []benchrun.Contender{
		{Name: "agentskills add git+file://", Args: add(bin, "git+file://"+repo+"#ref=main")},
		{Name: "floor: git clone + cp -r + ln -rs", Args: []string{"sh", "-c", floorScript, "floor", "file://" + repo}},
		{Name: "agentskills add FOLDER", Args: add(bin, repo)},
	}
	floor, folder := 1, 2
	if given {
		ours = slices.Delete(ours, 1, 2)
		floor, folder = -1, 1
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
		archive := filepath.Join(scratch, "repo.tar.gz")
		if out, err := exec.Command("tar", "-C", filepath.Dir(repo), "--exclude=.git", "-czf", archive, filepath.Base(repo)).CombinedOutput(); err != nil {
			return fmt.Errorf("tar: %v: %s", err, out)
		}
		pinned, stop, err := serveArchive(archive)
		if err != nil {
			return err
		}
		defer stop()
		contenders = append(contenders,
			benchrun.Contender{Name: "old agentskills add git+file://", Args: add(old, "git+file://"+repo+"#ref=main")},
			benchrun.Contender{Name: "agentskills add ARCHIVE", Args: add(bin, archive)},
			benchrun.Contender{Name: "old agentskills add ARCHIVE", Args: add(old, archive)},
			benchrun.Contender{Name: "agentskills add URL#sha256=", Args: add(bin, pinned)},
			benchrun.Contender{Name: "old agentskills add URL#sha256=", Args: add(old, pinned)})
	}
	usage := make([][]usage, len(contenders))
	installed := make([]int, len(contenders))
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
	times, err := benchrun.Rounds(len(contenders), runs, func(r, i int) (time.Duration, error) {
		d, u, err := install(contenders[i], filepath.Join(scratch, fmt.Sprintf("project-%d-%d", i, r)), n)
		usage[i] = append(usage[i], u)
		installed[i] = u.skills
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
	benchrun.PrintMedians(34, contenders, times)
	cpus := make([][]time.Duration, len(contenders))
	for i, us := range usage {
		for _, u := range us {
			cpus[i] = append(cpus[i], u.cpu)
		}
	}
	fmt.Println("CPU time (user and system, with the programs each ran):")
	benchrun.PrintMedians(34, contenders, cpus)
	if given {
		for i, c := range contenders {
			fmt.Printf("  %s installed %d skills\n", c.Name, installed[i])
		}
	}
	ratio := func(a, b int) float64 {
		return float64(benchrun.Median(times[a])) / float64(benchrun.Median(times[b]))
	}
	cpuRatio := func(a, b int) float64 {
		return float64(benchrun.Median(cpus[a])) / float64(benchrun.Median(cpus[b]))
	}
	if floor >= 0 {
		fmt.Printf("agentskills / floor, git over file:// = %.2fx (goal <= 1.3x)\n", ratio(0, floor))
	}
	if withNPM {
		git, npmFolder := len(ours), len(ours)+1
		fmt.Printf("agentskills / npm skills, git over file:// = %.2fx, CPU %.2fx\n", ratio(0, git), cpuRatio(0, git))
		fmt.Printf("agentskills / npm skills, folder = %.2fx, CPU %.2fx\n", ratio(folder, npmFolder), cpuRatio(folder, npmFolder))
	}
	if old != "" {
		o := len(contenders) - 5 // the old build's git, then this build's and the old one's archive, and pinned URL
		fmt.Printf("%-34s %10s %10s %10s\n", "agentskills contender", "wall", "CPU", "peak RSS")
		for _, i := range []int{0, o, o + 1, o + 2, o + 3, o + 4, folder} {
			cpu, rss := usageMedians(usage[i])
			fmt.Printf("%-34s %10s %10s %7.1f MiB\n", contenders[i].Name, benchrun.Median(times[i]).Round(time.Millisecond), cpu.Round(time.Millisecond), float64(rss)/1024)
		}
		fmt.Printf("this build / the old one, git: wall %.2fx, CPU %.2fx; archive: wall %.2fx, CPU %.2fx; pinned URL: wall %.2fx, CPU %.2fx\n",
			ratio(0, o), cpuRatio(0, o), ratio(o+1, o+2), cpuRatio(o+1, o+2), ratio(o+3, o+4), cpuRatio(o+3, o+4))
	}
	return nil
}

// serveArchive serves the file archive over HTTP on the loopback
// address from this process, and returns its URL pinned with
// #sha256=, as agentskills add takes a published tar.gz (a GitHub
// tarball is extracted the same way), and what stops the server.
func serveArchive(archive string) (string, func(), error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(data)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(data)
	}))
	return srv.URL + "/repo.tar.gz#sha256=" + hex.EncodeToString(sum[:]), srv.Close, nil
}

// usage is what one run of a contender cost besides its wall time: its
// CPU time (user and system, with its children's) and its peak resident
// size in KiB.
type usage struct {
	cpu    time.Duration
	rss    int64
	skills int // how many it installed
}

// usageMedians returns the median CPU time and peak resident size of us.
func usageMedians(us []usage) (time.Duration, int64) {
	cpus := make([]time.Duration, len(us))
	rss := make([]time.Duration, len(us))
	for i, u := range us {
		cpus[i], rss[i] = u.cpu, time.Duration(u.rss)
	}
	return benchrun.Median(cpus), int64(benchrun.Median(rss))
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
// returns how long it took and what it cost.
func install(c benchrun.Contender, project string, n int) (time.Duration, usage, error) {
	os.RemoveAll(project)
	if err := os.MkdirAll(filepath.Join(project, "home"), 0o755); err != nil {
		return 0, usage{}, err
	}
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	elapsed, out, err := benchrun.Time(c.Name, cmd, project, filepath.Join(project, "cache"), "GIT_CONFIG_GLOBAL=/dev/null")
	if err != nil {
		return 0, usage{}, err
	}
	u := usage{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss: benchrun.PeakRSS(cmd)}
	links, _ := os.ReadDir(filepath.Join(project, ".claude", "skills"))
	copies, _ := os.ReadDir(filepath.Join(project, ".agents", "skills"))
	u.skills = len(links)
	if n > 0 && (len(links) != n || len(copies) != n) || n == 0 && (len(links) != len(copies) || len(links) == 0) {
		return 0, usage{}, fmt.Errorf("%s installed %d skills for claude-code and %d in .agents/skills, want %d: %s", c.Name, len(links), len(copies), n, out)
	}
	os.RemoveAll(project)
	return elapsed, u, nil
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
