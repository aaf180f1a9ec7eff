package opencode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestCheckArgs checks which arguments from someone else may be passed
// through (rule 5 of "Arguments").
func TestCheckArgs(t *testing.T) {
	for _, arg := range []string{"--variant=high", "--thinking", "--print-logs"} {
		if err := Descriptor().CheckArgs([]string{arg}); err != nil {
			t.Errorf("CheckArgs(%q) = %v, want nil", arg, err)
		}
	}
	for _, arg := range []string{"-s", "-m", "--", "x", "--format=default", "--dir=/", "--session=ses_x", "--continue", "--fork", "--attach=http://x", "--file=/etc/passwd", "--command=x", "--interactive", "--x=a\x00"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{"--fine", arg}); !errors.As(err, &argErr) || argErr.Arg != arg || argErr.Field != "" {
			t.Errorf("CheckArgs(%q) = %v, want it refused as the driver's own or for its form", arg, err)
		}
	}
	for arg, field := range map[string]string{"--model=x/y": "Model", "--agent=plan": "Agent", "--title=t": "Title", "--auto": "Auto", "--yolo": "Auto", "--dangerously-skip-permissions": "Auto", "--no-auto": "Auto"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{arg}); !errors.Is(err, driver.ErrArgRefused) || !errors.As(err, &argErr) || argErr.Field != field {
			t.Errorf("CheckArgs(%q) = %v, want it refused naming Config.%s", arg, err, field)
		}
	}
}

// TestSessionIDs pins the form of OpenCode's session ids (rule 1 of
// "Arguments"); the real-CLI tests check that runs report ids of it.
func TestSessionIDs(t *testing.T) {
	valid := sessionIDs().Valid
	for _, id := range []string{"ses_dccdfe600ffeZ31TOjnl8nTscL", "ses_0123456789abcdefABCDEFGHIJ"} {
		if !valid(id) {
			t.Errorf("Valid(%q) = false, want true", id)
		}
	}
	for _, id := range []string{"", "ses_", "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "ses_dccdfe600ffeZ31TOjnl8nTsc", "ses_dccdfe600ffeZ31TOjnl8nTscLL", "--session=ses_dccdfe600ffeZ31TOjnl8n", "ses_dccdfe600ffe-31TOjnl8nTscL", "SES_dccdfe600ffeZ31TOjnl8nTscL"} {
		if valid(id) {
			t.Errorf("Valid(%q) = true, want false", id)
		}
	}
	d := Driver(Config{Command: os.Args[0]})
	_, err := d.Run(t.Context(), &driver.Request{Prompt: "x", Resume: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"})
	if !errors.Is(err, driver.ErrInvalidSessionID) || !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), `"ses_"`) {
		t.Errorf("Run with a UUID to resume = %v, want ErrInvalidSessionID saying the form", err)
	}
}

// TestArgs checks the command line: values as --name=value, the title
// only for a new session, the session for a resume, Args last.
func TestArgs(t *testing.T) {
	tests := []struct {
		c      Config
		resume string
		want   []string
	}{
		{Config{}, "", []string{"run", "--format=json", "--dir=/w", "--title=agentadaptor run"}},
		{Config{Model: "--p/m", Agent: "plan", Auto: true, Args: []string{"--thinking"}}, "ses_0123456789abcdefABCDEFGHIJ",
			[]string{"run", "--format=json", "--dir=/w", "--session=ses_0123456789abcdefABCDEFGHIJ", "--model=--p/m", "--agent=plan", "--auto", "--thinking"}},
	}
	for _, tc := range tests {
		d := Driver(tc.c).(*openCodeDriver)
		got, err := d.args(&driver.Request{Resume: tc.resume}, "/w").List()
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("args(%+v) = %q, %v; want %q", tc.c, got, err, tc.want)
		}
	}
}

// skillSet returns a resolved set of one skill in a folder of its own.
func skillSet(t *testing.T, name string) driver.ResolvedSkills {
	dir := filepath.Join(t.TempDir(), name)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: d\n---\nbody\n"), 0o644)
	return driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: name, RuntimeName: name, Path: dir}}, Fingerprint: "fp-" + name}
}

