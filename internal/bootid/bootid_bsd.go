//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package bootid

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// read returns the boot time, as seconds and microseconds.
func read() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
}
