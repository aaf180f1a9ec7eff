package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// subprocessEnv, set to the name of a test, makes the test binary run that
// test as the child process [inSubprocess] starts.
const subprocessEnv = "PROCESS_TEST_SUBPROCESS"

// inSubprocess reports whether the test runs in a child process of the
// test binary. When it does not, it runs the test alone in such a process,
// with extra added to the environment, fails the test if that run fails,
// and returns false. Tests that change process-wide attributes run there,
// so that the other tests are unaffected.
func inSubprocess(t *testing.T, extra ...string) bool {
	t.Helper()
	if os.Getenv(subprocessEnv) == t.Name() {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), append(extra, subprocessEnv+"="+t.Name())...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in a child process: %v\n%s", t.Name(), err, out)
	}
	return false
}

// ourChild reports whether process pid is a child of this process, alive
// or a zombie not yet reaped.
func ourChild(pid int) bool {
	ppid, _, err := stat(pid)
	return err == nil && ppid == os.Getpid()
}

// threads returns the number of threads of this process.
func threads(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// endIdleThreads makes the Go runtime end more threads than this process
// has: goroutines that exit while locked to their thread take it with
// them, and each of these is locked to a thread of its own at once.
func endIdleThreads(t *testing.T) {
	n := threads(t) + 8
	var locked, exited sync.WaitGroup
	locked.Add(n)
	release := make(chan struct{})
	for range n {
		exited.Go(func() {
			runtime.LockOSThread()
			locked.Done()
			<-release
		})
	}
	locked.Wait()
	close(release)
	exited.Wait()
}

// TestRule10DiesWithRunner kills, with SIGKILL, a process in the middle of
// Run: the program, and the child it started in its group, die with it.
// Before that, threads of that process have ended, which must not kill
// the program.
func TestRule10DiesWithRunner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if os.Getenv(subprocessEnv) == t.Name() {
		// The runner: it runs a program that starts a child, prints its
		// pid and sleeps, ends idle threads, and writes the program's pid
		// to the file ready once the program is seen alive after that.
		dir := os.Getenv("PROCESS_TEST_DIR")
		c := child(t, "spawn:"+filepath.Join(dir, "child"), "sleep:10m", "--", "pgid", "sleep:10m")
		Run(context.Background(), c, func(b []byte) error {
			var pid int
			fmt.Sscan(string(b), &pid)
			endIdleThreads(t)
			if gone(pid) {
				t.Errorf("the program %d died when threads of the runner ended", pid)
				return errors.New("program died")
			}
			writePid(filepath.Join(dir, "ready"), pid)
			return nil
		})
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runner := exec.CommandContext(t.Context(), exe, "-test.run=^"+t.Name()+"$", "-test.count=1")
	runner.Env = append(os.Environ(), subprocessEnv+"="+t.Name(), "PROCESS_TEST_DIR="+dir)
	var out strings.Builder
	runner.Stdout, runner.Stderr = &out, &out
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- runner.Wait() }()
	ready := filepath.Join(dir, "ready")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the runner exited before its program was ready: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			runner.Process.Kill()
			t.Fatalf("the runner's program was not ready after 60s\n%s", out.String())
		}
	}
	pids := []int{readPid(t, ready), readPid(t, filepath.Join(dir, "child"))}
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	for _, pid := range pids {
		if gone(pid) {
			t.Fatalf("process %d died before its runner was killed", pid)
		}
	}
	runner.Process.Kill()
	<-exited
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

