//go:build linux

// Command auditgrep measures the audit against a text search: it writes
// skill trees of the shapes of text the audit may meet (ordinary
// instructions in a large tree and in a small one, many tiny files,
// lines dense with the rules' own keywords, long lines, text outside
// ASCII, CRLF line ends, short lines of the rules' keywords, empty and
// one-word lines with a keyword now and then, a keyword's line then six
// empty lines, downloads offered on the user's confirmation in Markdown
// and in scripts; package audittext makes them) and over each,
// taking turns, runs three contenders: grep -rE of one download-and-run
// pattern (its output read through a pipe, as a terminal or a script
// reads it), audit.Tree in this process, and audit.Tree in a process of
// its own (this program again, with -audit), which pays what a command
// that audits pays once: starting, and loading the rules' prefilter.
// With -cli it runs a fourth, agentskills audit DIR with the agentskills
// binary named, which starts as the whole command does; -cli OLD,NEW
// runs one for each binary, so that two builds are measured side by side
// in one invocation; with -old, one more, the audit of another build
// (this program built from another commit, run with -audit), so that a
// change to the audit is measured beside the build before it, taking
// turns with it. It prints, for
// each shape, each contender's median wall and CPU time (user and
// system) of -runs rounds, the ratios of the audit's to grep's (wall
// and CPU), and the load average before and after. The package audit's doc, docs/speed.md
// and bench/README.md hold its figures; the budget is 10x grep.
//
//	go -C bench run ./auditgrep [-runs 5] [-shapes ordinary,small,...] [-dir DIR] [-cli AGENTSKILLS[,AGENTSKILLS...]] [-old AUDITGREP]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/bench/internal/benchrun"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// pattern is the download-and-run pattern grep looks for.
const pattern = `(curl|wget)[^|]*\|[[:space:]]*(sudo[[:space:]]+)?(ba|z)?sh`

// shape is a tree the contenders are run over.
type shape struct {
	key, name string
	tree      func() map[string]string
}

// shapes are the trees, in the order they are measured.
var shapes = []shape{
	{"ordinary", "ordinary text, 40 MiB in 40 files", func() map[string]string {
		return audittext.Tree(40, 1<<20, audittext.Ordinary)
	}},
	{"small", "a small tree of ordinary text, 4 MiB in 16 files", func() map[string]string {
		return audittext.Tree(16, 256<<10, audittext.Ordinary)
	}},
	{"tiny", "many tiny files, 4,000 files of 1 KiB", func() map[string]string {
		return audittext.Tree(4000, 1<<10, audittext.Ordinary)
	}},
	{"dense", "lines dense with the rules' keywords, one 8 MiB file", func() map[string]string {
		return audittext.Tree(1, 8<<20, audittext.DenseKeywords)
	}},
	{"long", "long lines (256 KiB), 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, func(size int, seed uint64) string { return audittext.LongLines(size, 256<<10, seed) })
	}},
	{"nonascii", "text outside ASCII, 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, audittext.NonASCII)
	}},
	{"crlf", "CRLF line ends, 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, audittext.CRLF)
	}},
	{"short", "short lines of the rules' keywords, 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, audittext.ShortLines)
	}},
	{"quiet", "empty and one-word lines, a keyword every 64 lines, 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, audittext.QuietLines)
	}},
	{"spaced", "a keyword's line, then six empty lines, 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, audittext.SpacedKeywords)
	}},
	{"confirm", "downloads offered on the user's confirmation, 8 MiB in 8 files", func() map[string]string {
		return audittext.Tree(8, 1<<20, audittext.Confirmations)
	}},
	{"prompts", "scripts of prompted downloads, 8 MiB in 8 files", func() map[string]string {
		tree := map[string]string{"SKILL.md": audittext.SkillMD}
		for i := range 8 {
			tree[fmt.Sprintf("scripts/%04d.sh", i)] = audittext.PromptedScript(1<<20, uint64(i))
		}
		return tree
	}},
}

// contenders names the contenders, in the order they run: with an
// agentskills binary to run (cli), four; with several, one more for each,
// named by the binary's file name; with an old build of this program
// (old), one more after them.
func contenders(cli []string, old string) []string {
	names := []string{"grep -rE", "audit", "audit, own process"}
	for _, c := range cli {
		if len(cli) == 1 {
			names = append(names, "agentskills audit")
		} else {
			names = append(names, "audit: "+filepath.Base(c))
		}
	}
	if old != "" {
		names = append(names, "audit, old build")
	}
	return names
}

