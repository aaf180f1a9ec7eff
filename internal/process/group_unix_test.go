//go:build unix

package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gone reports whether the process pid has died: it no longer exists, or it
// is a zombie waiting for its parent (or init) to reap it.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// waitGone fails the test unless pid dies soon; SIGKILL has been sent, but
// the process may take a moment to die on a loaded machine.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !gone(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d is alive after Run returned", pid)
			return
		}
	}
}

// TestRule1OwnGroup checks that the program leads a process group of its own.
func TestRule1OwnGroup(t *testing.T) {
	t.Parallel()
	lines, _, err := collect(t.Context(), child(t, "pgid"))
	if err != nil || len(lines) != 1 {
		t.Fatalf("Run(pgid) = %q, %v", lines, err)
	}
	var pid, pgid int
	if _, err := fmt.Sscan(lines[0], &pid, &pgid); err != nil {
		t.Fatalf("Run(pgid) printed %q: %v", lines[0], err)
	}
	if pgid != pid || pgid == syscall.Getpgrp() {
		t.Errorf("program %d runs in group %d, want its own group (the test runs in %d)", pid, pgid, syscall.Getpgrp())
	}
}

// TestRule2Interrupt checks that cancellation sends SIGINT to the whole
// group: with a long grace period, the program and its child both see it.
func TestRule2Interrupt(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "grandchild")
	c := child(t,
		"spawn:"+pidfile, "trapint:0", "out:grandchild ready\n", "sleep:10m", "--",
		"trapwait:130", "out:ready\n", "sleep:10m")
	c.Grace = time.Minute
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := 0
	exit, err := Run(ctx, c, func(b []byte) error {
		if strings.HasSuffix(string(b), "ready") {
			if ready++; ready == 2 {
				cancel()
			}
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run error = %v, want context.Canceled", err)
	}
	if exit.Code != 130 || exit.Signal != "" {
		t.Errorf("Run = code %d, signal %q; want code 130 from the SIGINT handler", exit.Code, exit.Signal)
	}
	if n := strings.Count(exit.Stderr, "got interrupt"); n != 2 {
		t.Errorf("Run stderr = %q, want 2 processes reporting SIGINT", exit.Stderr)
	}
	waitGone(t, readPid(t, pidfile))
}

// TestRule2Kill checks that a group ignoring SIGINT gets SIGKILL after the
// grace period.
func TestRule2Kill(t *testing.T) {
	t.Parallel()
	const grace = 200 * time.Millisecond
	pidfile := filepath.Join(t.TempDir(), "grandchild")
	c := child(t,
		"ignoreint", "spawn:"+pidfile, "ignoreint", "out:grandchild ready\n", "sleep:10m", "--",
		"out:ready\n", "sleep:10m")
	c.Grace = grace
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := 0
	var cancelled time.Time
	exit, err := Run(ctx, c, func(b []byte) error {
		if strings.HasSuffix(string(b), "ready") {
			if ready++; ready == 2 {
				cancelled = time.Now()
				cancel()
			}
		}
		return nil
	})
	took := time.Since(cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run error = %v, want context.Canceled", err)
	}
	if exit.Code != -1 || exit.Signal != "killed" {
		t.Errorf("Run = code %d, signal %q; want -1, killed", exit.Code, exit.Signal)
	}
	if took < grace {
		t.Errorf("Run returned %v after cancellation, before the grace period of %v", took, grace)
	}
	waitGone(t, readPid(t, pidfile))
}

// TestRule3NoSurvivor checks that no process of the group outlives Run,
// however the program ends, and that one holding standard output open does
// not keep Run waiting.
func TestRule3NoSurvivor(t *testing.T) {
	t.Parallel()
	sh, shErr := exec.LookPath("sh")
	tests := []struct {
		name string
		// command returns the program, which writes the pid of a
		// background process to pidfile, prints "ready", and exits only
		// once the file proceed exists (or is stopped).
		command func(t *testing.T, pidfile, proceed string) Command
		stop    string // what the line callback does on "ready": "", "cancel" or "error"
		code    int
	}{
		{
			name: "normal exit",
			command: func(t *testing.T, pidfile, proceed string) Command {
				return child(t, "spawn:"+pidfile, "sleep:10m", "--", "out:ready\n", "await:"+proceed, "exit:0")
			},
		},
		{
			name: "shell background job",
			command: func(t *testing.T, pidfile, proceed string) Command {
				if shErr != nil {
					t.Skip(shErr)
				}
				script := fmt.Sprintf(`sleep 600 & echo $! >%[1]s.tmp && mv %[1]s.tmp %[1]s; echo ready
					while [ ! -e %[2]s ]; do sleep 0.05; done`, pidfile, proceed)
				return Command{Path: sh, Args: []string{"-c", script}}
			},
		},
		{
			name: "exit on SIGINT, child ignores it",
			command: func(t *testing.T, pidfile, _ string) Command {
				return child(t, "spawn:"+pidfile, "ignoreint", "sleep:10m", "--", "trapint:130", "out:ready\n", "sleep:10m")
			},
			stop: "cancel",
			code: 130,
		},
		{
			name: "line error",
			command: func(t *testing.T, pidfile, _ string) Command {
				return child(t, "spawn:"+pidfile, "ignoreint", "sleep:10m", "--", "trapint:130", "out:ready\n", "sleep:10m")
			},
			stop: "error",
			code: 130,
		},
		{
			name: "exit code",
			command: func(t *testing.T, pidfile, proceed string) Command {
				return child(t, "spawn:"+pidfile, "sleep:10m", "--", "out:ready\n", "await:"+proceed, "exit:7")
			},
			code: 7,
		},
	}
	errStop := errors.New("stop")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidfile, proceed := filepath.Join(dir, "background"), filepath.Join(dir, "proceed")
			c := tt.command(t, pidfile, proceed)
			// Longer than the test allows: only killing the group can end
			// the reading of standard output in time.
			c.Grace = 30 * time.Second
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			pid := 0
			start := time.Now()
			exit, err := Run(ctx, c, func(b []byte) error {
				if string(b) != "ready" {
					return nil
				}
				pid = readPid(t, pidfile)
				if gone(pid) {
					t.Errorf("background process %d is not running before the program ends", pid)
				}
				if err := os.WriteFile(proceed, nil, 0o666); err != nil {
					t.Error(err)
				}
				switch tt.stop {
				case "cancel":
					cancel()
				case "error":
					return errStop
				}
				return nil
			})
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("Run took %v, want it to end once the group is killed", took)
			}
			if exit.Code != tt.code {
				t.Errorf("Run = %+v, %v; want code %d", exit, err, tt.code)
			}
			switch tt.stop {
			case "":
				if err != nil {
					t.Errorf("Run error = %v, want nil", err)
				}
			case "cancel":
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run error = %v, want context.Canceled", err)
				}
			case "error":
				if !errors.Is(err, errStop) {
					t.Errorf("Run error = %v, want %v", err, errStop)
				}
			}
			if pid == 0 {
				t.Fatal("the program never printed ready")
			}
			waitGone(t, pid)
		})
	}
}

