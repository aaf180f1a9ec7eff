package requirement

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// Rule 7: ranges are joined so that a version must satisfy each.
func TestJoinRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"^1", "~1.2"}, "^1, ~1.2"},
		{[]string{"^1 || ^2", "~1.2"}, "^1, ~1.2 || ^2, ~1.2"},
		{[]string{">=1.0 <2", "^1.4", "1.*"}, ">=1.0 <2, ^1.4, 1.*"},
	} {
		if got, err := joinRanges(tc.in); err != nil || got != tc.want {
			t.Errorf("joinRanges(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// More groups than a range may hold (package source/version, rule 2).
	many, other := strings.Repeat("^1 || ", 7)+"^1", strings.Repeat("^2 || ", 7)+"^2"
	if _, err := joinRanges([]string{many, other}); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("joinRanges of 64 groups = %v; want the range's limit", err)
	}
}

// Rule 7: a range given again is joined once, and a constraint twice in
// a group once.
func TestJoinRangesOnce(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"^1", "^1", " ^1 "}, "^1"},
		{[]string{"^1 || ^2", "^1 || ^2"}, "^1 || ^2"},
		{[]string{"^1 || ~1.2", "^1"}, "^1 || ~1.2, ^1"},
	} {
		if got, err := joinRanges(tc.in); err != nil || got != tc.want {
			t.Errorf("joinRanges(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	sixty := make([]string, 60)
	for i := range sixty {
		sixty[i] = "^1 || ^0.1"
	}
	if got, err := joinRanges(sixty); err != nil || got != "^1 || ^0.1" {
		t.Errorf("joinRanges of one range 60 times = %q, %v; want it once", got, err)
	}
}

// Rule 7: joining stops at the limits of a range, before it builds what
// crosses them: k ranges of two groups each would make 2^k groups.
func TestJoinRangesBounded(t *testing.T) {
	for _, k := range []int{6, 18, 20} {
		ranges := make([]string, k)
		for i := range ranges {
			ranges[i] = fmt.Sprintf("^1 || ^0.%d", i+1)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := joinRanges(ranges)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "at most 512 bytes and 32 groups") {
			t.Errorf("joinRanges of %d ranges of two groups = %v; want source.ErrInvalid naming the limits", k, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("joinRanges of %d ranges of two groups allocated %d bytes; want under 1 MiB", k, got)
		}
	}
	long := "^1, " + strings.Repeat(">=1.0.0, ", 60) + "<2" // one group, over 512 bytes once joined
	if _, err := joinRanges([]string{long, "~1.2"}); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("joinRanges of a group over 512 bytes = %v; want source.ErrInvalid", err)
	}
}

// Rule 3: a git skill's key.
func TestGitKey(t *testing.T) {
	for _, tc := range []struct{ url, path, want string }{
		{"https://git.example/acme/skills.git", "tools/changelog", "changelog"},
		{"https://git.example/acme/changelog.git", "", "changelog"},
		{"file:///srv/repos/semver/", "", "semver"},
	} {
		if got := gitKey(git.Source{URL: tc.url, Path: tc.path}); got != tc.want {
			t.Errorf("gitKey(%s, %q) = %q, want %q", tc.url, tc.path, got, tc.want)
		}
	}
}
