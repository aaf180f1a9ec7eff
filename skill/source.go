package skill

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
)

// The kinds of source the package knows. A source's kind is told by the
// accessor method it has, not by its type, so the package's source values,
// pointers to them, and a host's own types with one of these methods are
// all understood the same way by [SourceDiff] and the default materializer:
//
//	SkillPath() string                               a folder (PathSource)
//	InlineSkillMD() string                           one SKILL.md (InlineSource)
//	SkillFS() (fs.FS, string)                        an fs.FS tree (FSSource)
//	SkillArchive() (Opener, string, string, string)  an archive (ArchiveSource)
//
// canonical returns the source as the package's value of its kind, or src
// itself when it has none of the methods. A nil source, or a nil pointer,
// map or func stored in one, is missing: ok is false.
func canonical(src Source) (_ Source, ok bool) {
	if isNil(src) {
		return nil, false
	}
	switch s := src.(type) {
	case interface{ SkillPath() string }:
		return PathSource{Path: s.SkillPath()}, true
	case interface{ InlineSkillMD() string }:
		return InlineSource{SkillMD: s.InlineSkillMD()}, true
	case interface{ SkillFS() (fs.FS, string) }:
		fsys, root := s.SkillFS()
		return FSSource{FS: fsys, Root: root}, true
	case interface {
		SkillArchive() (Opener, string, string, string)
	}:
		open, format, subpath, fingerprint := s.SkillArchive()
		return ArchiveSource{Archive: open, Format: Format(format), Subpath: subpath, Fingerprint: fingerprint}, true
	}
	return src, true
}

// isNil reports whether v is nil or a nil pointer, map, slice, func, chan
// or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return r.IsNil()
	}
	return false
}

// SourceDiff says how two skill sources differ, in a phrase fit for
// [SkillKeyConflictError.Detail], or returns "" when they are the same
// source. The rules, by kind (see the accessor methods above):
//
//  1. Folders are the same when their absolute, cleaned paths are equal.
//  2. Inline sources are the same when their SKILL.md texts are equal.
//  3. FS sources are the same when they hold the same fs.FS value (equal
//     when comparable, the same map or pointer otherwise) and their roots
//     are equal once slashes at either end are trimmed ("" is ".").
//  4. Archives are the same when their formats, their subpaths (slashes at
//     either end trimmed) and their non-empty fingerprints are equal; two
//     archives without a fingerprint are never the same, because an
//     Opener, a func, has no identity.
//  5. Sources of other types are the same when they are the same value
//     (as for FS values above).
//  6. Sources of different kinds always differ.
//  7. A missing source (nil, or a nil pointer, map, slice or func stored
//     in the interface) differs from every source that is not missing, so
//     SourceDiff(src, nil) == "" reports a missing src; a skill with one
//     fails with [ErrSkillSourceMissing].
//
// Adaptor uses it to tell two declarations of one key apart; it is
// exported so that a host that merges skill sets itself (a Provider, say)
// applies the same rules.
func SourceDiff(a, b Source) string {
	ca, okA := canonical(a)
	cb, okB := canonical(b)
	if !okA || !okB {
		if !okA && !okB {
			return ""
		}
		return "one source is missing"
	}
	if ka, kb := kind(ca), kind(cb); ka != kb {
		return fmt.Sprintf("a %s source differs from a %s source", ka, kb)
	}
	switch x := ca.(type) {
	case PathSource:
		y := cb.(PathSource)
		if px, py := absClean(x.Path), absClean(y.Path); px != py {
			return fmt.Sprintf("folder %s differs from %s", px, py)
		}
	case InlineSource:
		if x.SkillMD != cb.(InlineSource).SkillMD {
			return "inline SKILL.md text differs"
		}
	case FSSource:
		y := cb.(FSSource)
		if !sameValue(x.FS, y.FS) {
			return "the fs.FS values differ"
		}
		if trimRoot(x.Root) != trimRoot(y.Root) {
			return fmt.Sprintf("FS root %q differs from %q", x.Root, y.Root)
		}
	case ArchiveSource:
		y := cb.(ArchiveSource)
		switch {
		case x.Format != y.Format:
			return fmt.Sprintf("archive format %q differs from %q", x.Format, y.Format)
		case strings.Trim(x.Subpath, "/") != strings.Trim(y.Subpath, "/"):
			return fmt.Sprintf("archive subpath %q differs from %q", x.Subpath, y.Subpath)
		case x.Fingerprint == "" || y.Fingerprint == "":
			return "archives without a fingerprint are never assumed equal (set skill.WithFingerprint on both)"
		case x.Fingerprint != y.Fingerprint:
			return fmt.Sprintf("archive fingerprint %q differs from %q", x.Fingerprint, y.Fingerprint)
		}
	default:
		if !sameValue(ca, cb) {
			return fmt.Sprintf("sources of type %T cannot be shown to be equal", a)
		}
	}
	return ""
}

// kind names a canonical source's kind, or its type for a host's own.
func kind(src Source) string {
	switch src.(type) {
	case PathSource:
		return "folder"
	case InlineSource:
		return "inline"
	case FSSource:
		return "FS"
	case ArchiveSource:
		return "archive"
	}
	return fmt.Sprintf("%T", src)
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

func trimRoot(r string) string {
	r = strings.Trim(r, "/")
	if r == "" {
		return "."
	}
	return r
}

// sameValue reports whether a and b are the same value: equal when
// comparable, the same map, pointer, func or chan otherwise.
func sameValue(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Map, reflect.Pointer, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return va.Pointer() == vb.Pointer()
	case reflect.Slice:
		return va.Pointer() == vb.Pointer() && va.Len() == vb.Len()
	}
	if !va.Comparable() || !vb.Comparable() {
		return false
	}
	return va.Equal(vb)
}
