package main

import "golang.org/x/sys/windows"

// readsTerminal reports whether fd is a console, which NUL, a file or a
// pipe is not.
func readsTerminal(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}
