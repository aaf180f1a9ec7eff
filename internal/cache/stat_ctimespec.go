//go:build darwin || freebsd || netbsd

package cache

import "syscall"

// changeTime returns st's change time in nanoseconds since the epoch.
func changeTime(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
