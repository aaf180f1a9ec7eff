package main

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

// Add and sync run under installMemoryLimit unless GOMEMLIMIT sets a
// limit, which is then left as the runtime read it.
func TestBoundMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	for _, tc := range []struct {
		name, env string
		want      int64
	}{
		{"unset", "", installMemoryLimit},
		{"GOMEMLIMIT set", "1GiB", math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(math.MaxInt64)
			boundMemory(func(k string) string {
				if k == "GOMEMLIMIT" {
					return tc.env
				}
				return ""
			})
			if got := debug.SetMemoryLimit(-1); got != tc.want {
				t.Errorf("memory limit = %d, want %d", got, tc.want)
			}
		})
	}
}

// Audit runs at the garbage collector's target auditGCPercent unless
// GOGC sets one, and under the memory limit add runs under.
func TestTuneAuditGC(t *testing.T) {
	beforeGC, beforeLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(beforeGC); debug.SetMemoryLimit(beforeLimit) })
	for _, tc := range []struct {
		name, gogc string
		want       int
	}{
		{"unset", "", auditGCPercent},
		{"GOGC set", "50", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			tuneAuditGC(func(k string) string {
				if k == "GOGC" {
					return tc.gogc
				}
				return ""
			})
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Errorf("GC percent = %d, want %d", got, tc.want)
			}
			if got := debug.SetMemoryLimit(-1); got != installMemoryLimit {
				t.Errorf("memory limit = %d, want %d", got, installMemoryLimit)
			}
		})
	}
}

// The program starts at the garbage collector's target startGCPercent, a
// command runs at Go's default, and GOGC, when set, is left as the
// runtime read it.
func TestStartGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name, gogc string
		args       []string
		want       int
	}{
		{"the start only", "", []string{"--version"}, startGCPercent},
		{"a command", "", []string{"agents"}, 100},
		{"GOGC set", "50", []string{"--version"}, 77},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			debug.SetGCPercent(77)
			var stdout, stderr strings.Builder
			if code := run(t.Context(), tc.args, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("agentskills %q = %d, stderr %s", tc.args, code, stderr.String())
			}
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Errorf("after agentskills %q: GC percent = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}
