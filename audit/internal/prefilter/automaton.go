package prefilter

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// automaton is an Aho-Corasick automaton over a set of byte strings,
// compiled to a full transition table over classes of bytes, that
// matches ASCII letters without regard to case: one step a byte, and
// every occurrence of every string reported, overlapping ones too.
//
// The table is small, so that the rows a text visits stay in the
// processor's caches: a state is a 16-bit number, its row is 1<<shift
// entries (the classes, rounded up to a power of two, so that a step is
// a shift, an or and one load), and the states where a string ends are
// numbered last, so that a scan tells them by one comparison (state >=
// firstOut; outputs tells four at a time). What ends at such a state is in one flat table, ends, each
// string with its length, so that recording an occurrence reads one
// place of memory rather than a list and then each string's length.
type automaton struct {
	class    [256]uint8 // a byte's class; class 0 is every byte in no string
	classes  int        // how many classes
	shift    uint       // a row of next is 1<<shift entries
	next     []uint16   // next[state<<shift|class]: the state after a byte of the class
	firstOut uint16     // the first state where a string ends
	// outAt: by state-firstOut, where its strings (its own and its
	// suffixes') start in ends; those of state firstOut+k are
	// ends[outAt[k]:outAt[k+1]]
	outAt []uint32
	ends  []ending
	lens  []int // each string's length
}

// ending is a string that ends at a state, and its length.
type ending struct {
	id, len int32
}

// step returns the state after state reads b.
func (a *automaton) step(state uint32, b byte) uint32 {
	return uint32(a.next[state<<a.shift|uint32(a.class[b])])
}

// chunk is how many bytes steps and steps1 step at most a call, so
// that which of a lane's states after them are ones where strings end
// is one uint64 of bits (outputs).
const chunk = 64

// states are the states two lanes are in after each byte of a chunk,
// two bytes each, little-endian, so that outputs reads four at a time.
type states [2][2 * chunk]byte

// steps steps two lanes, over u1 and u2 (of one length, chunk bytes at
// most) from states s1 and s2, writes in st the state of each lane
// after each byte, and returns their states after the last. It calls
// nothing and tests nothing, so that the compiler keeps the two chains
// of table lookups in registers and the processor has no guess to get
// wrong: text dense with the strings, where they end every few bytes,
// steps as fast as any, and the caller finds the states where strings
// end in st after the chunk (outputs).
//
//go:noinline
func (a *automaton) steps(u1, u2 string, s1, s2 uint32, st *states) (uint32, uint32) {
	// The shift masked is one the compiler knows is under 32, so that a
	// step is a shift, an or and a load, with no test of the shift on
	// the chain of steps.
	next, class, shift := a.next, &a.class, a.shift&31
	u1 = u1[:min(len(u1), chunk)]
	u2 = u2[:len(u1)]
	for k := 0; k < len(u1); k++ {
		s1 = uint32(next[s1<<shift|uint32(class[u1[k]])])
		s2 = uint32(next[s2<<shift|uint32(class[u2[k]])])
		binary.LittleEndian.PutUint16(st[0][2*(k%chunk):], uint16(s1))
		binary.LittleEndian.PutUint16(st[1][2*(k%chunk):], uint16(s2))
	}
	return s1, s2
}

// steps1 is steps of one lane, over text (chunk bytes at most) from
// state, which writes its states in st[0].
//
//go:noinline
func (a *automaton) steps1(text string, state uint32, st *states) uint32 {
	next, class, shift := a.next, &a.class, a.shift&31
	text = text[:min(len(text), chunk)]
	for k := 0; k < len(text); k++ {
		state = uint32(next[state<<shift|uint32(class[text[k]])])
		binary.LittleEndian.PutUint16(st[0][2*(k%chunk):], uint16(state))
	}
	return state
}

// shortOutputs is the length of a chunk under which outputs reads its
// states one at a time: a short text's states, just stored two bytes
// at a time, are read back at once, and a load of four of them would
// wait for the stores to reach memory, which one of each does not.
const shortOutputs = 16

