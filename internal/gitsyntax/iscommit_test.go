package gitsyntax

import (
	"strings"
	"testing"
)

func TestIsCommit(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{strings.Repeat("a1", 20), true},
		{strings.Repeat("0f", 32), true},
		{strings.Repeat("A1", 20), false}, // upper case: callers lower it where a host allows it
		{strings.Repeat("a", 39), false},
		{strings.Repeat("a", 41), false},
		{strings.Repeat("g", 40), false},
		{"main", false},
		{"", false},
	} {
		if got := IsCommit(tc.s); got != tc.want {
			t.Errorf("IsCommit(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
