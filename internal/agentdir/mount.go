package agentdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
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
	intact := func(dir string) bool {
		ok, _ := MountIntact(ctx, dir, sub, rs, digest)
		return ok
	}
	return Publish(l, intact, func(staging string) error {
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
}

// MountIntact reports whether the folder dir is the skill mount of rs
// that [Mount] makes with sub: each folder of sub holding nothing but the
// next, the last one entry per skill, which is a link to its folder or a
// copy whose content digest is the skill's. None of the folders may be a
// link.
func MountIntact(ctx context.Context, dir, sub string, rs driver.ResolvedSkills, digest Digest) (bool, error) {
	p := dir
	for _, elem := range append(strings.Split(sub, "/"), "") {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			return false, err
		}
		if elem == "" {
			break
		}
		names, err := ReadNames(p)
		if err != nil {
			return false, err
		}
		if len(names) != 1 || names[0] != elem {
			return false, nil
		}
		p = filepath.Join(p, elem)
	}
	names, err := ReadNames(p)
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
		entry := filepath.Join(p, e.RuntimeName)
		if target, err := os.Readlink(entry); err == nil {
			if target != e.Path {
				return false, nil
			}
			continue
		}
		fi, err := os.Lstat(entry)
		if err != nil || !fi.IsDir() || e.Digest == "" {
			return false, err
		}
		if d, err := digest(ctx, entry); err != nil || d != e.Digest {
			return false, err
		}
	}
	return true, nil
}
