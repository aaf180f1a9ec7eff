package cache

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strings"
)

// File describes one regular file of a skill tree.
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

// Link describes one symbolic link of a skill tree. Trees in a [Store]
// never hold links; folders digested in place may.
type Link struct {
	// Path is slash-separated and relative to the skill folder.
	Path string
	// Target is the text the link holds, slash-separated.
	Target string
}

// digestMagic opens every encoding and names its version. It is still
// version 1: the link entry (tag 2) was added without changing the
// encoding of a tree without links (see the package doc, # Digest).
const digestMagic = "agentadaptor skill tree v1\x00"

// Entry tags: the byte after an entry's path.
const (
	tagFile     = 0
	tagExecFile = 1
	tagLink     = 2
)

// Digest returns the content address of a tree of regular files: the
// lowercase hex SHA-256 of the encoding the package doc defines (# Digest)
// of the runtime name and files. The order of files does not matter.
// Digest is [DigestTree] without links.
func Digest(name string, files []File) string {
	return DigestTree(name, files, nil)
}

// DigestTree returns the content address of a tree of regular files and
// symbolic links: the lowercase hex SHA-256 of the encoding the package
// doc defines (# Digest). The order of files and links does not matter.
func DigestTree(name string, files []File, links []Link) string {
	files = slices.SortedFunc(slices.Values(files), compareFiles)
	links = slices.SortedFunc(slices.Values(links), compareLinks)
	e := NewEncoder()
	e.Raw([]byte(digestMagic))
	e.Str(name)
	e.U64(uint64(len(files) + len(links)))
	// Merge by path; on equal paths (no real tree has them) a file's tag
	// is lower than a link's.
	for len(files) > 0 || len(links) > 0 {
		if len(links) == 0 || (len(files) > 0 && files[0].Path <= links[0].Path) {
			f := files[0]
			files = files[1:]
			e.Str(f.Path)
			e.Byte(tag(f))
			e.U64(uint64(f.Size))
			e.Raw(f.Sum[:])
			continue
		}
		l := links[0]
		links = links[1:]
		e.Str(l.Path)
		e.Byte(tagLink)
		e.Str(l.Target)
	}
	return e.Hex()
}

// Encoder hashes a framed record with SHA-256, in the vocabulary of the
// package doc (# Digest): u64 is an unsigned 64-bit big-endian integer,
// str a u64 byte count followed by that many bytes. Every digest the module
// records (tree digests, archive memo keys, skill-set fingerprints) is
// written with one, so each reads back one way only.
type Encoder struct {
	h   hash.Hash
	buf [8]byte
	str []byte // a string's bytes for Str, kept from call to call
}

// NewEncoder returns an Encoder with nothing written.
func NewEncoder() *Encoder { return &Encoder{h: sha256.New()} }

// Raw writes b as it is: fixed-length fields and magic strings.
func (e *Encoder) Raw(b []byte) { e.h.Write(b) }

// Byte writes one byte: a tag or a boolean (0 or 1).
func (e *Encoder) Byte(b byte) { e.h.Write([]byte{b}) }

// Bool writes b as one byte, 1 for true and 0 for false.
func (e *Encoder) Bool(b bool) {
	if b {
		e.Byte(1)
	} else {
		e.Byte(0)
	}
}

// U64 writes n as 8 bytes, big-endian.
func (e *Encoder) U64(n uint64) {
	binary.BigEndian.PutUint64(e.buf[:], n)
	e.h.Write(e.buf[:])
}

// Str writes s's length as a u64, then its bytes.
func (e *Encoder) Str(s string) {
	e.U64(uint64(len(s)))
	e.str = append(e.str[:0], s...)
	e.h.Write(e.str)
}

// Hex returns the lowercase hex SHA-256 of what was written.
func (e *Encoder) Hex() string { return hex.EncodeToString(e.h.Sum(nil)) }

// compareFiles orders files by path, then (for equal paths, which no real
// tree has) by the rest of their encoding, so that the digest never
// depends on the order of its input.
func compareFiles(a, b File) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return cmp.Or(
		cmp.Compare(tag(a), tag(b)),
		cmp.Compare(uint64(a.Size), uint64(b.Size)),
		bytes.Compare(a.Sum[:], b.Sum[:]),
	)
}

func tag(f File) byte {
	if f.Exec {
		return tagExecFile
	}
	return tagFile
}

// compareLinks orders links by path, then by the rest of their encoding:
// the target's length, then its bytes.
func compareLinks(a, b Link) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(len(a.Target), len(b.Target)), strings.Compare(a.Target, b.Target))
}
