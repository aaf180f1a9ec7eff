//go:build unix

package eval

import "syscall"

// oNoFollow makes an open fail on a link, where the system can.
const oNoFollow = syscall.O_NOFOLLOW
