package process

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// collect runs c and returns the lines it printed.
func collect(ctx context.Context, c Command) ([]string, Exit, error) {
	var lines []string
	exit, err := Run(ctx, c, func(b []byte) error {
		lines = append(lines, string(b))
		return nil
	})
	return lines, exit, err
}

// TestRunLines checks how standard output becomes lines, and rule 4.
func TestRunLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		actions  []string
		maxLine  int
		want     []string
		overlong []int
	}{
		{name: "one line", actions: []string{"out:hello\n"}, want: []string{"hello"}},
		{name: "no output", actions: nil},
		{
			name:    "split across writes",
			actions: []string{"out:hel", "sleep:50ms", "out:lo\nwor", "sleep:50ms", "out:ld\n"},
			want:    []string{"hello", "world"},
		},
		{name: "final line without newline", actions: []string{"out:a\nb"}, want: []string{"a", "b"}},
		{name: "only a line without newline", actions: []string{"out:{}"}, want: []string{"{}"}},
		{name: "empty lines skipped", actions: []string{"out:\n\na\n\r\n\nb\n\n"}, want: []string{"a", "b"}},
		{name: "crlf endings", actions: []string{"out:a\r\nb\r\n"}, want: []string{"a", "b"}},
		{name: "spaces kept", actions: []string{"out: a \n"}, want: []string{" a "}},
		{
			name:    "binary garbage",
			actions: []string{"hex:" + hex.EncodeToString([]byte("\x00\xff\xfe\n\x80\xc3\x28\x1b[0m\n\x00"))},
			want:    []string{"\x00\xff\xfe", "\x80\xc3\x28\x1b[0m", "\x00"},
		},
		{
			name:     "overlong line skipped",
			actions:  []string{"out:before\n", "long:5000", "out:\nafter\n"},
			maxLine:  1024,
			want:     []string{"before", "after"},
			overlong: []int{5000},
		},
		{
			name:     "overlong line split across writes",
			actions:  []string{"long:1000", "sleep:20ms", "long:1000", "sleep:20ms", "out:\r\nafter"},
			maxLine:  1024,
			want:     []string{"after"},
			overlong: []int{2000},
		},
		{
			name:     "overlong final line",
			actions:  []string{"out:a\n", "long:5000"},
			maxLine:  1024,
			want:     []string{"a"},
			overlong: []int{5000},
		},
		{
			name:     "huge line",
			actions:  []string{"long:3145728", "out:\nafter\n"},
			maxLine:  1 << 20,
			want:     []string{"after"},
			overlong: []int{3 << 20},
		},
		{
			name:    "line of exactly MaxLine",
			actions: []string{"long:1024", "out:\r\n"},
			maxLine: 1024,
			want:    []string{strings.Repeat("x", 1024)},
		},
		{
			name:     "line one byte over MaxLine",
			actions:  []string{"long:1025", "out:\n"},
			maxLine:  1024,
			overlong: []int{1025},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := child(t, tt.actions...)
			c.MaxLine = tt.maxLine
			var overlong []int
			c.Overlong = func(size int) { overlong = append(overlong, size) }
			got, exit, err := collect(t.Context(), c)
			if err != nil || exit.Code != 0 {
				t.Fatalf("Run(%q) = %+v, %v, want exit 0", tt.actions, exit, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Run(%q) lines (-want +got):\n%s", tt.actions, diff)
			}
			if diff := cmp.Diff(tt.overlong, overlong); diff != "" {
				t.Errorf("Run(%q) overlong sizes (-want +got):\n%s", tt.actions, diff)
			}
		})
	}
}

func TestRunManyLines(t *testing.T) {
	t.Parallel()
	const n = 100000
	got, exit, err := collect(t.Context(), child(t, "lines:100000"))
	if err != nil || exit.Code != 0 {
		t.Fatalf("Run = %+v, %v, want exit 0", exit, err)
	}
	if len(got) != n {
		t.Fatalf("Run delivered %d lines, want %d", len(got), n)
	}
	for i, l := range got {
		if want := fmt.Sprintf("line %d", i); l != want {
			t.Fatalf("line %d = %q, want %q", i, l, want)
		}
	}
}