// outputs returns which of the first n states of a lane in st (n at
// most chunk) are ones where strings end, as bit k for the state after
// byte k. Where states are numbered under 1<<15 and the chunk is not
// short (shortOutputs), it tells four at a time without a test: it adds
// to each 1<<15 less firstOut, which sets its top bit exactly when it
// is firstOut or more, and gathers the four top bits by a
// multiplication.
func (a *automaton) outputs(st *[2 * chunk]byte, n int) uint64 {
	var out uint64
	if n < shortOutputs || len(a.next)>>a.shift > 1<<15 {
		// A state (under 1<<16) is firstOut or more exactly when
		// adding 1<<16 less firstOut to it carries into bit 16.
		add := 1<<16 - uint32(a.firstOut)
		for k := range n {
			out |= uint64((uint32(binary.LittleEndian.Uint16(st[2*(k%chunk):]))+add)>>16) << (k % chunk)
		}
		return out
	}
	const ones = 0x0001_0001_0001_0001
	// gather moves bit 16*i to bit 48+i (and others where the shift
	// right leaves none)
	const gather = 1<<48 | 1<<33 | 1<<18 | 1<<3
	add := (1<<15 - uint64(a.firstOut)) * ones
	for w := 0; w < (n+3)>>2; w++ {
		x := binary.LittleEndian.Uint64(st[8*(w%(chunk/4)):])
		top := (x + add) >> 15 & ones
		out |= top * gather >> 48 << (4 * w & 63)
	}
	if n < chunk {
		out &= 1<<uint(n) - 1
	}
	return out
}

// endsAt returns the strings that end at state.
func (a *automaton) endsAt(state uint32) []ending {
	if state < uint32(a.firstOut) {
		return nil
	}
	k := state - uint32(a.firstOut)
	return a.ends[a.outAt[k]:a.outAt[k+1]]
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
	size := trieSize(strs)
	if size > 1<<16 {
		return nil, fmt.Errorf("%d states, more than an automaton holds (%d)", size, 1<<16)
	}
	// The trie: child[node*classes+c] is node's child by class c, or 0
	// (the root is no node's child).
	child := make([]uint16, 0, size*a.classes)
	out := make([][]int32, 0, size) // by node
	newNode := func() uint16 {
		child = append(child, make([]uint16, a.classes)...)
		out = append(out, nil)
		return uint16(len(out) - 1)
	}
	newNode()
	for id, s := range strs {
		at := uint16(0)
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
	fail := make([]uint16, nodes)
	order := append(make([]uint16, 0, nodes), 0)
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
	for 1<<a.shift < a.classes {
		a.shift++
	}
	// Number the states, those where a string ends last.
	num := make([]uint16, nodes)
	n := 0
	for pass := range 2 {
		if pass == 1 {
			a.firstOut = uint16(n)
		}
		for _, at := range order {
			if (len(out[at]) > 0) == (pass == 1) {
				num[at] = uint16(n)
				n++
			}
		}
	}
	// The full table: a missing transition is the failure state's,
	// which breadth-first order has filled in already.
	a.next = make([]uint16, nodes<<a.shift)
	byNum := make([][]int32, nodes-int(a.firstOut)) // the strings of each state where some end
	for _, at := range order {
		row := int(num[at]) << a.shift
		if o := out[at]; len(o) > 0 {
			byNum[num[at]-a.firstOut] = o
		}
		if at != 0 {
			f := int(num[fail[at]]) << a.shift
			copy(a.next[row:row+a.classes], a.next[f:f+a.classes])
		}
		for c, ch := range child[int(at)*a.classes : int(at+1)*a.classes] {
			if ch != 0 {
				a.next[row+c] = num[ch]
			}
		}
	}
	a.outAt = make([]uint32, 0, len(byNum)+1)
	for _, o := range byNum {
		a.outAt = append(a.outAt, uint32(len(a.ends)))
		for _, id := range o {
			a.ends = append(a.ends, ending{id: id, len: int32(a.lens[id])})
		}
	}
	a.outAt = append(a.outAt, uint32(len(a.ends)))
	return a, nil
}
