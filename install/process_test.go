package install

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// The helper process: installs from the environment's source into its
// project, once or forever (alternating two versions of the source).
func TestMain(m *testing.M) {
	switch os.Getenv("INSTALL_TEST_HELPER") {
	case "add":
		os.Exit(helperAdd(false))
	case "flip":
		os.Exit(helperAdd(true))
	case "interruptible":
		os.Exit(helperInterruptible())
	case "remove":
		os.Exit(helperRemove())
	}
	os.Exit(testroot.Main(m))
}

func helperEnv() Env {
	return Env{Home: os.Getenv("INSTALL_TEST_HOME"), Project: os.Getenv("INSTALL_TEST_PROJECT"), Getenv: func(string) string { return "" }}
}

func helperAdd(flip bool) int {
	env := helperEnv()
	src := os.Getenv("INSTALL_TEST_SOURCE")
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(env.Home, ".cache")))
	in := New(env, WithCache(c), withChecker(nameChecker), WithLockDir(filepath.Join(env.Home, ".locks")))
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	for i := 0; ; i++ {
		if flip {
			writeVersion(src, i%2)
		}
		if _, err := in.Add(context.Background(), AddRequest{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if !flip {
			return 0
		}
		in.staging = haltAt(stagedBeforeHalt)
	}
}

// stagedBeforeHalt is how many files of the update the flip helper
// stages before it halts, of the 201 of [writeVersion].
const stagedBeforeHalt = 100

// haltAt returns a staging hook that, as the n+1st file is opened,
// writes "halted" to stdout and blocks, with every later opening, until
// stdin closes: the process halts in the middle of staging an update,
// for the test to kill it there.
func haltAt(n int) func(string) {
	var opened atomic.Int64
	var once sync.Once
	return func(string) {
		if opened.Add(1) <= int64(n) {
			return
		}
		once.Do(func() { fmt.Println("halted") })
		io.Copy(io.Discard, os.Stdin)
	}
}

// helperInterruptible installs every skill of its source, as copies, and
// stops on SIGINT as the command line does: exit 130 when interrupted. It
// sends itself SIGINT once the first skill is in place (see
// [interruptAfter]).
func helperInterruptible() int {
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	env := helperEnv()
	ctx := &interruptAfter{Context: sig, path: filepath.Join(env.Project, ".agents", "skills", "s000")}
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(env.Home, ".cache")))
	in := New(env, WithCache(c), withChecker(nameChecker), WithLockDir(filepath.Join(env.Home, ".locks")))
	claude, _ := LookupAgent("claude-code")
	windsurf, _ := LookupAgent("windsurf")
	fmt.Println("resolving")
	_, err := in.Add(ctx, AddRequest{Sources: []string{os.Getenv("INSTALL_TEST_SOURCE")}, Agents: []Agent{claude, windsurf}, Copy: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.Is(err, ErrInterrupted) {
			return 130
		}
		return 1
	}
	return 0
}

// interruptAfter is the context of an install that interrupts itself:
// the first check of its error after the file path exists sends the
// process SIGINT and waits for the signal to end the context, so the
// install stops at the check after its first skill, with no clock
// involved.
type interruptAfter struct {
	context.Context
	path string
	sent atomic.Bool // the file exists: SIGINT was sent, or could not be
	wait atomic.Bool // SIGINT was sent: wait for it
}

func (c *interruptAfter) Err() error {
	if !c.sent.Load() {
		if _, err := os.Stat(c.path); err == nil && c.sent.CompareAndSwap(false, true) {
			p, _ := os.FindProcess(os.Getpid())
			c.wait.Store(p.Signal(os.Interrupt) == nil)
		}
	}
	if c.wait.Load() {
		<-c.Done()
	}
	return c.Context.Err()
}

// helperRemove removes the skill named by the source.
func helperRemove() int {
	env := helperEnv()
	in := New(env, withChecker(nameChecker), WithLockDir(filepath.Join(env.Home, ".locks")))
	if _, err := in.Remove(context.Background(), RemoveRequest{Names: []string{os.Getenv("INSTALL_TEST_SOURCE")}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writeVersion writes version v of a 200-file skill, every file of which
// names the version.
func writeVersion(dir string, v int) {
	os.MkdirAll(filepath.Join(dir, "refs"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("big")+fmt.Sprintf("version %d\n", v)), 0o644)
	for i := range 200 {
		os.WriteFile(filepath.Join(dir, "refs", fmt.Sprintf("r%03d.md", i)), []byte(fmt.Sprintf("version %d\n", v)), 0o644)
	}
}

func helper(t *testing.T, f *fixture, mode, src string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "INSTALL_TEST_HELPER="+mode, "INSTALL_TEST_HOME="+f.env.Home,
		"INSTALL_TEST_PROJECT="+f.env.Project, "INSTALL_TEST_SOURCE="+src)
	return cmd
}

func TestConcurrentAddProcesses(t *testing.T) {
	f := newFixture(t)
	a := f.writeSkill(t, "a", "alpha", "")
	b := f.writeSkill(t, "b", "beta", "")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, src := range []string{a, b, a, b} {
		cmd := helper(t, f, "add", src)
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v: %s", i, err, outs[i])
		}
	}
	in := f.installer(t)
	st, err := in.List(t.Context(), ListRequest{Agents: agentsOf(t, "claude-code", "codex")})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 4 {
		t.Errorf("List = %+v, want alpha and beta for two agents", st)
	}
	for _, s := range st {
		if s.State != StateInstalled {
			t.Errorf("%s/%s is %s after concurrent adds", s.Skill, s.Agent, s.State)
		}
	}
}

// The staging hook the crash test halts in sees every file of a skill
// as it is staged, and nothing else.
func TestStagingHookSeesEachFile(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "a", "alpha", "")
	in := f.installer(t)
	var mu sync.Mutex
	var seen []string
	in.staging = func(name string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, name)
	}
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if want := []string{"SKILL.md", "scripts/run.sh"}; !slices.Equal(seen, want) {
		t.Errorf("staging opened %q, want %q", seen, want)
	}
}

