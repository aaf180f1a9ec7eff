//go:build unix

package cache

import "syscall"

// openRecord opens a record without waiting for a writer when a FIFO
// stands in its place (it is then refused as not a regular file); for a
// regular file it changes nothing.
const openRecord = syscall.O_NONBLOCK
