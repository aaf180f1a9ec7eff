//go:build unix

package agentdir

import "syscall"

// noFollow refuses to open a link in place of a lease file.
const noFollow = syscall.O_NOFOLLOW