func TestCrashDuringUpdateLeavesOldOrNew(t *testing.T) {
	f := newFixture(t)
	src := filepath.Join(f.sources, "big")
	writeVersion(src, 0)
	cmd := helper(t, f, "flip", src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it install, then kill it halfway through staging the update
	// (see haltAt).
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "halted\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the helper never halted in an update (%q, %v): %s", line, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "big")
	staged, _ := filepath.Glob(filepath.Join(f.env.Project, ".agents", "skills", ".*.stage-*", "big", "refs", "*"))
	if len(staged) == 0 || len(staged) >= 200 {
		t.Errorf("killed with %d files of the update staged, want some but not all", len(staged))
	}
	// The canonical copy is wholly one version.
	versions := map[string]int{}
	filepath.WalkDir(canonical, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			versions[strings.TrimSpace(string(b[strings.LastIndex(string(b[:len(b)-1]), "\n")+1:]))]++
		}
		return nil
	})
	if len(versions) != 1 {
		t.Fatalf("after a crash the canonical copy mixes versions: %v", versions)
	}
	for v, n := range versions {
		if n != 201 {
			t.Errorf("after a crash the canonical copy has %d files of %s, want 201", n, v)
		}
	}
	// The next run recovers.
	in := f.installer(t)
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
		t.Errorf("Verify after recovery = %+v, %v", bad, err)
	}
	if left, _ := filepath.Glob(filepath.Join(f.env.Project, ".agents", "skills", ".*")); len(left) != 0 {
		t.Errorf("staging left after recovery: %v", left)
	}
}

// checkAgrees fails unless the lock file and the folders agree: every
// recorded skill is installed as recorded, nothing is marked unfinished,
// and every canonical folder is recorded.
func checkAgrees(t *testing.T, f *fixture) int {
	t.Helper()
	in := f.installer(t)
	lock, err := in.readCheckedLock()
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Unfinished) != 0 {
		t.Errorf("the lock file marks unfinished work: %v", lock.Unfinished)
	}
	entries, _ := os.ReadDir(filepath.Join(f.env.Project, ".agents", "skills"))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && lock.Skills[e.Name()] == nil {
			t.Errorf("%s is in place but not recorded", e.Name())
		}
	}
	if len(lock.Skills) > 0 {
		bad, err := in.Verify(t.Context())
		if err != nil || len(bad) != 0 {
			t.Errorf("Verify = %d differences (%+v), %v", len(bad), bad[:min(len(bad), 3)], err)
		}
	}
	return len(lock.Skills)
}

func TestInterruptedAddLeavesLockAndFoldersAgreeing(t *testing.T) {
	f := newFixture(t)
	const n = 250
	for i := range n {
		f.writeSkill(t, fmt.Sprintf("kit/s%03d", i), fmt.Sprintf("s%03d", i), "")
	}
	cmd := helper(t, f, "interruptible", filepath.Join(f.sources, "kit"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper interrupts itself once the first skill is in place.
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("interrupted helper = %v, want exit 130: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "run the command again to finish") {
		t.Errorf("stderr = %q, want what was done and how to finish", stderr.String())
	}
	if got := checkAgrees(t, f); got == 0 || got == n {
		t.Errorf("%d of %d skills recorded after the interruption; the test wants it midway", got, n)
	}
	// Running again finishes.
	if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "claude-code", "windsurf"), Copy: true}); err != nil {
		t.Fatal(err)
	}
	if got := checkAgrees(t, f); got != n {
		t.Errorf("%d skills recorded after running again, want %d", got, n)
	}
}

func TestKilledRemoveNeverLeavesHalfASkill(t *testing.T) {
	f := newFixture(t)
	src := filepath.Join(f.sources, "big")
	os.MkdirAll(filepath.Join(src, "refs"), 0o755)
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("big")), 0o644)
	const files = 4000
	for i := range files {
		os.WriteFile(filepath.Join(src, "refs", fmt.Sprintf("r%04d.md", i)), []byte("x"), 0o644)
	}
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "big")
	cmd := helper(t, f, "remove", "big")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it as soon as any file of the skill is gone.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(canonical, "refs", "r0000.md")); err != nil {
			break
		}
		if _, err := os.Stat(filepath.Join(canonical, "refs", fmt.Sprintf("r%04d.md", files-1))); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper never removed anything")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(canonical); err == nil {
		left, _ := os.ReadDir(filepath.Join(canonical, "refs"))
		if len(left) != files {
			t.Fatalf("a killed remove left half a skill: %d of %d files", len(left), files)
		}
	}
	// The next run sweeps what is left aside and settles the removal.
	changes, err := in.Sync(t.Context(), SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(f.env.Project, ".agents", "skills", ".*")); len(left) != 0 {
		t.Errorf("left aside after the next run: %v", left)
	}
	if _, err := os.Stat(canonical); err == nil {
		t.Errorf("the removal was rolled back: %v", actions(changes))
	}
	checkAgrees(t, f)
}
