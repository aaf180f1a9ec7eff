package prefilter

import (
	"fmt"
	"slices"
)

// automaton is an Aho-Corasick automaton over a set of byte strings,
// compiled to a full transition table over classes of bytes, that
// matches ASCII letters without regard to case: one step a byte, and
// every occurrence of every string reported, overlapping ones too.
//
// A state is the offset of its row in next, so that a step is one load
// and one addition, and the states where a string ends are numbered
// last, so that a scan tells them by one comparison (state >= firstOut).
type automaton struct {
	class    [256]uint8 // a byte's class; class 0 is every byte in no string
	classes  int        // how many classes
	next     []uint32   // next[state+class]: a state is the offset of its row
	firstOut uint32     // the first state where a string ends
	out      [][]int32  // by (state-firstOut)/classes: the strings that end there, its own and its suffixes'
	lens     []int      // each string's length
}

// lowerASCII folds an ASCII upper-case letter to lower case.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// trieSize returns how many nodes the trie of strs has: the root and
// one for each distinct prefix, which strs sorted tell as the part of
// each string not shared with the one before it.
func trieSize(strs []string) int {
	sorted := slices.Clone(strs)
	slices.Sort(sorted)
	n, prev := 1, ""
	for _, s := range sorted {
		common := 0
		for common < min(len(s), len(prev)) && s[common] == prev[common] {
			common++
		}
		n += len(s) - common
		prev = s
	}
	return n
}

// newAutomaton builds the automaton of strs (which it reads as lower
// case; none is empty).
func newAutomaton(strs []string) (*automaton, error) {
	a := &automaton{classes: 1}
	for _, s := range strs {
		for i := 0; i < len(s); i++ {
			b := lowerASCII(s[i])
			if a.class[b] == 0 {
				a.class[b] = uint8(a.classes)
				a.classes++
			}
		}
	}
	for b := 'A'; b <= 'Z'; b++ {
		a.class[b] = a.class[b+'a'-'A']
	}
	// The trie: child[node*classes+c] is node's child by class c, or 0
	// (the root is no node's child).
	child := make([]int32, 0, trieSize(strs)*a.classes)
	var out [][]int32 // by node
	newNode := func() int32 {
		child = append(child, make([]int32, a.classes)...)
		out = append(out, nil)
		return int32(len(out) - 1)
	}
	newNode()
	for id, s := range strs {
		at := int32(0)
		for i := 0; i < len(s); i++ {
			c := int(a.class[s[i]])
			n := child[int(at)*a.classes+c]
			if n == 0 {
				n = newNode()
				child[int(at)*a.classes+c] = n
			}
			at = n
		}
		out[at] = append(out[at], int32(id))
		a.lens = append(a.lens, len(s))
	}
	nodes := len(out)
	// Failure links, breadth first, and each state's strings.
	fail := make([]int32, nodes)
	order := []int32{0}
	for q := 0; q < len(order); q++ {
		at := order[q]
		if at != 0 {
			out[at] = append(out[at], out[fail[at]]...)
		}
		for c := range a.classes {
			ch := child[int(at)*a.classes+c]
			if ch == 0 {
				continue
			}
			if at != 0 {
				f := fail[at]
				for {
					if n := child[int(f)*a.classes+c]; n != 0 {
						fail[ch] = n
						break
					}
					if f == 0 {
						break
					}
					f = fail[f]
				}
			}
			order = append(order, ch)
		}
	}
	if nodes*a.classes > 1<<32-1 {
		return nil, fmt.Errorf("%d states of %d classes, more than an automaton holds", nodes, a.classes)
	}
	// Number the states, those where a string ends last.
	num := make([]uint32, nodes)
	n := 0
	for pass := range 2 {
		if pass == 1 {
			a.firstOut = uint32(n * a.classes)
		}
		for _, at := range order {
			if (len(out[at]) > 0) == (pass == 1) {
				num[at] = uint32(n * a.classes)
				n++
			}
		}
	}
	// The full table: a missing transition is the failure state's,
	// which breadth-first order has filled in already.
	a.next = make([]uint32, nodes*a.classes)
	a.out = make([][]int32, nodes-int(a.firstOut)/a.classes)
	for _, at := range order {
		row := int(num[at])
		if o := out[at]; len(o) > 0 {
			a.out[(num[at]-a.firstOut)/uint32(a.classes)] = o
		}
		for c := range a.classes {
			if ch := child[int(at)*a.classes+c]; ch != 0 {
				a.next[row+c] = num[ch]
			} else if at != 0 {
				a.next[row+c] = a.next[int(num[fail[at]])+c]
			}
		}
	}
	return a, nil
}
