//go:build unix

package process

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

func spawnAttr(escape bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: escape}
}

func unixAction(name, arg string) bool {
	switch name {
	case "pgid":
		fmt.Printf("%d %d\n", os.Getpid(), syscall.Getpgrp())
	case "raise":
		sig := map[string]syscall.Signal{"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM}[arg]
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Minute)
	default:
		return false
	}
	return true
}
