package agentdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// Digest returns the content digest of the folder dir.
type Digest func(ctx context.Context, dir string) (string, error)

// Mount makes, under the lease, the skill mount of rs (rule 10) and
// returns it: a folder built once and never changed ([Publish]) that
// holds only the slash-separated path sub, whose last folder holds one
// entry per skill, named by its runtime name: a link to the skill's
// folder, or a copy of it where links cannot be made. The skills folder
// is read-only. sub is where the agent finds skills under a folder it is
// given: ".claude/skills" for Claude Code's --add-dir. digest returns the
// content digest of a folder (skill.ContentDigest), to check a copy; it
// is called with ctx.
func Mount(ctx context.Context, l *Lease, sub string, rs driver.ResolvedSkills, digest Digest) (string, error) {
	dirs := mountDirs(l.Dir(), sub)
	want := mountDigest(sub, rs)
	if l.Unchanged("mount", want, dirs...) {
		return l.Dir(), nil
	}
	before := Snap(dirs...)
	checks, reused := 0, false
	intact := func(dir string) bool {
		ok, links, _ := mountIntact(ctx, dir, sub, rs, digest)
		checks++
		reused = checks == 1 && ok && links
		return ok
	}
	dir, err := Publish(l, intact, func(staging string) error {
		skills := filepath.Join(staging, filepath.FromSlash(sub))
		if err := os.MkdirAll(skills, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", l.kind, err)
		}
		for _, e := range rs.Entries {
			if err := LinkOrCopy(filepath.Join(skills, e.RuntimeName), e.Path); err != nil {
				return fmt.Errorf("mount skill %q: %w", e.Key, err)
			}
		}
		// Mounts are read by the agent, never written: make that plain.
		return os.Chmod(skills, 0o555)
	})
	if err == nil && reused {
		// Found whole, all links, by a check that read the folders
		// after before was taken: the stamp spares the next run that
		// check while they stay as they are.
		l.Stamp("mount", want, before)
	}
	return dir, err
}

// mountDirs lists the folders of a mount at dir: dir, then each folder of
// the slash-separated sub.
func mountDirs(dir, sub string) []string {
	dirs := []string{dir}
	for _, elem := range strings.Split(sub, "/") {
		dir = filepath.Join(dir, elem)
		dirs = append(dirs, dir)
	}
	return dirs
}

// mountDigest digests what a mount of rs with sub holds: sub, then each
// skill's runtime name, folder and content digest.
func mountDigest(sub string, rs driver.ResolvedSkills) string {
	e := cache.NewEncoder()
	e.Str("agentadaptor mount v1")
	e.Str(sub)
	e.U64(uint64(len(rs.Entries)))
	for _, s := range rs.Entries {
		e.Str(s.RuntimeName)
		e.Str(s.Path)
		e.Str(s.Digest)
	}
	return e.Hex()
}

// MountIntact reports whether the folder dir is the skill mount of rs
// that [Mount] makes with sub: each folder of sub holding nothing but the
// next, the last one entry per skill, which is a link to its folder or a
// copy whose content digest is the skill's. None of the folders may be a
// link.
func MountIntact(ctx context.Context, dir, sub string, rs driver.ResolvedSkills, digest Digest) (bool, error) {
	ok, _, err := mountIntact(ctx, dir, sub, rs, digest)
	return ok, err
}

// mountIntact is [MountIntact], and also reports whether every entry is
// a link.
func mountIntact(ctx context.Context, dir, sub string, rs driver.ResolvedSkills, digest Digest) (ok, links bool, err error) {
	p := dir
	for _, elem := range append(strings.Split(sub, "/"), "") {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			return false, false, err
		}
		if elem == "" {
			break
		}
		names, err := ReadNames(p)
		if err != nil {
			return false, false, err
		}
		if len(names) != 1 || names[0] != elem {
			return false, false, nil
		}
		p = filepath.Join(p, elem)
	}
	names, err := ReadNames(p)
	if err != nil {
		return false, false, err
	}
	if len(names) != len(rs.Entries) {
		return false, false, nil
	}
	links = true
	for _, e := range rs.Entries {
		if _, found := slices.BinarySearch(names, e.RuntimeName); !found {
			return false, false, nil
		}
		entry := filepath.Join(p, e.RuntimeName)
		if target, err := os.Readlink(entry); err == nil {
			if target != e.Path {
				return false, false, nil
			}
			continue
		}
		links = false
		fi, err := os.Lstat(entry)
		if err != nil || !fi.IsDir() || e.Digest == "" {
			return false, false, err
		}
		if d, err := digest(ctx, entry); err != nil || d != e.Digest {
			return false, false, err
		}
	}
	return true, links, nil
}
