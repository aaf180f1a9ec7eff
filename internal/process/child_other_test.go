//go:build !unix

package process

import "syscall"

func spawnAttr(escape bool) *syscall.SysProcAttr {
	if escape {
		panic("escape needs Unix")
	}
	return nil
}

func unixAction(name, arg string) bool { return false }
