//go:build !unix && !windows

package cache

import (
	"os"
	"time"
)

// lockFile is advisory only where flock is unavailable: staging areas are
// then judged abandoned by age.
func lockFile(*os.File) error { return nil }

// staleAfter is how old an unlocked staging area must be before a sweep
// removes it where file locks are unavailable.
const staleAfter = 24 * time.Hour

func claimAbandoned(_ *os.Root, _ string, mod time.Time) (release func(), ok bool) {
	return func() {}, time.Since(mod) > staleAfter
}

// waitLock does nothing where flock is unavailable.
func waitLock(*os.File) error { return nil }

// CheckOwner accepts every folder where ownership is not checked.
func CheckOwner(os.FileInfo) error { return nil }
