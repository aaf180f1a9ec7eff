//go:build !windows

package install

import "errors"

// makeJunction is Windows only: elsewhere a folder that cannot hold links
// gets a copy.
func makeJunction(path, target string) error { return errors.ErrUnsupported }
