package process

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes this process a child subreaper (Linux's
// PR_SET_CHILD_SUBREAPER): a descendant whose parent dies is then
// reparented to this process rather than to init, so that [Run] can find
// and stop the orphans of a run without trusting their environment (rule
// 11, which also says what the process then accepts about its other
// children). The attribute is process-wide and lasts for the life of the
// process: call it early in main. Run never calls it. On other systems it
// does nothing and returns nil.
func AdoptOrphans() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return &os.SyscallError{Syscall: "prctl(PR_SET_CHILD_SUBREAPER)", Err: err}
	}
	return nil
}

// adopting reports whether this process is a child subreaper.
func adopting() bool {
	var on int32
	err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0)
	return err == nil && on != 0
}

// maxOrphanRounds bounds the rounds of reapOrphans: each round stops the
// orphans found, whose own children are reparented to this process and
// found by the next one.
const maxOrphanRounds = 100

// reapOrphans stops and reaps the orphans of the run whose program is prog,
// started at since (clock ticks after boot), with the environment entry
// tag (rule 11). It does nothing unless this process is a child subreaper.
//
// A child of this process is taken for an orphan of the run when it is not
// prog, it started at or after since, this process holds no pidfd for it
// (Go's os.StartProcess holds one for every child it starts, from the fork
// until it has reaped it, so none of the process's own children started by
// os/exec, another run's program included, is ever taken), its environment
// does not carry another run's tag, and, unless it carries this run's tag,
// it started before every other run of this process still running: an
// orphan that may belong to another run is left to that run. Each is
// signalled and reaped through a pidfd opened after it was found and
// checked again after (its parent and start time), so a reused pid is
// never signalled; it is never reaped by waiting for any child.
func reapOrphans(prog int, since uint64, tag string) {
	if since == 0 || !adopting() {
		return
	}
	self := os.Getpid()
	for range maxOrphanRounds {
		kids := children(self)
		held := heldPids()
		found := false
		for _, k := range orphansOf(kids, held, prog, since, tag) {
			if stopOrphan(self, k) {
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// kid is a child process of this one, as /proc showed it.
type kid struct {
	pid   int
	start uint64 // clock ticks after boot
	env   []byte // its environment; empty for a zombie
}

// orphansOf picks, among kids, the orphans of the run of prog (see
// reapOrphans); held are the pids this process holds a pidfd for.
func orphansOf(kids []kid, held map[int]bool, prog int, since uint64, tag string) []kid {
	own := []byte(tag + "\x00")
	anyTag := []byte(tagVar + "=")
	// The earliest start of another run's program still running: a child
	// started by os/exec whose environment carries another tag.
	var other uint64
	for _, k := range kids {
		if k.pid != prog && held[k.pid] && bytes.Contains(k.env, anyTag) && !bytes.Contains(k.env, own) {
			if other == 0 || k.start < other {
				other = k.start
			}
		}
	}
	var out []kid
	for _, k := range kids {
		switch {
		case k.pid == prog || held[k.pid]:
		case bytes.Contains(k.env, own):
			out = append(out, k)
		case bytes.Contains(k.env, anyTag):
			// Another run's: its own sweep stops it.
		case k.start <= since:
			// Not after the program: maybe not the run's. Start times
			// count clock ticks, so a process started in the same tick
			// is not known to be later.
		case other != 0 && k.start >= other:
			// It may be another run's: that run stops it when it ends.
		default:
			out = append(out, k)
		}
	}
	return out
}

// stopOrphan kills child k of process self, unless it has exited, and
// reaps it, both through a pidfd; it reports whether it did.
func stopOrphan(self int, k kid) bool {
	fd, err := unix.PidfdOpen(k.pid, 0)
	if err != nil {
		return false // gone, or pidfds unsupported (Linux before 5.3)
	}
	defer unix.Close(fd)
	// The pid may have been reaped (by whoever waits for any child) and
	// reused since the scan: the pidfd must name the same process.
	if ppid, start, err := stat(k.pid); err != nil || ppid != self || start != k.start {
		return false
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}

// children lists the children of process self from /proc.
func children(self int) []kid {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []kid
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		ppid, start, err := stat(pid)
		if err != nil || ppid != self {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		out = append(out, kid{pid: pid, start: start, env: env})
	}
	return out
}

// startTime returns when process pid started, in clock ticks after boot.
func startTime(pid int) (uint64, error) {
	_, start, err := stat(pid)
	return start, err
}

// stat reads the parent and start time of process pid from /proc/PID/stat.
func stat(pid int) (ppid int, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses;
	// the fields after it are plain. They start at field 3, the state;
	// field 4 is the parent, field 22 the start time.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, 0, errors.New("malformed /proc stat")
	}
	if ppid, err = strconv.Atoi(f[1]); err != nil {
		return 0, 0, err
	}
	if start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return 0, 0, err
	}
	return ppid, start, nil
}

// heldPids returns the pids of the processes this process holds a pidfd
// for, from /proc/self/fd and /proc/self/fdinfo.
func heldPids() map[int]bool {
	held := map[int]bool{}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return held
	}
	for _, e := range entries {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || link != "anon_inode:[pidfd]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(info)) {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && pid > 0 {
					held[pid] = true
				}
			}
		}
	}
	return held
}
