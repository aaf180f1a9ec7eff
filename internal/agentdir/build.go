package agentdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// Key returns the key of the folder of kind k built for the skill set rs
// (rule 8): 32 lowercase hexadecimal digits of a SHA-256, written with
// [cache.Encoder], over the kind's magic, the set's fingerprint, and the
// runtime name and folder of each skill, then each of extra (what else
// the folder depends on, such as the user's agent home).
func Key(k Kind, rs driver.ResolvedSkills, extra ...string) string {
	e := cache.NewEncoder()
	e.Str(k.Magic)
	e.Str(rs.Fingerprint)
	e.U64(uint64(len(rs.Entries)))
	for _, s := range rs.Entries {
		e.Str(s.RuntimeName)
		e.Str(s.Path)
	}
	for _, x := range extra {
		e.Str(x)
	}
	return e.Hex()[:32]
}

// Use takes a lease on the key of kind k under root ([Acquire]), and
// brings the key's folder up to date with build, which returns the
// folder to give the agent. It returns that folder and the function that
// releases the lease once the run is over; when build fails, the lease
// is released and its error returned.
func Use(ctx context.Context, root string, k Kind, key string, build func(*Lease) (string, error)) (dir string, release func(), err error) {
	l, err := Acquire(ctx, root, k, key)
	if err != nil {
		return "", nil, err
	}
	if dir, err = build(l); err != nil {
		l.Release()
		return "", nil, err
	}
	return dir, l.Release, nil
}

// Publish makes the key's folder of a lease a folder that is built once
// and never changed (rule 9): when intact reports that the folder there
// is whole, it is reused; else fill fills a new staging folder beside it,
// which is renamed into place. When another run published first, its
// folder is used if intact, else the broken one is moved aside and
// removed. It returns the key's folder.
func Publish(l *Lease, intact func(dir string) bool, fill func(staging string) error) (string, error) {
	final := l.Dir()
	if intact(final) {
		// Reused: Acquire checked that it is the user's own.
		return final, nil
	}
	staging, err := os.MkdirTemp(l.base, l.key+".staging-")
	if err != nil {
		return "", fmt.Errorf("create %s: %w", l.kind, err)
	}
	defer removeTree(staging)
	if err := fill(staging); err != nil {
		return "", err
	}
	if err := os.Rename(staging, final); err == nil {
		return final, nil
	}
	if intact(final) {
		return final, CheckFolder(final)
	}
	aside := staging + ".old"
	switch err := os.Rename(final, aside); {
	case err == nil:
		defer removeTree(aside)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("replace broken %s %s: %w", l.kind, final, err)
	}
	if err := os.Rename(staging, final); err != nil {
		if intact(final) {
			return final, CheckFolder(final)
		}
		return "", fmt.Errorf("publish %s %s: %w", l.kind, final, err)
	}
	return final, nil
}

// Link makes path a link to target, or leaves it if it is one already
// (another run may have made it a moment ago).
func Link(path, target string) error {
	err := os.Symlink(target, path)
	if errors.Is(err, fs.ErrExist) {
		if got, rerr := os.Readlink(path); rerr == nil && got == target {
			return nil
		}
	}
	return err
}

// LinkOrCopy makes a link at path to the folder dir, or copies dir there
// where links cannot be made (Windows without the right to make them).
// Something already at path is an error.
func LinkOrCopy(path, dir string) error {
	err := os.Symlink(dir, path)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.CopyFS(path, os.DirFS(dir))
}

// SyncLinks makes the folder dir, a skills folder an agent also writes
// to, hold exactly one link per entry of want (name to target folder),
// besides hidden entries, which are the agent's own. Links of other names
// or targets are removed; anything else someone put there stays, and is
// an error when it has a wanted name.
func SyncLinks(dir string, want map[string]string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	right := make(map[string]bool, len(want)) // links already as wanted
	for _, de := range entries {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		target, err := os.Readlink(p)
		if err != nil {
			if _, wanted := want[name]; wanted {
				return fmt.Errorf("%s is not a link this driver made; remove it", p)
			}
			continue
		}
		if want[name] == target {
			right[name] = true
		} else if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		if !right[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if err := Link(filepath.Join(dir, name), want[name]); err != nil {
			return fmt.Errorf("link skill %q: %w", name, err)
		}
	}
	return nil
}

// MirrorLink makes path a link to the user's file or folder target when
// that exists, and removes a link there to target when it does not. A
// file or folder in its place is left: the agent may have replaced the
// link with a newer one of its own (a refreshed login).
func MirrorLink(path, target string) error {
	if _, err := os.Stat(target); err != nil {
		if got, rerr := os.Readlink(path); rerr == nil && got == target {
			return os.Remove(path)
		}
		return nil
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Link(path, target)
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		if got, _ := os.Readlink(path); got == target {
			return nil
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		return Link(path, target)
	}
	return nil
}

// MirrorDir makes every entry of the user's folder user a link of the
// same name in dir, with [MirrorLink]: made for a new entry, removed for
// one the user no longer has, left where the agent put a file or folder
// of its own in its place. Names in except are left to the caller. A
// missing user folder mirrors nothing.
func MirrorDir(dir, user string, except ...string) error {
	names := map[string]bool{}
	userNames, err := ReadNames(user)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read the user's %s: %w", user, err)
	}
	ours, err := ReadNames(dir)
	if err != nil {
		return err
	}
	for _, n := range append(userNames, ours...) {
		names[n] = !slices.Contains(except, n)
	}
	for n, mirror := range names {
		if !mirror {
			continue
		}
		if err := MirrorLink(filepath.Join(dir, n), filepath.Join(user, n)); err != nil {
			return err
		}
	}
	return nil
}

// ReadNames returns the names in the folder dir, sorted.
func ReadNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}
