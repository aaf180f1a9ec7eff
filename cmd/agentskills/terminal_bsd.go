//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

// readsTerminal reports whether fd is a terminal: one that answers the
// terminal's own request, which /dev/null, a file or a pipe does not.
func readsTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TIOCGETA)
	return err == nil
}
