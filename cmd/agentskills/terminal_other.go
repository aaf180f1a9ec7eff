//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package main

// readsTerminal reports false: on other systems no terminal is known,
// and commands that would ask refuse instead, as without one.
func readsTerminal(fd uintptr) bool { return false }
