package claude

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillsDir is where Claude Code finds skills under a folder given with
// --add-dir.
const skillsDir = ".claude/skills"

// mountKey names the mount of a skill set: its fingerprint and the folders
// it links to, so a mount never points at another run's folders.
func mountKey(rs driver.ResolvedSkills) string {
	h := sha256.New()
	put := func(s string) {
		binary.Write(h, binary.BigEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	put("agentadaptor claude mount v1")
	put(rs.Fingerprint)
	binary.Write(h, binary.BigEndian, uint64(len(rs.Entries)))
	for _, e := range rs.Entries {
		put(e.RuntimeName)
		put(e.Path)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// mount returns the folder to pass with --add-dir for rs: under root,
// holding .claude/skills/<runtime-name> for each skill, a link to its
// folder (a copy where links cannot be made). It is built once, atomically,
// and reused by every run with the same set. The run holds a lease on it
// until it calls release, so that a collection of the cache keeps it.
func mount(ctx context.Context, root string, rs driver.ResolvedSkills) (dir string, release func(), err error) {
	lease, err := agentdir.Acquire(ctx, root, agentdir.ClaudeMount, mountKey(rs))
	if err != nil {
		return "", nil, err
	}
	if dir, err = build(ctx, lease, rs); err != nil {
		lease.Release()
		return "", nil, err
	}
	return dir, lease.Release, nil
}

// build makes the mount of rs under the lease, or reuses the one there.
func build(ctx context.Context, lease *agentdir.Lease, rs driver.ResolvedSkills) (string, error) {
	base, final := lease.Base(), lease.Dir()
	if ok, _ := mountIntact(ctx, final, rs); ok {
		// Reused: Acquire checked that it is the user's own.
		return final, nil
	}
	staging, err := os.MkdirTemp(base, filepath.Base(final)+".staging-")
	if err != nil {
		return "", fmt.Errorf("create skill mount: %w", err)
	}
	defer os.RemoveAll(staging)
	skills := filepath.Join(staging, filepath.FromSlash(skillsDir))
	if err := os.MkdirAll(skills, 0o755); err != nil {
		return "", fmt.Errorf("create skill mount: %w", err)
	}
	for _, e := range rs.Entries {
		if err := placeSkill(filepath.Join(skills, e.RuntimeName), e.Path); err != nil {
			return "", fmt.Errorf("mount skill %q: %w", e.Key, err)
		}
	}
	// Mounts are read by the agent, never written: make that plain.
	if err := os.Chmod(skills, 0o555); err != nil {
		return "", err
	}
	defer os.Chmod(skills, 0o755) // so the deferred RemoveAll can empty a staging that lost
	if err := os.Rename(staging, final); err == nil {
		return final, nil
	}
	// Another run published the same mount first, or a broken one is in
	// the way: use the first if it checks out, else replace it.
	if ok, _ := mountIntact(ctx, final, rs); ok {
		return final, agentdir.CheckFolder(final)
	}
	aside := staging + ".old"
	switch err := os.Rename(final, aside); {
	case err == nil:
		defer removeMount(aside)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("replace broken skill mount %s: %w", final, err)
	}
	if err := os.Rename(staging, final); err != nil {
		if ok, _ := mountIntact(ctx, final, rs); ok {
			return final, agentdir.CheckFolder(final)
		}
		return "", fmt.Errorf("publish skill mount %s: %w", final, err)
	}
	return final, nil
}

// placeSkill makes a link at name to dir, or copies dir there where links
// cannot be made.
func placeSkill(name, dir string) error {
	err := os.Symlink(dir, name)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.CopyFS(name, os.DirFS(dir))
}

// mountIntact reports whether the mount at dir holds exactly rs: the one
// entry .claude, holding only skills, holding one entry per skill that is
// a link to its folder (or a copy with its content); none of the three
// folders may be a link.
func mountIntact(ctx context.Context, dir string, rs driver.ResolvedSkills) (bool, error) {
	// The mount and its two folders are real folders, never links.
	for _, p := range []string{dir, filepath.Join(dir, ".claude"), filepath.Join(dir, filepath.FromSlash(skillsDir))} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			return false, err
		}
	}
	for _, level := range []struct{ path, want string }{{dir, ".claude"}, {filepath.Join(dir, ".claude"), "skills"}} {
		names, err := readNames(level.path)
		if err != nil {
			return false, err
		}
		if len(names) != 1 || names[0] != level.want {
			return false, nil
		}
	}
	skills := filepath.Join(dir, filepath.FromSlash(skillsDir))
	names, err := readNames(skills)
	if err != nil {
		return false, err
	}
	if len(names) != len(rs.Entries) {
		return false, nil
	}
	for _, e := range rs.Entries {
		if _, found := slices.BinarySearch(names, e.RuntimeName); !found {
			return false, nil
		}
		p := filepath.Join(skills, e.RuntimeName)
		if target, err := os.Readlink(p); err == nil {
			if target != e.Path {
				return false, nil
			}
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || e.Digest == "" {
			return false, err
		}
		if d, err := skill.ContentDigest(ctx, p); err != nil || d != e.Digest {
			return false, err
		}
	}
	return true, nil
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// removeMount removes a mount, whose skills folder is read-only.
func removeMount(dir string) {
	// Only through real folders: a link planted in a broken mount is
	// removed, never followed.
	if fi, err := os.Lstat(filepath.Join(dir, ".claude")); err == nil && fi.IsDir() {
		os.Chmod(filepath.Join(dir, filepath.FromSlash(skillsDir)), 0o755)
	}
	os.RemoveAll(dir)
}
