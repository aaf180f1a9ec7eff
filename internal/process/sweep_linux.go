package process

import (
	"bytes"
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
	var buf []byte
	for round := range 50 {
		found := false
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self || !tagged(pid, needle, &buf) {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue // gone, or pidfds unsupported (Linux before 5.3)
			}
			if tagged(pid, needle, &buf) {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				found = true
			}
			unix.Close(fd)
		}
		if !found {
			return
		}
		// Killed processes take a moment to become zombies, whose
		// environment reads empty; children forked meanwhile are found by
		// the next scan.
		time.Sleep(time.Duration(round+1) * time.Millisecond)
	}
}

// tagged reports whether process pid has needle in its environment.
// Processes of other users cannot be read and are never tagged. The
// environment is read into *buf, kept for the next call, with plain
// system calls: an open, reads and a close, where os.ReadFile would also
// stat the file and set its blocking mode (a sweep reads every process's
// environment after every run).
func tagged(pid int, needle []byte, buf *[]byte) bool {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/environ", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	env := (*buf)[:0]
	for {
		if len(env) == cap(env) {
			env = append(env, make([]byte, max(4096, cap(env)))...)[:len(env)]
		}
		n, err := unix.Read(fd, env[len(env):cap(env)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			*buf = env
			return false
		}
		if n == 0 {
			break
		}
		env = env[:len(env)+n]
	}
	*buf = env
	return bytes.Contains(env, needle)
}
