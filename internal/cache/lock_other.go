//go:build !unix

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

func abandoned(_ string, mod time.Time) bool { return time.Since(mod) > staleAfter }