// TestMount checks the mount (rule 1 of "Mounting skills"): skills,
// node_modules/ and the package lock; OpenCode's .gitignore is allowed;
// anything else makes the next run rebuild it.
func TestMount(t *testing.T) {
	root := cachetest.Root(t)
	rs := skillSet(t, "review")
	dir, release, err := mount(t.Context(), root, rs)
	if err != nil {
		t.Fatal(err)
	}
	release()
	names, _ := os.ReadDir(dir)
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	if !slices.Equal(got, []string{"node_modules", "package-lock.json", "skills"}) {
		t.Fatalf("mount holds %q", got)
	}
	if target, err := os.Readlink(filepath.Join(dir, "skills", "review")); err != nil && runtime.GOOS != "windows" || err == nil && target != rs.Entries[0].Path {
		t.Errorf("skills/review = %q, %v; want a link to %s", target, err, rs.Entries[0].Path)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules\n"), 0o644)
	if !mountIntact(t.Context(), dir, rs) {
		t.Error("a mount with OpenCode's .gitignore is not taken as whole")
	}
	os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(`{"plugin":["x"]}`), 0o644)
	if mountIntact(t.Context(), dir, rs) {
		t.Error("a mount with an opencode.json added is taken as whole")
	}
	again, release, err := mount(t.Context(), root, rs)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := os.Lstat(filepath.Join(again, "opencode.json")); err == nil {
		t.Error("the changed mount was used again, not rebuilt")
	}
}

// TestPrepareRefusals checks rule 2 of "Mounting skills" and rule 2 of
// "Checks": a set OPENCODE_CONFIG_DIR, and a missing ripgrep, are refused
// before anything is built.
func TestPrepareRefusals(t *testing.T) {
	home := t.TempDir()
	rgDir := t.TempDir()
	rg := filepath.Join(rgDir, "rg")
	if runtime.GOOS == "windows" {
		rg += ".exe"
	}
	os.WriteFile(rg, []byte("#!/bin/sh\n"), 0o755)
	own := filepath.Join(home, "cache", "opencode", "bin", filepath.Base(rg))
	os.MkdirAll(filepath.Dir(own), 0o755)
	tests := []struct {
		name string
		env  []string
		want string // "" for none
	}{
		{"rg on PATH", []string{"PATH=" + rgDir, "HOME=" + home}, ""},
		{"no rg", []string{"PATH=" + t.TempDir(), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache")}, "ripgrep"},
		{"config dir set", []string{"PATH=" + rgDir, "HOME=" + home, "OPENCODE_CONFIG_DIR=/x"}, "OPENCODE_CONFIG_DIR"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := cachetest.Root(t)
			_, release, err := prepare(t.Context(), root, skillSet(t, "review"), tc.env, t.TempDir())
			if tc.want == "" {
				if err != nil {
					t.Fatalf("prepare = %v", err)
				}
				release()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("prepare = %v, want an error about %s", err, tc.want)
			}
			var nf *driver.ProgramNotFoundError
			if tc.want == "ripgrep" && (!errors.Is(err, driver.ErrProgramNotFound) || !errors.As(err, &nf) || nf.Field != "opencode.Config.Env" || !strings.Contains(err.Error(), "put rg on the PATH of opencode.Config.Env")) {
				t.Errorf("prepare = %v, want ErrProgramNotFound naming opencode.Config.Env in its Field and its message", err)
			}
			if _, err := os.Stat(filepath.Join(root, "mounts", "opencode")); err == nil {
				t.Error("the refused run built a mount")
			}
		})
	}
	// OpenCode's own copy counts.
	os.WriteFile(own, []byte("x"), 0o755)
	if err := checkRipgrep([]string{"PATH=" + t.TempDir(), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache")}); err != nil {
		t.Errorf("checkRipgrep with OpenCode's copy = %v", err)
	}
}

// TestFirstRun checks rule 5 of "Checks": without a database first runs
// hold the lock in turn; with one, none is taken.
func TestFirstRun(t *testing.T) {
	root, data := cachetest.Root(t), t.TempDir()
	env := []string{"XDG_DATA_HOME=" + data}
	unlock, err := firstRun(t.Context(), root, env)
	if err != nil {
		t.Fatal(err)
	}
	locks, _ := filepath.Glob(filepath.Join(root, "mounts", "opencode", "first-run-*.lock"))
	if len(locks) != 1 {
		t.Fatalf("lock files %q, want one", locks)
	}
	f, err := os.OpenFile(locks[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := filelock.TryLock(f); err == nil {
		t.Error("the first run's lock could be taken by another")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := firstRun(ctx, root, env); !errors.Is(err, context.Canceled) {
		t.Errorf("a second first run with a done context = %v, want context.Canceled", err)
	}
	unlock()
	if err := filelock.TryLock(f); err != nil {
		t.Errorf("the lock after the first run = %v, want it free", err)
	}
	os.MkdirAll(filepath.Join(data, "opencode"), 0o755)
	os.WriteFile(filepath.Join(data, "opencode", "opencode.db"), nil, 0o644)
	if unlock, err := firstRun(ctx, root, env); err != nil {
		t.Errorf("a run with a database = %v, want no wait", err)
	} else {
		unlock()
	}
}
