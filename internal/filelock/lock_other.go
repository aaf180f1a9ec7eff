//go:build !unix && !windows

package filelock

import "os"

// tryLock takes no lock where file locks are unavailable (rule 7).
func tryLock(*os.File, bool) error { return nil }

// waitLock takes no lock where file locks are unavailable (rule 7).
func waitLock(*os.File, bool) error { return nil }
