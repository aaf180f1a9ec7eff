package prefilter

import "fmt"

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
	// The trie.
	type node struct {
		child map[uint8]int32
		out   []int32
	}
	nodes := []node{{child: map[uint8]int32{}}}
	for id, s := range strs {
		at := int32(0)
		for i := 0; i < len(s); i++ {
			c := a.class[s[i]]
			n, ok := nodes[at].child[c]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[uint8]int32{}})
				nodes[at].child[c] = n
			}
			at = n
		}
		nodes[at].out = append(nodes[at].out, int32(id))
		a.lens = append(a.lens, len(s))
	}
	// Failure links, breadth first, and each state's strings.
	fail := make([]int32, len(nodes))
	order := []int32{0}
	for q := 0; q < len(order); q++ {
		at := order[q]
		if at != 0 {
			nodes[at].out = append(nodes[at].out, nodes[fail[at]].out...)
		}
		for c := range a.classes {
			child, ok := nodes[at].child[uint8(c)]
			if !ok {
				continue
			}
			if at != 0 {
				f := fail[at]
				for {
					if n, ok := nodes[f].child[uint8(c)]; ok {
						fail[child] = n
						break
					}
					if f == 0 {
						break
					}
					f = fail[f]
				}
			}
			order = append(order, child)
		}
	}
	if len(nodes)*a.classes > 1<<32-1 {
		return nil, fmt.Errorf("%d states of %d classes, more than an automaton holds", len(nodes), a.classes)
	}
	// Number the states, those where a string ends last.
	num := make([]uint32, len(nodes))
	n := 0
	for pass := range 2 {
		if pass == 1 {
			a.firstOut = uint32(n * a.classes)
		}
		for _, at := range order {
			if (len(nodes[at].out) > 0) == (pass == 1) {
				num[at] = uint32(n * a.classes)
				n++
			}
		}
	}
	// The full table: a missing transition is the failure state's,
	// which breadth-first order has filled in already.
	a.next = make([]uint32, len(nodes)*a.classes)
	a.out = make([][]int32, len(nodes)-int(a.firstOut)/a.classes)
	for _, at := range order {
		row := int(num[at])
		if out := nodes[at].out; len(out) > 0 {
			a.out[(num[at]-a.firstOut)/uint32(a.classes)] = out
		}
		for c := range a.classes {
			if child, ok := nodes[at].child[uint8(c)]; ok {
				a.next[row+c] = num[child]
			} else if at != 0 {
				a.next[row+c] = a.next[int(num[fail[at]])+c]
			}
		}
	}
	return a, nil
}
