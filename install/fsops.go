package install

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
)

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tree is a skill's folder as the installer reads it: the folder rel
// (slash-separated, "." for the root itself) inside the folder root,
// read through an os.Root on root. A link whose target stays inside root
// is read as the file it points to (rule 3): for a folder source, root
// is the source, so a SKILL.md linked to a file elsewhere in the source
// is read; the root keeps every link, and every link on the way to its
// target, inside it.
type tree struct {
	root, rel string
	opened    func(name string) // when set, called as each file is opened to be read; only tests set it
}

// folderTree is the tree of the folder dir on its own: links are read
// only when they point to files inside it.
func folderTree(dir string) tree { return tree{root: dir, rel: "."} }

// String names the tree's folder in messages.
func (t tree) String() string { return filepath.Join(t.root, filepath.FromSlash(t.rel)) }

// open opens the tree's root and returns the file system copyTree reads:
// the tree's folder, its links resolved and what a skill leaves out
// (skillcache.LeftOut) not listed.
func (t tree) open() (resolvedFS, func(), error) {
	root, err := os.OpenRoot(t.root)
	if err != nil {
		return resolvedFS{}, nil, err
	}
	return resolvedFS{fsys: root.FS(), dir: t.rel, opened: t.opened}, func() { root.Close() }, nil
}

// copyTree copies the skill folder src into the new folder dst with
// c.CopyFS, under the names, types and limits every source is held to,
// read as [tree] says: a link is copied as the file it points to, and a
// link to a folder, or one that leads out of the tree's root or to
// nothing, fails with a *linkError; version-control folders such as
// ".git" are left out (package skill's rule on what a tree leaves out).
// It returns the copy's content digest, computed as it was copied, and
// the bytes of its files.
func copyTree(ctx context.Context, src tree, dst string, c *skill.Cache) (digest string, size int64, err error) {
	from, closeFrom, err := src.open()
	if err != nil {
		return "", 0, err
	}
	defer closeFrom()
	digest, size, err = skillcache.CopyFS(ctx, c, from, dst)
	if err != nil {
		var le *linkError
		if errors.As(err, &le) {
			err = fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		return "", 0, fmt.Errorf("%s: %w", src, archiveError(err))
	}
	return digest, size, nil
}

// checkTree reads src as copyTree copies it, under the same rules, into
// a folder named name, but writes nothing: it returns the content digest
// such a copy would have.
func checkTree(ctx context.Context, src tree, name string, c *skill.Cache) (string, error) {
	from, closeFrom, err := src.open()
	if err != nil {
		return "", err
	}
	defer closeFrom()
	files, err := skillcache.CheckFS(ctx, c, from)
	if err != nil {
		return "", err
	}
	return skillcache.FilesDigest(name, files), nil
}

// resolvedFS is the folder dir of fsys (an os.Root's file system)
// without what a skill leaves out (skillcache.LeftOut), where a link is listed as the regular file
// it points to; listing a folder that holds a link to a folder, or to
// nothing or outside fsys (which the os.Root refuses to follow), fails
// with a *linkError naming it. Opening a link opens what it points to.
type resolvedFS struct {
	fsys   fs.FS
	dir    string
	opened func(name string) // see tree.opened
}

func (r resolvedFS) name(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return path.Join(r.dir, name), nil
}

func (r resolvedFS) Open(name string) (fs.File, error) {
	p, err := r.name("open", name)
	if err != nil {
		return nil, err
	}
	if r.opened != nil {
		r.opened(name)
	}
	return r.fsys.Open(p)
}

func (r resolvedFS) Stat(name string) (fs.FileInfo, error) {
	p, err := r.name("stat", name)
	if err != nil {
		return nil, err
	}
	return fs.Stat(r.fsys, p)
}

func (r resolvedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := r.name("readdir", name)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(r.fsys, p)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		link := e.Type()&fs.ModeSymlink != 0
		switch {
		case skillcache.LeftOut(e.Name()):
		case link:
			fi, err := r.resolve(path.Join(p, e.Name()), path.Join(name, e.Name()))
			if err != nil {
				return nil, err
			}
			out = append(out, resolvedEntry{name: e.Name(), fi: fi})
		default:
			out = append(out, e)
		}
	}
	return out, nil
}

// resolve describes the regular file the link p of fsys (rel inside the
// tree) points to, or fails with a *linkError saying why it cannot be
// read.
func (r resolvedFS) resolve(p, rel string) (fs.FileInfo, error) {
	target, err := fs.ReadLink(r.fsys, p)
	if err != nil {
		return nil, &linkError{name: rel, why: fmt.Sprintf("that cannot be read: %v", err)}
	}
	fi, err := fs.Stat(r.fsys, p)
	le := &linkError{name: rel, target: target}
	joined := path.Join(path.Dir(p), target)
	switch {
	case path.IsAbs(target) || strings.ContainsAny(target, `\:`) || joined == ".." || strings.HasPrefix(joined, "../"):
		le.why = "which leads out of the source"
	case errors.Is(err, fs.ErrNotExist):
		le.why = "which does not exist"
	case err != nil:
		le.why = "which leads out of the source (through another link) or cannot be read"
	case fi.IsDir():
		le.why = "a folder; links to folders are not followed"
	case !fi.Mode().IsRegular():
		le.why = "which is not a regular file"
	default:
		return fi, nil
	}
	return nil, le
}

