package install

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"
)

// The helper process: installs from the environment's source into its
// project, once or forever (alternating two versions of the source).
func TestMain(m *testing.M) {
	switch os.Getenv("INSTALL_TEST_HELPER") {
	case "add":
		os.Exit(helperAdd(false))
	case "flip":
		os.Exit(helperAdd(true))
	}
	os.Exit(m.Run())
}

func helperEnv() Env {
	return Env{Home: os.Getenv("INSTALL_TEST_HOME"), Project: os.Getenv("INSTALL_TEST_PROJECT"), Getenv: func(string) string { return "" }}
}

func helperAdd(flip bool) int {
	env := helperEnv()
	src := os.Getenv("INSTALL_TEST_SOURCE")
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(filepath.Join(env.Home, ".cache")))
	in := New(env, WithMaterializer(m), WithChecker(nameChecker))
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	for i := 0; ; i++ {
		if flip {
			writeVersion(src, i%2)
		}
		if _, err := in.Add(context.Background(), Request{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if !flip {
			return 0
		}
	}
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
	st, err := in.List(t.Context(), agentsOf(t, "claude-code", "codex"))
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

func TestCrashDuringUpdateLeavesOldOrNew(t *testing.T) {
	f := newFixture(t)
	src := filepath.Join(f.sources, "big")
	writeVersion(src, 0)
	cmd := helper(t, f, "flip", src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it install and update a few times, then kill it mid-flight.
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "big")
	deadline := time.Now().Add(20 * time.Second)
	for {
		stages, _ := filepath.Glob(filepath.Join(f.env.Project, ".agents", "skills", ".big.stage-*", "big", "refs", "*"))
		if _, err := os.Stat(canonical); err == nil && len(stages) > 50 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the helper never staged an update: %s", stderr.String())
		}
		time.Sleep(100 * time.Microsecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
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
	if left, _ := filepath.Glob(filepath.Join(f.env.Project, ".agents", "skills", ".big.*")); len(left) != 0 {
		t.Errorf("staging left after recovery: %v", left)
	}
}
