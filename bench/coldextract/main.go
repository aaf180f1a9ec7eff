//go:build linux

// Command coldextract compares, side by side in one run, the time and
// the CPU time of `tar -xzf` into an empty folder with those of a cold
// materialization of the same tar.gz skill into an empty cache root, and
// the time of a warm one into the same root.
//
//	go -C bench run ./coldextract [-files 2000] [-size 64MiB] [-runs 7]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/agentadaptor/agentadaptor/bench/internal/benchrun"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

func main() {
	files := flag.Int("files", 2000, "files in the archive")
	size := flag.Int64("size", 64<<20, "bytes of text in the archive")
	runs := flag.Int("runs", 7, "runs of each contender")
	dir := flag.String("dir", "", "scratch folder (default: a new temp folder)")
	flag.Parse()
	if err := run(*files, *size, *runs, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "coldextract:", err)
		os.Exit(1)
	}
}

// timings are the times of each contender, a run each, and the CPU
// time of tar -xzf (with its gzip) and of the cold materialization,
// which the load of a shared machine moves less than the wall time.
type timings struct {
	tar, cold, warm []time.Duration
	tarCPU, coldCPU []time.Duration
}

func run(files int, size int64, runs int, scratch string) error {
	if _, err := exec.LookPath("tar"); err != nil {
		return fmt.Errorf("tar is not installed: %w", err)
	}
	if scratch == "" {
		d, err := os.MkdirTemp("", "coldextract-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		scratch = d
	}
	archive := filepath.Join(scratch, "bench.tar.gz")
	if err := makeArchive(archive, files, size); err != nil {
		return err
	}
	info, _ := os.Stat(archive)
	fmt.Printf("archive: %d files, %.1f MiB of text, %.1f MiB compressed; %d runs each, GOMAXPROCS=%d\n",
		files, float64(size)/(1<<20), float64(info.Size())/(1<<20), runs, runtime.GOMAXPROCS(0))

	var t timings
	for i := range runs {
		if err := t.round(context.Background(), archive, scratch, i); err != nil {
			return err
		}
	}
	t.report()
	return nil
}

// makeArchive writes a tar.gz of files files holding size bytes of text
// in all to path.
func makeArchive(path string, files int, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := testarchive.TarGz(f, files, size); err != nil {
		return err
	}
	return f.Close()
}

// round times the i-th run of each contender, each into a folder of its
// own under scratch, and removes those folders.
func (t *timings) round(ctx context.Context, archive, scratch string, i int) error {
	out := filepath.Join(scratch, fmt.Sprintf("tar-%d", i))
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	root := filepath.Join(scratch, fmt.Sprintf("cache-%d", i))
	runTar := func() error { return t.untar(archive, out) }
	runCold := func() error { return t.materialize(ctx, archive, root) }
	// Alternate which goes first, so neither always inherits the
	// other's write-back.
	first, second := runTar, runCold
	if i%2 == 1 {
		first, second = runCold, runTar
	}
	if err := first(); err != nil {
		return err
	}
	if err := second(); err != nil {
		return err
	}
	os.RemoveAll(out)
	os.RemoveAll(root)
	return nil
}

// untar times tar -xzf of archive into the folder out.
func (t *timings) untar(archive, out string) error {
	settle()
	cpu := cpuTime(syscall.RUSAGE_CHILDREN)
	start := time.Now()
	if b, err := exec.Command("tar", "-xzf", archive, "-C", out).CombinedOutput(); err != nil {
		return fmt.Errorf("tar: %v: %s", err, b)
	}
	t.tar = append(t.tar, time.Since(start))
	t.tarCPU = append(t.tarCPU, cpuTime(syscall.RUSAGE_CHILDREN)-cpu)
	return nil
}

// materialize times a materialization of archive into the empty cache
// root, then another of the same archive into the now warm one.
func (t *timings) materialize(ctx context.Context, archive, root string) error {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root))
	s := skill.Archive("bench", skill.ArchiveFile(archive))
	settle()
	cpu := cpuTime(syscall.RUSAGE_SELF)
	start := time.Now()
	if _, err := m.Materialize(ctx, s); err != nil {
		return err
	}
	t.cold = append(t.cold, time.Since(start))
	t.coldCPU = append(t.coldCPU, cpuTime(syscall.RUSAGE_SELF)-cpu)
	start = time.Now()
	if _, err := m.Materialize(ctx, s); err != nil {
		return err
	}
	t.warm = append(t.warm, time.Since(start))
	return nil
}

// report prints the medians, their ratios, the CPU times and the peak
// memory.
func (t *timings) report() {
	tr, c, w := benchrun.Median(t.tar), benchrun.Median(t.cold), benchrun.Median(t.warm)
	fmt.Printf("%-28s %10s\n", "contender", "median")
	fmt.Printf("%-28s %10s\n", "tar -xzf", tr.Round(time.Millisecond))
	fmt.Printf("%-28s %10s\n", "materialize, cold cache", c.Round(time.Millisecond))
	fmt.Printf("%-28s %10s\n", "materialize, warm cache", w.Round(100*time.Microsecond))
	fmt.Printf("cold / tar -xzf = %.2fx (goal <= 0.75x)\n", float64(c)/float64(tr))
	tc, cc := benchrun.Median(t.tarCPU), benchrun.Median(t.coldCPU)
	fmt.Printf("CPU time: tar -xzf %s, cold %s (%.2fx)\n", tc.Round(time.Millisecond), cc.Round(time.Millisecond), float64(cc)/float64(tc))
	fmt.Printf("warm / cold     = %.3fx (goal <= 0.1x)\n", float64(w)/float64(c))
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		fmt.Printf("peak RSS of this process (archive generation included): %d MiB\n", ru.Maxrss/1024)
	}
}

// cpuTime returns the user and system CPU time of who: this process
// (its threads), or its children that have been waited for.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// settle flushes dirty pages so that each contender starts from the same
// state of the disk cache.
func settle() {
	syscall.Sync()
	runtime.GC()
}
