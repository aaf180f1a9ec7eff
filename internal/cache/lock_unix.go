//go:build unix

package cache

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// claimAbandoned reports whether a staging area whose lock file is lock
// has no living owner, in which case it returns holding the lock: the
// caller removes the area, lock file last, then calls release.
func claimAbandoned(dir *os.Root, lock string, _ time.Time) (release func(), ok bool) {
	f, err := dir.Open(lock)
	if err != nil {
		return nil, false
	}
	if filelock.TryLock(f) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// CheckOwner refuses a folder another user owns or may write: one that
// is not the current user's, or that its group or every user may write.
func CheckOwner(fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("belongs to user %d, not to this user", st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("may be written by its group or by every user (mode %v; chmod go-w it)", fi.Mode().Perm())
	}
	return nil
}