// TestRunStdin checks rule 7.
func TestRunStdin(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789abcdef\n", 1<<16) // 1 MiB, more than a pipe holds
	tests := []struct {
		name    string
		actions []string
		stdin   string
		lines   int
		echo    bool
	}{
		{name: "read", actions: []string{"cat"}, stdin: "a\nb\n", lines: 2, echo: true},
		{name: "read big", actions: []string{"cat"}, stdin: big, lines: 1 << 16, echo: true},
		{name: "not read", actions: []string{"out:done\n"}, stdin: big, lines: 1},
		{name: "empty", actions: []string{"cat", "out:eof\n"}, lines: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := child(t, tt.actions...)
			c.Stdin = tt.stdin
			got, exit, err := collect(t.Context(), c)
			if err != nil || exit.Code != 0 {
				t.Fatalf("Run(%q) = %+v, %v, want exit 0", tt.actions, exit, err)
			}
			if len(got) != tt.lines {
				t.Errorf("Run(%q) delivered %d lines, want %d", tt.actions, len(got), tt.lines)
			}
			if tt.echo && strings.Join(got, "\n") != strings.TrimSuffix(tt.stdin, "\n") {
				t.Errorf("Run(%q) did not echo its standard input", tt.actions)
			}
		})
	}
}

func TestRunExitCode(t *testing.T) {
	t.Parallel()
	for _, code := range []int{0, 1, 3, 255} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			exit, err := Run(t.Context(), child(t, fmt.Sprintf("exit:%d", code)), nil)
			if err != nil {
				t.Fatalf("Run(exit:%d) error = %v, want nil", code, err)
			}
			if want := (Exit{Code: code}); exit != want {
				t.Errorf("Run(exit:%d) = %+v, want %+v", code, exit, want)
			}
		})
	}
}

// TestRunStderrTail checks rule 5.
func TestRunStderrTail(t *testing.T) {
	t.Parallel()
	const big = 10 << 20
	pattern := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			b.WriteByte(stderrPattern(i))
		}
		return b.String()
	}
	tests := []struct {
		name    string
		actions []string
		tail    int
		want    string
	}{
		{name: "short", actions: []string{"err:oops\n"}, want: "oops\n"},
		{name: "10 MiB", actions: []string{"errn:10485760"}, want: pattern(big-DefaultStderrTail, big)},
		{name: "10 MiB small tail", actions: []string{"errn:10485760"}, tail: 100, want: pattern(big-100, big)},
		{name: "several writes", actions: []string{"err:abc", "sleep:20ms", "err:def", "sleep:20ms", "err:gh"}, tail: 4, want: "efgh"},
		{name: "cut inside a character", actions: []string{"err:ééééé"}, tail: 5, want: "éé"},
		{name: "invalid bytes", actions: []string{"err:\xff\xfeok"}, want: "\uFFFDok"},
		{name: "invalid bytes at the cut", actions: []string{"err:ab\xffcd"}, tail: 5, want: "\uFFFDcd"},
		{name: "none", actions: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := child(t, tt.actions...)
			c.StderrTail = tt.tail
			exit, err := Run(t.Context(), c, nil)
			if err != nil {
				t.Fatalf("Run(%q) error = %v", tt.actions, err)
			}
			if exit.Stderr != tt.want {
				t.Errorf("Run(%q).Stderr = %.40q (%d bytes), want %.40q (%d bytes)", tt.actions, exit.Stderr, len(exit.Stderr), tt.want, len(tt.want))
			}
			if !utf8.ValidString(exit.Stderr) {
				t.Errorf("Run(%q).Stderr = %q, not valid UTF-8", tt.actions, exit.Stderr)
			}
		})
	}
}

func TestRunStartError(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-program")
	called := false
	exit, err := Run(t.Context(), Command{Path: missing}, func([]byte) error { called = true; return nil })
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Run(%q) error = %v, want one naming the program and wrapping fs.ErrNotExist", missing, err)
	}
	if want := (Exit{Code: -1}); exit != want || called {
		t.Errorf("Run(%q) = %+v (line called: %v), want %+v", missing, exit, called, want)
	}

	dir := t.TempDir()
	c := child(t, "touch:"+filepath.Join(dir, "started"))
	c.Dir = filepath.Join(dir, "no-such-folder")
	if _, err := Run(t.Context(), c, nil); err == nil || !strings.Contains(err.Error(), c.Path) {
		t.Errorf("Run in a missing folder error = %v, want one naming the program", err)
	}
}

func TestRunContextDoneBeforeStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	marker := filepath.Join(t.TempDir(), "started")
	exit, err := Run(ctx, child(t, "touch:"+marker), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(canceled) error = %v, want context.Canceled", err)
	}
	if want := (Exit{Code: -1}); exit != want {
		t.Errorf("Run(canceled) = %+v, want %+v", exit, want)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Run(canceled) started the program (stat = %v)", err)
	}
}

