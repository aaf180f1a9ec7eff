package prefilter

import (
	"math/rand/v2"
	"testing"
)

// TestStatesLimit checks that an automaton of strings whose trie has
// more states than it numbers (1<<16) is refused, and one of the same
// strings but the last, within the limit, is built.
func TestStatesLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var strs []string
	prefixes := map[string]bool{"": true} // the trie's states
	for len(prefixes) <= 1<<16 {
		b := make([]byte, 20)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(26))
			prefixes[string(b[:i+1])] = true
		}
		strs = append(strs, string(b))
	}
	if _, err := newAutomaton(strs); err == nil {
		t.Errorf("newAutomaton of %d states succeeded, past %d", trieSize(strs), 1<<16)
	}
	within := strs[:len(strs)-1]
	if _, err := newAutomaton(within); err != nil {
		t.Errorf("newAutomaton of %d states = %v, want it built", trieSize(within), err)
	}
}