// resolvedEntry is a link listed as the file it points to.
type resolvedEntry struct {
	name string
	fi   fs.FileInfo
}

func (e resolvedEntry) Name() string               { return e.name }
func (e resolvedEntry) IsDir() bool                { return false }
func (e resolvedEntry) Type() fs.FileMode          { return e.fi.Mode().Type() }
func (e resolvedEntry) Info() (fs.FileInfo, error) { return e.fi, nil }

// linkError reports a link that cannot be read as a file of the source.
type linkError struct {
	name   string // the link, inside the skill
	target string // what it points to
	why    string
}

func (e *linkError) Error() string {
	if e.target == "" {
		return fmt.Sprintf("%s is a link %s", e.name, e.why)
	}
	return fmt.Sprintf("%s is a link to %q, %s; only links to files inside the source are read (add the folder that holds the link and its target, or make it a file)", e.name, e.target, e.why)
}

// linkProblem walks the tree as copyTree reads it and returns the first
// link that cannot be read (see resolvedFS), or nil. It stops, finding
// nothing, after max entries: copying such a tree fails on the limit.
func linkProblem(ctx context.Context, t tree, max int) error {
	fsys, closeFS, err := t.open()
	if err != nil {
		return nil // copying says what is wrong
	}
	defer closeFS()
	n := 0
	err = fs.WalkDir(fsys, ".", func(_ string, _ fs.DirEntry, err error) error {
		if n++; err == nil && n > max {
			return fs.SkipAll
		}
		if err == nil {
			err = ctx.Err()
		}
		return err
	})
	var le *linkError
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// relLink returns the target of a relative link at linkPath to target,
// computed between the folders' real locations, so that it holds even when
// a parent of either is itself a link.
// Real locations found are remembered in real, when not nil.
func relLink(linkPath, target string, real realDirs) (string, error) {
	fromDir, err := real.eval(filepath.Dir(linkPath))
	if err != nil {
		return "", err
	}
	toDir, err := real.eval(filepath.Dir(target))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(fromDir, filepath.Join(toDir, filepath.Base(target)))
	if err != nil {
		return "", err
	}
	return rel, nil
}

// realDirs remembers the real locations of folders during one operation,
// which makes many links into the same folders. It is not safe for
// concurrent use.
type realDirs map[string]string

func (r realDirs) eval(dir string) (string, error) {
	if p, ok := r[dir]; ok {
		return p, nil
	}
	p, err := filepath.EvalSymlinks(dir)
	if err == nil && r != nil {
		r[dir] = p
	}
	return p, err
}

// noLinkError reports that this system could not make a link at all.
type noLinkError struct{ err error }

func (e *noLinkError) Error() string { return "cannot make links here: " + e.err.Error() }
func (e *noLinkError) Unwrap() error { return e.err }

// placeLink makes path a relative link to target, replacing what was there
// (which the caller has checked is its own: an older link, or a copy)
// atomically. A *noLinkError means links cannot be made here.
func placeLink(path, target string, real realDirs) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	rel, err := relLink(path, target, real)
	if err != nil {
		return err
	}
	// A free place gets the link at once (creating a link is atomic);
	// anything else is replaced by renaming a new link over it.
	if err := os.Symlink(rel, path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrExist) {
		return &noLinkError{err}
	}
	if cur, err := os.Readlink(path); err == nil && cur == rel {
		return nil
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".link-"+randomSuffix())
	if err := os.Symlink(rel, tmp); err != nil {
		return &noLinkError{err}
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = os.Rename(tmp, path)
	case err == nil && fi.IsDir():
		// Our copy becomes a link: exchange, then remove the copy.
		if err = swapDirs(tmp, path); err == nil {
			return os.RemoveAll(tmp)
		}
	case err == nil:
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// isLinkTo reports whether path is a link that resolves to target.
func isLinkTo(path, target string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	a, err1 := filepath.EvalSymlinks(path)
	b, err2 := filepath.EvalSymlinks(target)
	return err1 == nil && err2 == nil && a == b
}

// samePath reports whether two folder paths name the same place; real
// (which may be nil) remembers the folders' real locations.
func samePath(a, b string, real realDirs) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := real.eval(a)
	rb, err2 := real.eval(b)
	return err1 == nil && err2 == nil && ra == rb
}

// relTo returns p relative to root when inside it, else p.
func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return p
}

