//go:build unix

package readfile

import "syscall"

// openFlags opens a FIFO that replaced a file without waiting for a
// writer; for a regular file it changes nothing.
const openFlags = syscall.O_NONBLOCK