// TestRule11Orphans runs in a child process that is a child subreaper: the
// orphans of a run are stopped and reaped when it ends, even without the
// tag, and nothing else is touched.
func TestRule11Orphans(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	if err := AdoptOrphans(); err != nil {
		t.Fatal(err)
	}
	if !adopting() {
		t.Fatal("after AdoptOrphans, the process is not a child subreaper")
	}

	t.Run("untagged orphan", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "orphan")
		c := child(t, "tick", "detach:"+pidfile, "sleep:10m", "--", "out:ready\n", "exit:0")
		var during bool
		if _, err := Run(t.Context(), c, func([]byte) error {
			during = ourChild(readPid(t, pidfile))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		pid := readPid(t, pidfile)
		t.Cleanup(func() { reap(pid) })
		if !during {
			t.Fatalf("test setup: the orphan %d was not reparented to this process during the run", pid)
		}
		if ourChild(pid) {
			t.Errorf("the orphan %d is still a child of this process after Run", pid)
		}
	})

	t.Run("orphan that exited is reaped", func(t *testing.T) {
		dir := t.TempDir()
		pidfile, done := filepath.Join(dir, "orphan"), filepath.Join(dir, "done")
		c := child(t, "tick", "detach:"+pidfile, "touch:"+done, "exit:0", "--", "await:"+done, "exit:0")
		if _, err := Run(t.Context(), c, nil); err != nil {
			t.Fatal(err)
		}
		pid := readPid(t, pidfile)
		t.Cleanup(func() { reap(pid) })
		if ourChild(pid) {
			t.Errorf("the orphan %d is a zombie of this process after Run", pid)
		}
	})

	t.Run("other processes are left alone", func(t *testing.T) {
		dir := t.TempDir()
		// A child of this process started before the run, one started
		// during it, and an orphan of this process from before it.
		before := startSleep(t)
		oldOrphan := filepath.Join(dir, "old")
		detached := child(t, "escape:"+oldOrphan, "sleep:10m", "--")
		cmd := exec.Command(detached.Path, detached.Args...)
		cmd.Env = detached.Env
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		old := readPid(t, oldOrphan)
		t.Cleanup(func() { reap(old) })
		nextTick(t, old)
		var during *exec.Cmd
		pidfile := filepath.Join(dir, "orphan")
		c := child(t, "tick", "detach:"+pidfile, "sleep:10m", "--", "out:ready\n", "exit:0")
		if _, err := Run(t.Context(), c, func([]byte) error {
			during = startSleep(t)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		pid := readPid(t, pidfile)
		t.Cleanup(func() { reap(pid) })
		if ourChild(pid) {
			t.Errorf("the run's orphan %d is still a child of this process after Run", pid)
		}
		for _, p := range []struct {
			name string
			pid  int
		}{
			{"a child started before the run", before.Process.Pid},
			{"a child started during the run", during.Process.Pid},
			{"an orphan from before the run", old},
		} {
			if !ourChild(p.pid) || gone(p.pid) {
				t.Errorf("%s (%d) was stopped", p.name, p.pid)
			}
		}
	})

	t.Run("concurrent runs", func(t *testing.T) {
		// Run A detaches its orphan, then run B starts and detaches its
		// own, then A ends: A's orphan dies, B's lives until B ends.
		dir := t.TempDir()
		fileA, fileB, proceed := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "proceed")
		readyA := make(chan struct{})
		doneA := make(chan error, 1)
		go func() {
			c := child(t, "tick", "detach:"+fileA, "sleep:10m", "--", "out:ready\n", "await:"+proceed, "exit:0")
			_, err := Run(t.Context(), c, func([]byte) error { close(readyA); return nil })
			doneA <- err
		}()
		<-readyA
		orphanA := readPid(t, fileA)
		t.Cleanup(func() { reap(orphanA) })
		// Start times count clock ticks: B must start a tick later.
		nextTick(t, orphanA)
		b := startRun(t, child(t, "tick", "detach:"+fileB, "sleep:10m", "--", "out:ready\n", "sleep:10m"))
		orphanB := readPid(t, fileB)
		t.Cleanup(func() { reap(orphanB) })
		if err := os.WriteFile(proceed, nil, 0o666); err != nil {
			t.Fatal(err)
		}
		if err := <-doneA; err != nil {
			t.Fatal(err)
		}
		if ourChild(orphanA) {
			t.Errorf("the orphan %d of the run that ended is still a child of this process", orphanA)
		}
		if !ourChild(orphanB) || gone(orphanB) {
			t.Errorf("the orphan %d of the run still running was stopped", orphanB)
		}
		b.stop(t)
		if ourChild(orphanB) {
			t.Errorf("the orphan %d is still a child of this process after its run", orphanB)
		}
	})

	t.Run("orphan that may be another run's", func(t *testing.T) {
		// Run B starts first; run A's orphan starts after it, so it may
		// be B's: it is left to B, and dies when B ends.
		dir := t.TempDir()
		fileA, fileB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		b := startRun(t, child(t, "tick", "detach:"+fileB, "sleep:10m", "--", "out:ready\n", "sleep:10m"))
		orphanB := readPid(t, fileB)
		t.Cleanup(func() { reap(orphanB) })
		if _, err := Run(t.Context(), child(t, "tick", "detach:"+fileA, "sleep:10m", "--", "out:ready\n", "exit:0"), nil); err != nil {
			t.Fatal(err)
		}
		orphanA := readPid(t, fileA)
		t.Cleanup(func() { reap(orphanA) })
		for _, pid := range []int{orphanA, orphanB} {
			if !ourChild(pid) || gone(pid) {
				t.Errorf("the orphan %d, started while the other run runs, was stopped", pid)
			}
		}
		b.stop(t)
		for _, pid := range []int{orphanA, orphanB} {
			if ourChild(pid) {
				t.Errorf("the orphan %d is still a child of this process after the last run", pid)
			}
		}
	})
}

// nextTick waits until the clock tick in which process pid started is
// over, so that a process started then starts later by /proc's count.
func nextTick(t *testing.T, pid int) {
	t.Helper()
	_, start, err := stat(pid)
	if err != nil {
		t.Fatal(err)
	}
	for {
		var now unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &now); err != nil {
			t.Fatal(err)
		}
		// /proc counts start times in USER_HZ ticks of the boot-time clock: 100 a second.
		if uint64(now.Nano()/1e7) > start {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// backgroundRun is a Run in progress on another goroutine.
type backgroundRun struct {
	cancel context.CancelFunc
	done   chan error
}

// startRun starts Run of c on another goroutine and returns once the
// program has printed a line.
func startRun(t *testing.T, c Command) *backgroundRun {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	c.Grace = 100 * time.Millisecond
	ready := make(chan struct{})
	b := &backgroundRun{cancel: cancel, done: make(chan error, 1)}
	go func() {
		var once sync.Once
		_, err := Run(ctx, c, func([]byte) error { once.Do(func() { close(ready) }); return nil })
		b.done <- err
	}()
	select {
	case <-ready:
	case err := <-b.done:
		t.Fatalf("the run ended before its program printed a line: %v", err)
	}
	return b
}

// stop cancels the run and waits for Run to return.
func (b *backgroundRun) stop(t *testing.T) {
	b.cancel()
	if err := <-b.done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled run = %v, want context.Canceled", err)
	}
}

// startSleep starts a child process that sleeps, killed and reaped when the
// test ends.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// reap kills and reaps process pid if it is still a child of this one.
func reap(pid int) {
	if ourChild(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
}

// TestOrphansOf checks which children of the process rule 11 takes for
// the orphans of a run.
func TestOrphansOf(t *testing.T) {
	t.Parallel()
	const (
		prog  = 100
		since = 5000
		tag   = tagVar + "=OURS"
	)
	env := func(kv ...string) []byte { return []byte(strings.Join(kv, "\x00") + "\x00") }
	other := kid{pid: 200, start: 6000, env: env("A=1", tagVar+"=THEIRS")}
	tests := []struct {
		name string
		kids []kid
		held []int
		want []int
	}{
		{
			name: "untagged orphan of the run",
			kids: []kid{{pid: prog, start: since, env: env(tag)}, {pid: 101, start: since + 1, env: env("A=1")}},
			held: []int{prog},
			want: []int{101},
		},
		{name: "zombie, no environment", kids: []kid{{pid: 101, start: since + 1}}, want: []int{101}},
		{name: "started in the same tick as the program", kids: []kid{{pid: 101, start: since}}},
		{name: "the run's tag, same tick", kids: []kid{{pid: 101, start: since, env: env(tag)}}, want: []int{101}},
		{name: "started before the run", kids: []kid{{pid: 101, start: since - 1}}},
		{name: "a child started by os/exec", kids: []kid{{pid: 101, start: since + 1}}, held: []int{101}},
		{name: "the program", kids: []kid{{pid: prog, start: since}}},
		{name: "another run's tag", kids: []kid{{pid: 101, start: since + 1, env: env(tagVar + "=THEIRS")}}},
		{
			name: "untagged, started after another run began",
			kids: []kid{other, {pid: 101, start: 6000}, {pid: 102, start: 5999}},
			held: []int{200},
			want: []int{102},
		},
		{
			name: "the run's tag, after another run began",
			kids: []kid{other, {pid: 101, start: 7000, env: env(tag)}},
			held: []int{200},
			want: []int{101},
		},
		{
			name: "another run whose program exited",
			kids: []kid{{pid: 200, start: 6000}, {pid: 101, start: 7000}},
			held: []int{200},
			want: []int{101},
		},
		{
			name: "a tagged child not started by os/exec is no run",
			kids: []kid{{pid: 200, start: 6000, env: env(tagVar + "=THEIRS")}, {pid: 101, start: 7000}},
			want: []int{101},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held := map[int]bool{}
			for _, p := range tt.held {
				held[p] = true
			}
			var got []int
			for _, k := range orphansOf(tt.kids, held, prog, since, tag) {
				got = append(got, k.pid)
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("orphansOf(%v) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

// TestHeldPids checks that a child started by os/exec is found among the
// pids this process holds a pidfd for, which rule 11 relies on.
func TestHeldPids(t *testing.T) {
	t.Parallel()
	cmd := startSleep(t)
	if !heldPids()[cmd.Process.Pid] {
		t.Errorf("heldPids() lacks the child %d started by os/exec", cmd.Process.Pid)
	}
	if pid := os.Getpid(); heldPids()[pid] {
		t.Errorf("heldPids() holds this process %d", pid)
	}
	if _, start, err := stat(cmd.Process.Pid); err != nil || start == 0 {
		t.Errorf("stat(%d) = start %d, %v; want a start time", cmd.Process.Pid, start, err)
	}
}
