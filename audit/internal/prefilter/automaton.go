package prefilter

// automaton is an Aho-Corasick automaton over a set of byte strings,
// compiled to a full transition table over classes of bytes, that
// matches ASCII letters without regard to case: one step a byte, and
// every occurrence of every string reported, overlapping ones too.
type automaton struct {
	class   [256]uint8 // a byte's class; class 0 is every byte in no string
	classes int        // how many classes
	next    []int32    // next[state*classes+class]
	out     [][]int32  // the strings that end at a state: its own and its suffixes'
	lens    []int      // each string's length
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
func newAutomaton(strs []string) *automaton {
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
		fail  int32
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
	// Failure links and the full table, breadth first: a state's
	// missing transitions are its failure state's.
	a.next = make([]int32, len(nodes)*a.classes)
	a.out = make([][]int32, len(nodes))
	queue := []int32{0}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		n := &nodes[at]
		if at != 0 {
			n.out = append(n.out, nodes[n.fail].out...)
		}
		a.out[at] = n.out
		for c := range a.classes {
			child, ok := n.child[uint8(c)]
			switch {
			case ok:
				if at != 0 {
					nodes[child].fail = a.next[int(n.fail)*a.classes+c]
				}
				a.next[int(at)*a.classes+c] = child
				queue = append(queue, child)
			case at != 0:
				a.next[int(at)*a.classes+c] = a.next[int(n.fail)*a.classes+c]
			}
		}
	}
	return a
}

// scan calls found with the id of each string that occurs in text and
// the offset just past it, in the order the occurrences end.
func (a *automaton) scan(text string, found func(id int32, end int)) {
	state := int32(0)
	for i := 0; i < len(text); i++ {
		state = a.next[int(state)*a.classes+int(a.class[text[i]])]
		if out := a.out[state]; out != nil {
			for _, id := range out {
				found(id, i+1)
			}
		}
	}
}
