// Package bootid names the boot of the running system, for the stat
// records that vouch for trees without reading them again.
//
// Rules:
//
//  1. A stat record written on one boot vouches for nothing on another.
//     Trees and folders are written without a flush, and some file
//     systems (ext4 with data=writeback, ext2, vfat, some FUSE and network
//     file systems) keep a file's size and inode across a crash but not its
//     bytes: the stamps a record holds would then match a file of zeros or
//     of stale blocks. So every record holds the [ID] of the boot that
//     wrote it, and a reader treats a record that [Same] refuses as absent:
//     the tree is read and hashed once in full and recorded again.
//  2. [ID] is read once a process: on Linux the kernel's boot id
//     (/proc/sys/kernel/random/boot_id); on macOS and the BSDs the boot
//     time (sysctl kern.boottime), in seconds and microseconds. Elsewhere
//     (Windows, where the records keep no stamps anyway) it is "", and a
//     record never counts as written on this boot. A boot time that moves
//     (macOS shifts it when the clock is set) only costs a full check.
//  3. An id holds no space or line end, so a record keeps it on a line
//     of its own, [Line], which [IsLine] reads; one that would is taken
//     as no id.
package bootid

import (
	"strings"
	"sync"
	"sync/atomic"
)

// fake, when set, is the id [ID] returns instead of the system's
// ([SetForTest]).
var fake atomic.Pointer[string]

var system = sync.OnceValue(func() string {
	id := strings.TrimSpace(read())
	if strings.ContainsAny(id, " \t\r\n") || len(id) > 128 {
		return ""
	}
	return id
})

// ID returns the id of the running system's boot, "" when the platform
// gives none (rule 2).
func ID() string {
	if p := fake.Load(); p != nil {
		return *p
	}
	return system()
}

// Same reports whether id, read from a record, names the running boot:
// false when either is "" (rule 1).
func Same(id string) bool {
	now := ID()
	return now != "" && id == now
}

// Line returns the line a record holds the running boot's id on, "boot
// ID", without its line end.
func Line() string {
	return "boot " + ID()
}

// IsLine reports whether line, read from a record, is the [Line] of the
// running boot: false when either id is "" (rule 1).
func IsLine(line string) bool {
	id, ok := strings.CutPrefix(line, "boot ")
	return ok && Same(id)
}

// SetForTest makes [ID] return id until the function it returns is
// called, which restores the system's id. It is for tests that make a
// record look written on another boot; they must not run in parallel with
// others that read records.
func SetForTest(id string) (restore func()) {
	fake.Store(&id)
	return func() { fake.Store(nil) }
}
