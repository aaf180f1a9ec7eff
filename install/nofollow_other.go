//go:build !unix

package install

// openNoFollow are the flags a stamped read opens a file with: none
// here, where the record keeps no stamps.
const openNoFollow = 0
