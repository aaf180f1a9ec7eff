//go:build !unix

package readfile

// openFlags is none where a FIFO cannot replace a file between a stat
// and an open.
const openFlags = 0
