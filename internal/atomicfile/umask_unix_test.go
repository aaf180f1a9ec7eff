//go:build unix

package atomicfile_test

import (
	"syscall"
	"testing"
)

// strictUmask sets a umask that would take bits from the modes asked
// for, for the test's duration.
func strictUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })
}
