package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// File describes one file of a skill tree.
type File struct {
	// Path is slash-separated and relative to the skill folder.
	Path string
	// Exec reports whether the file is executable.
	Exec bool
	// Size is the file's length in bytes.
	Size int64
	// Sum is the SHA-256 of the file's bytes.
	Sum [32]byte
}

const digestMagic = "agentadaptor skill tree v1\x00"

// Digest returns the content address of a skill tree: the hex SHA-256 of a
// framed encoding of the runtime name and, for every file in path order,
// its path, executable bit, size and SHA-256. Every variable-length field
// is length-prefixed, so no two trees share an encoding. Folders carry no
// content of their own and are not encoded. Digest does not modify files.
func Digest(name string, files []File) string {
	sorted := slices.SortedFunc(slices.Values(files), func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	var n [8]byte
	frame := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	h.Write([]byte(digestMagic))
	frame(name)
	binary.BigEndian.PutUint64(n[:], uint64(len(sorted)))
	h.Write(n[:])
	for _, f := range sorted {
		frame(f.Path)
		if f.Exec {
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
		binary.BigEndian.PutUint64(n[:], uint64(f.Size))
		h.Write(n[:])
		h.Write(f.Sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}