func TestRunContextErrors(t *testing.T) {
	t.Parallel()
	errCause := errors.New("user quit")
	tests := []struct {
		name string
		ctx  func(context.Context) (context.Context, context.CancelFunc)
		want []error
	}{
		{
			name: "deadline",
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 200*time.Millisecond)
			},
			want: []error{context.DeadlineExceeded},
		},
		{
			name: "cancel",
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(ctx)
				time.AfterFunc(200*time.Millisecond, cancel)
				return ctx, cancel
			},
			want: []error{context.Canceled},
		},
		{
			name: "cancel with cause",
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancelCause(ctx)
				time.AfterFunc(200*time.Millisecond, func() { cancel(errCause) })
				return ctx, func() { cancel(nil) }
			},
			want: []error{context.Canceled, errCause},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tt.ctx(t.Context())
			defer cancel()
			c := child(t, "sleep:10m")
			_, err := Run(ctx, c, nil)
			for _, want := range tt.want {
				if !errors.Is(err, want) {
					t.Errorf("Run(%s) error = %v, want one wrapping %v", tt.name, err, want)
				}
			}
			if err != nil && !strings.Contains(err.Error(), c.Path) {
				t.Errorf("Run(%s) error = %v, want one naming the program", tt.name, err)
			}
		})
	}
}

func TestRunLineError(t *testing.T) {
	t.Parallel()
	errStop := errors.New("stop")
	tests := []struct {
		name    string
		actions []string
		stopAt  int
	}{
		{name: "while running", actions: []string{"spam"}, stopAt: 3},
		{name: "after exit", actions: []string{"out:a\nb\nc\nd\n"}, stopAt: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			_, err := Run(t.Context(), child(t, tt.actions...), func([]byte) error {
				calls++
				if calls == tt.stopAt {
					return errStop
				}
				return nil
			})
			if !errors.Is(err, errStop) {
				t.Errorf("Run(%q) error = %v, want %v", tt.actions, err, errStop)
			}
			if calls != tt.stopAt {
				t.Errorf("Run(%q) called line %d times, want %d", tt.actions, calls, tt.stopAt)
			}
		})
	}
}

// TestRunSlowConsumer checks that output already written when the program
// exits reaches a slow line callback in full (rule 8 waits only on a quiet
// pipe).
func TestRunSlowConsumer(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("y", 1000) + "\n"
	c := child(t, "out:"+strings.Repeat(line, 50))
	c.Grace = 100 * time.Millisecond
	c.MaxLine = 2000 // a small buffer, so the pipe is read many times
	calls := 0
	_, err := Run(t.Context(), c, func([]byte) error {
		calls++
		time.Sleep(10 * time.Millisecond)
		return nil
	})
	if err != nil || calls != 50 {
		t.Errorf("Run with a slow callback = %d lines, %v; want 50 lines", calls, err)
	}
}

// TestRunNoGoroutineLeft checks rule 6.
func TestRunNoGoroutineLeft(t *testing.T) {
	// Not parallel: it counts the goroutines of the whole test binary.
	errStop := errors.New("stop")
	tests := []struct {
		name    string
		actions []string
		cancel  bool
		lineErr bool
		path    string
	}{
		{name: "exit", actions: []string{"out:a\n", "exit:2"}},
		{name: "stdin not read", actions: []string{"exit:0"}},
		{name: "cancel", actions: []string{"out:ready\n", "sleep:10m"}, cancel: true},
		{name: "line error", actions: []string{"spam"}, lineErr: true},
		{name: "start failure", path: filepath.Join(t.TempDir(), "missing")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c := child(t, tt.actions...)
			c.Stdin = strings.Repeat("x", 1<<20)
			if tt.path != "" {
				c.Path = tt.path
			}
			var returned, late atomic.Bool
			Run(ctx, c, func([]byte) error {
				if returned.Load() {
					late.Store(true)
				}
				if tt.cancel {
					cancel()
				}
				if tt.lineErr {
					return errStop
				}
				return nil
			})
			returned.Store(true)
			after := runtime.NumGoroutine()
			for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
				after = runtime.NumGoroutine()
			}
			if after > before {
				buf := make([]byte, 1<<20)
				t.Errorf("%d goroutines before Run, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
			}
			if late.Load() {
				t.Errorf("line was called after Run returned")
			}
		})
	}
}

func BenchmarkRun(b *testing.B) {
	benchmarks := []struct {
		name  string
		c     Command
		lines int
	}{
		{name: "true", c: Command{Path: "/bin/true"}},
		{name: "helper", c: child(b)},
		{name: "helper 1000 lines", c: child(b, "lines:1000"), lines: 1000},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			if _, err := exec.LookPath(bm.c.Path); err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				n := 0
				exit, err := Run(b.Context(), bm.c, func([]byte) error { n++; return nil })
				if err != nil || exit.Code != 0 || n != bm.lines {
					b.Fatalf("Run = %+v, %v, %d lines; want exit 0, %d lines", exit, err, n, bm.lines)
				}
			}
		})
	}
}
