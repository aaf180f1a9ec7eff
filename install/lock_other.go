//go:build !unix && !windows

package install

import "os"

// lockFile is a no-op where file locks are unavailable (neither Unix nor
// Windows).
func lockFile(*os.File) error { return nil }
