package process

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// sweep kills every process whose environment carries the run's tag: the
// program's descendants that left its group (rule 9). It scans /proc until
// a scan finds no tagged process alive; a process is signalled through a
// pidfd opened after its environment was read and checked again after, so
// a reused pid is never signalled.
func sweep(tag string) {
	needle := []byte(tag + "\x00")
	self := os.Getpid()
	var env []byte
	dents := make([]byte, 16<<10)
	for round := range 50 {
		found := false
		if !eachPid(dents, func(proc, pid int) {
			if pid == self || !tagged(proc, pid, needle, &env) {
				return
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				return // gone, or pidfds unsupported (Linux before 5.3)
			}
			if tagged(proc, pid, needle, &env) {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				found = true
			}
			unix.Close(fd)
		}) || !found {
			return
		}
		// Killed processes take a moment to become zombies, whose
		// environment reads empty; children forked meanwhile are found by
		// the next scan.
		time.Sleep(time.Duration(round+1) * time.Millisecond)
	}
}

// eachPid calls f with a descriptor of /proc and the pid of each process
// it lists, reading the listing with getdents into buf, and parsing the
// names where they are: a sweep lists /proc after every run, and
// os.ReadDir would also make, and sort, an entry for each. It reports
// false when /proc cannot be read.
func eachPid(buf []byte, f func(proc, pid int)) bool {
	proc, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(proc)
	for {
		n, err := unix.Getdents(proc, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		if n <= 0 {
			return true
		}
		// Each record: inode (8 bytes), offset (8), its length (2), type
		// (1), then the name, NUL-terminated.
		for off := 0; off+19 <= n; {
			size := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if size < 19 || off+size > n {
				return false
			}
			if pid, ok := pidOf(buf[off+19 : off+size]); ok {
				f(proc, pid)
			}
			off += size
		}
	}
}

// pidOf returns the pid a /proc entry's NUL-terminated name is, when it
// is one: decimal digits only.
func pidOf(name []byte) (int, bool) {
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if len(name) == 0 || len(name) > 9 {
		return 0, false
	}
	pid := 0
	for _, c := range name {
		if c < '0' || c > '9' {
			return 0, false
		}
		pid = pid*10 + int(c-'0')
	}
	return pid, true
}

// tagged reports whether process pid has needle in its environment,
// read through proc, a descriptor of /proc. Processes of other users
// cannot be read and are never tagged. The environment is read into *buf,
// kept for the next call, with plain system calls: an open, reads and a
// close, where os.ReadFile would also stat the file and set its blocking
// mode (a sweep reads every process's environment after every run). A
// read that returns fewer bytes than asked for has reached the end:
// Linux fills a read of /proc/PID/environ until the environment ends or
// the process's memory cannot be read, after which a further read would
// fail, so the read that would return nothing is not made.
func tagged(proc, pid int, needle []byte, buf *[]byte) bool {
	fd, err := unix.Openat(proc, strconv.Itoa(pid)+"/environ", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	env := (*buf)[:0]
	for {
		if len(env) == cap(env) {
			env = append(env, make([]byte, max(16<<10, cap(env)))...)[:len(env)]
		}
		want := cap(env) - len(env)
		n, err := unix.Read(fd, env[len(env):cap(env)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			*buf = env
			return false
		}
		env = env[:len(env)+n]
		if n < want {
			break
		}
	}
	*buf = env
	return bytes.Contains(env, needle)
}
