package requirement

import (
	"strings"
	"testing"

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
	many := strings.Repeat("^1 || ", 7) + "^1"
	if _, err := joinRanges([]string{many, many}); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("joinRanges of 64 groups = %v; want the range's limit", err)
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