func main() {
	runs := flag.Int("runs", 5, "rounds of each contender")
	only := flag.String("shapes", "", "comma-separated keys of the shapes to measure (default: all; "+keys()+")")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "agentadaptor-auditgrep"), "scratch folder")
	auditDir := flag.String("audit", "", "audit this folder and exit (how the contender in a process of its own runs)")
	cli := flag.String("cli", "", "agentskills binaries, separated by commas, each run as one more contender: agentskills audit DIR (default: none)")
	old := flag.String("old", "", "this program built from another commit, run as one more contender: OLD -audit DIR (default: none)")
	flag.Parse()
	if *auditDir != "" {
		if _, err := audit.Tree(os.DirFS(*auditDir)); err != nil {
			fmt.Fprintln(os.Stderr, "auditgrep:", err)
			os.Exit(1)
		}
		return
	}
	var clis []string
	if *cli != "" {
		clis = strings.Split(*cli, ",")
	}
	if err := run(*runs, *only, *dir, clis, *old); err != nil {
		fmt.Fprintln(os.Stderr, "auditgrep:", err)
		os.Exit(1)
	}
}

func keys() string {
	var k []string
	for _, s := range shapes {
		k = append(k, s.key)
	}
	return strings.Join(k, ",")
}

func run(runs int, only, dir string, cli []string, old string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	want := strings.Split(only, ",")
	for i, sh := range shapes {
		if only != "" && !slices.Contains(want, sh.key) {
			continue
		}
		root := filepath.Join(dir, fmt.Sprint(i))
		if err := writeTree(root, sh.tree()); err != nil {
			return err
		}
		before := loadAverage()
		wall, cpu, err := measure(self, cli, old, root, runs)
		if err != nil {
			return err
		}
		fmt.Printf("%s (%d rounds, load average %s before, %s after):\n", sh.name, runs, before, loadAverage())
		fmt.Printf("  %-20s %12s %12s %14s %14s\n", "contender", "median wall", "median CPU", "wall / grep's", "CPU / grep's")
		for j, name := range contenders(cli, old) {
			wallRatio, cpuRatio := "", "(budget 10x)"
			if j > 0 {
				wallRatio = fmt.Sprintf("%.1fx", float64(benchrun.Median(wall[j]))/float64(max(benchrun.Median(wall[0]), 1)))
				cpuRatio = fmt.Sprintf("%.1fx", float64(benchrun.Median(cpu[j]))/float64(max(benchrun.Median(cpu[0]), 1)))
			}
			fmt.Printf("  %-20s %12s %12s %14s %14s\n", name, benchrun.Median(wall[j]).Round(time.Millisecond/10),
				benchrun.Median(cpu[j]).Round(time.Millisecond/10), wallRatio, cpuRatio)
		}
		if err := os.RemoveAll(root); err != nil {
			return err
		}
	}
	return nil
}

// measure runs the contenders over root, taking turns, and returns each
// one's wall and CPU times, in the order of contenders(cli, old).
func measure(self string, cli []string, old, root string, runs int) (wall, cpu [][]time.Duration, err error) {
	n := len(contenders(cli, old))
	cpu = make([][]time.Duration, n)
	wall, err = benchrun.Rounds(n, runs, func(_, i int) (time.Duration, error) {
		if i == 1 {
			before := cpuTime()
			start := time.Now()
			_, err := audit.Tree(os.DirFS(root))
			d := time.Since(start)
			cpu[1] = append(cpu[1], cpuTime()-before)
			return d, err
		}
		cmd := exec.Command(self, "-audit", root)
		switch {
		case i == 0:
			cmd = exec.Command("grep", "-rE", pattern, root)
		case i >= 3 && i < 3+len(cli):
			cmd = exec.Command(cli[i-3], "audit", root)
		case i == 3+len(cli):
			cmd = exec.Command(old, "-audit", root)
		}
		cmd.Stdout = counter{} // a pipe, as a reader of the output has
		cmd.Stderr = os.Stderr
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if ee, ok := err.(*exec.ExitError); ok && (i == 0 || i >= 3 && i < 3+len(cli)) && ee.ExitCode() == 1 {
			err = nil // grep: no line matched; agentskills: a finding reached --fail-on
		}
		cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		return d, err
	})
	return wall, cpu, err
}

// counter is a writer that is not a file, so that exec gives grep a
// pipe: GNU grep stops at the first match when its output is /dev/null.
type counter struct{}

func (counter) Write(p []byte) (int, error) { return len(p), nil }

var _ io.Writer = counter{}

// cpuTime returns this process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// writeTree writes a tree of files, by slash-separated path, under root.
func writeTree(root string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
