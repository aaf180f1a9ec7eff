//go:build !unix

package cache

// openRecord is none where no FIFO can stand in a record's place.
const openRecord = 0
