//go:build unix

package cache

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symbolic links checkAncestors follows on the way to
// a folder, as the kernel does (Linux stops at 40).
const maxLinks = 40

// checkAncestors refuses the absolute folder p when a user other than the
// current one (or root) could replace it or any folder above it: every
// folder on the way, p included and every link's target followed, must
// pass [checkAncestor], and every link on the way must belong to the
// current user or root (rule 5).
func checkAncestors(p string) error {
	me := os.Geteuid()
	cur := string(filepath.Separator)
	rest := strings.Split(p, string(filepath.Separator))
	links := 0
	if err := checkAncestorAt(cur, me); err != nil {
		return err
	}
	for len(rest) > 0 {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, elem)
		fi, err := os.Lstat(next)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links++; links > maxLinks {
				return fmt.Errorf("folder %s: too many links on the way", p)
			}
			if uid := owner(fi); uid != me && uid != 0 {
				return fmt.Errorf("link %s on the way to %s belongs to user %d, who could point it elsewhere", next, p, uid)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return err
			}
			if filepath.IsAbs(target) {
				cur = string(filepath.Separator)
			}
			rest = append(strings.Split(target, string(filepath.Separator)), rest...)
			continue
		}
		if err := checkAncestor(next, fi, me); err != nil {
			return err
		}
		cur = next
	}
	return nil
}

func checkAncestorAt(p string, me int) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	return checkAncestor(p, fi, me)
}

// checkAncestor refuses a folder on the way to a cache that another user
// could change: it must belong to the current user (me) or root, and no
// one else may write it unless it is sticky, as /tmp is, where others may
// add entries but not rename or remove entries they do not own.
func checkAncestor(p string, fi os.FileInfo, me int) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", p)
	}
	if uid := owner(fi); uid != me && uid != 0 {
		return fmt.Errorf("folder %s belongs to user %d, who could replace what it holds", p, uid)
	}
	if fi.Mode()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("folder %s may be written by other users (mode %v), who could replace what it holds", p, fi.Mode().Perm())
	}
	return nil
}

// owner returns the user id that owns fi, or the current user's when the
// file system does not say.
func owner(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return os.Geteuid()
}
