//go:build !unix

package atomicfile_test

import "testing"

// strictUmask does nothing: there is no umask here.
func strictUmask(*testing.T) {}