// abs resolves a path recorded relative to root.
func abs(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

// stagedCopy is a copy of a skill folder staged beside its place.
type stagedCopy struct {
	stage  string // the hidden staging folder
	path   string // the copy inside it, named like dst
	dst    string
	digest string
	size   int64 // the bytes of the copy's files
}

// stageCopy copies src to a hidden staging folder beside dst.
// With shared, a staging folder beside dst that the caller owns, the copy
// goes there instead of into a folder of its own.
func stageCopy(ctx context.Context, src tree, dst, shared string, c *skill.Cache) (*stagedCopy, error) {
	st := &stagedCopy{dst: dst}
	if shared != "" {
		st.path = filepath.Join(shared, filepath.Base(dst))
	} else {
		parent := filepath.Dir(dst)
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, err
		}
		st.stage = filepath.Join(parent, "."+filepath.Base(dst)+".stage-"+randomSuffix())
		if err := os.Mkdir(st.stage, 0o755); err != nil {
			return nil, err
		}
		st.path = filepath.Join(st.stage, filepath.Base(dst))
	}
	digest, size, err := copyTree(ctx, src, st.path, c)
	if err != nil {
		st.discard()
		return nil, err
	}
	st.digest, st.size = digest, size
	return st, nil
}

// content is a folder holding the staged content: the staged copy, or,
// when nothing was staged because the canonical copy already holds it,
// dst.
func (st *stagedCopy) content() string {
	if st.path == "" {
		return st.dst
	}
	return st.path
}

// commit puts the staged copy in place: a rename when the place is free,
// else an atomic exchange with what is there (which the caller has checked
// is its own, and which is then discarded with the stage).
func (st *stagedCopy) commit(free bool) error {
	if !free {
		return swapDirs(st.path, st.dst)
	}
	err := os.Rename(st.path, st.dst)
	if err == nil && st.stage == "" {
		st.path = "" // nothing is left to discard: the shared stage is the caller's
	}
	return err
}

// discard removes the stage, and with it what a commit swapped out.
func (st *stagedCopy) discard() {
	switch {
	case st == nil:
	case st.stage != "":
		os.RemoveAll(st.stage)
		st.stage = ""
	case st.path != "":
		os.RemoveAll(st.path)
		st.path = ""
	}
}

// placeCopyOf makes dst a copy of the canonical copy src, which has the
// given digest, replacing what is there.
func placeCopyOf(ctx context.Context, src, dst, digest string, c *skill.Cache) error {
	st, err := stageCopy(ctx, folderTree(src), dst, "", c)
	if err != nil {
		return err
	}
	defer st.discard()
	if st.digest != digest {
		return fmt.Errorf("copy of %s does not match its digest", src)
	}
	_, err = os.Lstat(dst)
	return st.commit(errors.Is(err, fs.ErrNotExist))
}

// removeAside removes the folder at path by first renaming it to a hidden
// name beside it, so that a crash never leaves half a skill in its place;
// the next run sweeps what a crash left under that name.
func removeAside(path string) error {
	aside := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".trash-"+randomSuffix())
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return os.RemoveAll(aside)
}

// describeDiff says how the folder have differs from the folder want, file
// by file ("SKILL.md changed, notes.md added"), at most ten files.
func describeDiff(have, want string) string {
	a, err1 := fileSums(have)
	b, err2 := fileSums(want)
	if err1 != nil || err2 != nil {
		return ""
	}
	var out []string
	added, removed, changed := diffSums(b, a)
	for _, p := range added {
		out = append(out, p+" added")
	}
	for _, p := range removed {
		out = append(out, p+" removed")
	}
	for _, p := range changed {
		out = append(out, p+" changed")
	}
	slices.Sort(out)
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("and %d more", len(out)-10))
	}
	return strings.Join(out, ", ")
}

func mapKeys(ms ...map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// fileSums maps each file under dir (slash-separated) to its mode's
// executable bit and SHA-256; a link maps to its target text.
func fileSums(dir string) (map[string]string, error) {
	out := map[string]string{}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t, err := root.Readlink(filepath.FromSlash(p))
			out[p] = "link " + t
			return err
		}
		f, err := root.Open(filepath.FromSlash(p))
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%v %x", info.Mode()&0o111 != 0, h.Sum(nil))
		return nil
	})
	return out, err
}

// ourJunction reports whether path is a Windows junction (a mount point,
// which Go reports as a link or an irregular file) to canonical.
func ourJunction(path, canonical string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) == 0 {
		return false
	}
	target, err := os.Readlink(path)
	want, err2 := filepath.Abs(canonical)
	return err == nil && err2 == nil && strings.EqualFold(filepath.Clean(target), filepath.Clean(want))
}

// ourLink reports whether path is a link to canonical (even one left
// dangling because the canonical copy is gone). It first compares the
// link with the one this tool makes there, which takes one read of the
// link when real (which may be nil) knows the folders' real locations,
// and only then resolves both.
func ourLink(path, canonical string, real realDirs) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	target, err1 := os.Readlink(path)
	rel, err2 := relLink(path, canonical, real)
	if err1 == nil && err2 == nil && target == rel {
		return true
	}
	return isLinkTo(path, canonical)
}
