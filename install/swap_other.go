//go:build !linux

package install

import "os"

// swapDirs exchanges two folders: where no atomic exchange exists, b is
// renamed to b+".swap", a to b, and b+".swap" to a. A crash in between
// leaves b+".swap" beside b, where nothing removes it; b itself is then
// missing or already the new folder, and sync repairs a missing one.
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
