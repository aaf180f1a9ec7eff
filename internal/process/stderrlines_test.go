package process

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunStderrLine checks rule 12: how standard error becomes lines, and
// that the tail is kept all the same.
func TestRunStderrLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", MaxStderrLine)
	tests := []struct {
		name    string
		actions []string
		want    []string
	}{
		{name: "one line", actions: []string{"err:hello\n"}, want: []string{"hello"}},
		{name: "none", actions: nil},
		{name: "split across writes", actions: []string{"err:Attempt 1 fa", "sleep:20ms", "err:iled\nnext", "sleep:20ms", "err: one\n"},
			want: []string{"Attempt 1 failed", "next one"}},
		{name: "final line without newline", actions: []string{"err:a\nb"}, want: []string{"a", "b"}},
		{name: "empty lines and crlf", actions: []string{"err:\n\na\r\n\r\n\nb\n"}, want: []string{"a", "b"}},
		{name: "invalid bytes", actions: []string{"err:\xff\xfeok\n"}, want: []string{"\uFFFDok"}},
		{name: "long line cut", actions: []string{"err:" + long + "tail\nafter\n"}, want: []string{long, "after"}},
		{name: "cut inside a character", actions: []string{"err:" + long[:MaxStderrLine-1] + "é\nafter\n"},
			want: []string{long[:MaxStderrLine-1], "after"}},
		{name: "very long line", actions: []string{"errn:1048576", "err:\nafter\n"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := child(t, tt.actions...)
			var got []string
			c.StderrLine = func(s string) { got = append(got, s) }
			exit, err := Run(t.Context(), c, nil)
			if err != nil {
				t.Fatalf("Run(%q) error = %v", tt.actions, err)
			}
			if tt.name == "very long line" {
				if len(got) != 2 || len(got[0]) != MaxStderrLine || got[1] != "after" {
					t.Errorf("Run(%q) lines = %d, want a line of %d bytes then \"after\"", tt.actions, len(got), MaxStderrLine)
				}
				if len(exit.Stderr) != DefaultStderrTail {
					t.Errorf("Run(%q).Stderr is %d bytes, want the tail of %d", tt.actions, len(exit.Stderr), DefaultStderrTail)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Run(%q) stderr lines (-want +got):\n%s", tt.actions, diff)
			}
			var written strings.Builder
			for _, a := range tt.actions {
				if text, ok := strings.CutPrefix(a, "err:"); ok {
					written.WriteString(text)
				}
			}
			if want := strings.ToValidUTF8(written.String(), "\uFFFD"); exit.Stderr != want {
				t.Errorf("Run(%q).Stderr = %.60q, want the whole stderr %.60q", tt.actions, exit.Stderr, want)
			}
		})
	}
}

// TestRunStderrLineWhileRunning checks that a line of standard error
// reaches StderrLine while the program still runs: the program waits for
// a file that only the hook, on the first line, creates.
func TestRunStderrLineWhileRunning(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "seen")
	c := child(t, "err:first\n", "await:"+file, "err:second\n")
	var got []string
	c.StderrLine = func(s string) {
		got = append(got, s)
		if s == "first" {
			if err := os.WriteFile(file, nil, 0o666); err != nil {
				t.Error(err)
			}
		}
	}
	exit, err := Run(t.Context(), c, nil)
	if err != nil {
		t.Fatalf("Run error = %v", err)
	}
	if diff := cmp.Diff([]string{"first", "second"}, got); diff != "" {
		t.Errorf("stderr lines (-want +got):\n%s", diff)
	}
	if exit.Stderr != "first\nsecond\n" {
		t.Errorf("Stderr = %q, want both lines", exit.Stderr)
	}
}

// TestRunStderrLineStopped checks that StderrLine is no longer called
// once Run has stopped the program.
func TestRunStderrLineStopped(t *testing.T) {
	t.Parallel()
	var after atomic.Bool
	var stopped atomic.Bool
	c := child(t, "out:stop\n", "trapint:0", "sleep:10m")
	c.StderrLine = func(string) {
		if stopped.Load() {
			after.Store(true)
		}
	}
	stopErr := errors.New("stop")
	_, err := Run(context.Background(), c, func([]byte) error { stopped.Store(true); return stopErr })
	if !errors.Is(err, stopErr) {
		t.Fatalf("Run error = %v, want the line error", err)
	}
	if after.Load() {
		t.Error("StderrLine was called after Run stopped the program")
	}
}

// TestRunStderrLinePanic checks that a panicking StderrLine stops the
// program (which would otherwise sleep for ten minutes) and that Run then
// panics with the same value.
func TestRunStderrLinePanic(t *testing.T) {
	t.Parallel()
	c := child(t, "err:boom\n", "sleep:10m")
	c.StderrLine = func(s string) { panic(s) }
	returned := false
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("Run panicked with %v, want StderrLine's boom", v)
			}
		}()
		Run(t.Context(), c, nil)
		returned = true
	}()
	if returned {
		t.Errorf("Run returned after StderrLine panicked, want a panic")
	}
}