// TestRule8Escaped checks that a process outside the group holding the
// pipes open does not keep Run for longer than about the grace period, yet
// the output already written is delivered in full.
func TestRule8Escaped(t *testing.T) {
	t.Parallel()
	const grace = 200 * time.Millisecond
	line := strings.Repeat("z", 1000) + "\n"
	tests := []struct {
		name  string
		out   string
		slow  time.Duration // time the line callback takes
		lines int
	}{
		{name: "quiet", out: "ready\n", lines: 1},
		// 50 lines at 20ms each take 1s, far more than the grace period.
		{name: "slow consumer", out: strings.Repeat(line, 50), slow: 20 * time.Millisecond, lines: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "escaped")
			c := child(t, "escape:"+pidfile, "sleep:10m", "--", "out:"+tt.out, "exit:0")
			c.Grace = grace
			c.MaxLine = 2000 // a small buffer, so the pipe is read many times
			start := time.Now()
			n := 0
			exit, err := Run(t.Context(), c, func([]byte) error {
				n++
				time.Sleep(tt.slow)
				return nil
			})
			took := time.Since(start)
			pid := readPid(t, pidfile)
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			if err != nil || exit.Code != 0 {
				t.Errorf("Run = %+v, %v; want exit 0", exit, err)
			}
			if n != tt.lines {
				t.Errorf("Run delivered %d lines, want %d", n, tt.lines)
			}
			if took > 30*time.Second {
				t.Errorf("Run took %v, want about the grace period (%v) more than the callbacks", took, grace)
			}
			switch {
			case runtime.GOOS == "linux":
				waitGone(t, pid) // rule 9
			case gone(pid):
				t.Errorf("process %d, outside the group, was killed", pid)
			}
		})
	}
}

func TestRunSignal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		action string
		want   string
	}{
		{"raise:KILL", "killed"},
		{"raise:TERM", "terminated"},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			t.Parallel()
			exit, err := Run(t.Context(), child(t, tt.action), nil)
			if err != nil {
				t.Fatalf("Run(%s) error = %v, want nil", tt.action, err)
			}
			if want := (Exit{Code: -1, Signal: tt.want}); !cmp.Equal(exit, want) {
				t.Errorf("Run(%s) = %+v, want %+v", tt.action, exit, want)
			}
		})
	}
}

// TestRunInterruptSignal checks that a program that does not handle SIGINT
// is reported as ended by it.
func TestRunInterruptSignal(t *testing.T) {
	t.Parallel()
	if signal.Ignored(os.Interrupt) {
		// As when a shell starts the tests in the background: the program
		// inherits the disposition, and only SIGKILL ends it.
		t.Skip("SIGINT is ignored by this process, and so by its children")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit, err := Run(ctx, child(t, "out:ready\n", "sleep:10m"), func([]byte) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run error = %v, want context.Canceled", err)
	}
	if exit.Code != -1 || exit.Signal != "interrupt" {
		t.Errorf("Run = %+v, want code -1, signal interrupt", exit)
	}
}

// TestRunLinePanic checks that a panicking callback does not leave the
// program running: Run stops it, then panics with the same value.
func TestRunLinePanic(t *testing.T) {
	t.Parallel()
	pid := 0
	returned := false
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("Run panicked with %v, want the callback's boom", v)
			}
		}()
		Run(t.Context(), child(t, "pgid", "sleep:10m"), func(b []byte) error {
			fmt.Sscan(string(b), &pid)
			panic("boom")
		})
		returned = true
	}()
	if returned {
		t.Errorf("Run returned after the callback panicked, want a panic")
	}
	if pid == 0 {
		t.Fatal("the program never printed its pid")
	}
	waitGone(t, pid)
}

// TestRule9 checks that on Linux a process that left the group dies after
// a cancelled run as after a normal one, and that a process not started
// by the run, with the same user, is left alone.
func TestRule9(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("rule 9 is Linux only")
	}
	t.Parallel()
	bystander := exec.Command("sleep", "600")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bystander.Process.Kill(); bystander.Wait() })

	pidfile := filepath.Join(t.TempDir(), "escaped")
	c := child(t, "escape:"+pidfile, "sleep:10m", "--", "out:ready\n", "sleep:10m")
	c.Grace = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	_, err := Run(ctx, c, func([]byte) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	waitGone(t, readPid(t, pidfile))
	if gone(bystander.Process.Pid) {
		t.Error("a process the run did not start was killed")
	}
}
