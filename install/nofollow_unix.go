//go:build unix

package install

import "syscall"

// openNoFollow are the flags a stamped read opens a file with: a link
// put in its place is not followed, nor does a FIFO block the open.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
