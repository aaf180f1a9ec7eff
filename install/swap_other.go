//go:build !linux

package install

import "os"

// swapDirs exchanges two folders: where no atomic exchange exists, a is
// moved aside first, so a crash between the two renames leaves the old
// folder beside its place, under a hidden name, for sync to restore.
func swapDirs(a, b string) error {
	aside := b + ".swap"
	if err := os.Rename(b, aside); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(aside, b)
		return err
	}
	return os.Rename(aside, a)
}
