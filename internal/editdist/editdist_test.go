package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"codex", "codex", 0},
		{"codx", "codex", 1},   // an insertion
		{"coddex", "codex", 1}, // a deletion
		{"cidex", "codex", 1},  // a substitution
		{"cdoex", "codex", 1},  // two adjacent letters swapped
		{"rm", "run", 2},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d; want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}
