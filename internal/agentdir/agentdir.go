package agentdir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// Kind is a sort of folder that a driver keeps under the root: each
// driver declares its own (see "Kinds" in the package doc). The package
// holds no list of kinds: [List], [Collect] and [Linked] find them under
// the root.
type Kind struct {
	// Dir is where folders of the kind live under the root,
	// slash-separated: "mounts/NAME" for a skill mount, which the agent
	// only reads, or "homes/NAME" for a managed home, which the agent
	// runs in and writes to (sessions, logins), NAME of lowercase
	// letters, digits and dashes.
	Dir string
	// Agent is the agent that reads folders of the kind, as the agents
	// table spells it ("claude-code").
	Agent string
	// Name describes the kind in words ("Claude Code skill mount").
	Name string
	// Magic starts the encoding of a key of the kind (rule 8); it names
	// the kind and the version of the folder's layout ("agentadaptor
	// claude mount v1").
	Magic string
	// Sessions is the glob, slash-separated and relative to a folder of
	// the kind, that matches each agent session it holds, or "" when it
	// holds none (rule 7).
	Sessions string
}

// kindDir is the form of a kind's Dir.
var kindDir = regexp.MustCompile(`^(mounts|homes)/[a-z0-9][a-z0-9-]*$`)

// check refuses a kind that is not one: a Dir of another form, a
// missing Agent or Magic, or an Agent or Sessions with a line break.
func (k Kind) check() error {
	switch {
	case !kindDir.MatchString(k.Dir):
		return fmt.Errorf("folder kind %q: Dir is not mounts/NAME or homes/NAME", k.Dir)
	case k.Agent == "" || k.Magic == "":
		return fmt.Errorf("folder kind %q: no Agent or Magic", k.Dir)
	case strings.ContainsAny(k.Agent+k.Sessions, "\n\r"):
		return fmt.Errorf("folder kind %q: a line break in Agent or Sessions", k.Dir)
	}
	return nil
}

// Home reports whether folders of the kind are managed homes, which the
// agent runs in and writes to (sessions, logins) and whose loss loses
// the sessions they hold, rather than skill mounts, which it only reads.
func (k Kind) Home() bool { return strings.HasPrefix(k.Dir, "homes/") }

// String describes the kind in words.
func (k Kind) String() string {
	if k.Name != "" {
		return k.Name
	}
	return k.Agent + " folder"
}

// kindFile is the file in a kind's folder that records the kind's Agent
// and Sessions, so that [List] and [Collect] know them without a list
// of kinds (rule 14).
const kindFile = ".kind"

// kindMagic starts a kind file.
const kindMagic = "agentadaptor driver folder kind v1"

// maxKindFile bounds what is read of a kind file.
const maxKindFile = 4096

// record writes the kind file of k into b, its folder, unless it holds
// the same already (rule 14). A kind file that cannot be written is no
// error: the listing then names the kind by its folder.
func (k Kind) record(b string) {
	want := kindMagic + "\nagent " + k.Agent + "\nsessions " + k.Sessions + "\n"
	p := filepath.Join(b, kindFile)
	if holds(p, []byte(want)) {
		return
	}
	writeNew(p, []byte(want))
}

// found returns the kind of the folder dir ("mounts/NAME") under the
// root, whose checked folder is b, from its kind file (rule 14): one
// missing or unreadable gives Agent NAME and no Sessions.
func found(dir, b string) Kind {
	k := Kind{Dir: dir, Agent: path.Base(dir)}
	f, err := os.OpenFile(filepath.Join(b, kindFile), os.O_RDONLY|noFollow, 0)
	if err != nil {
		return k
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return k
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKindFile))
	if err != nil {
		return k
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) != 4 || lines[0] != kindMagic || lines[3] != "" {
		return k
	}
	agent, ok1 := strings.CutPrefix(lines[1], "agent ")
	sessions, ok2 := strings.CutPrefix(lines[2], "sessions ")
	if !ok1 || !ok2 || agent == "" {
		return k
	}
	k.Agent, k.Sessions = agent, sessions
	return k
}

// sessions counts the agent sessions in dir, a folder of the kind: the
// matches of [Kind.Sessions] reached through no link (a Gemini CLI
// overlay's .gemini/tmp links to the user's, whose sessions stay the
// user's).
func (k Kind) sessions(dir string) int {
	if k.Sessions == "" {
		return 0
	}
	m, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(k.Sessions)))
	n := 0
	for _, p := range m {
		if !throughLink(dir, p) {
			n++
		}
	}
	return n
}

// throughLink reports whether p, below dir, is reached through a link
// (p itself included), or cannot be looked at.
func throughLink(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return true
	}
	q := dir
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		q = filepath.Join(q, elem)
		fi, err := os.Lstat(q)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// otherRoot says how to use another cache root.
const otherRoot = "use a cache root of your own: skill.WithSkillCacheRoot for the Agent's cache (or a driver's Config.CacheRoot when called directly), or $AGENT_ADAPTOR_SKILL_CACHE_ROOT"

// leaseSuffix ends the name of a key's lease file.
const leaseSuffix = ".lease"

// ValidKey reports whether key is 1 to 64 lowercase hexadecimal digits.
func ValidKey(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for _, c := range key {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckFolder refuses p unless it is a real folder (not a link) of the
// current user that neither its group nor every user may write (rule 1).
func CheckFolder(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("check folder %s: %w", p, err)
	}
	return checkInfo(p, fi)
}

// MakeFolders creates each of dirs that is missing, in order, with mode
// 0700, and checks each with [CheckFolder]; what names them in the error
// of a folder it cannot create ("create WHAT: ...").
func MakeFolders(what string, dirs ...string) error {
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", what, err)
		}
		if err := CheckFolder(d); err != nil {
			return err
		}
	}
	return nil
}

func checkInfo(p string, fi os.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (a link or a file is there): remove it, or %s", p, otherRoot)
	}
	if err := cache.CheckOwner(fi); err != nil {
		return fmt.Errorf("folder %s %v: another user could change what an agent reads there; fix it, or %s", p, err, otherRoot)
	}
	return nil
}

// base checks the folders from root down to the kind's folder dir
// (rule 1) and returns it. With create, missing folders are made
// (0700); without, a missing folder is fs.ErrNotExist.
func base(root, dir string, create bool) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if create {
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return "", fmt.Errorf("create cache root: %w (%s)", err, otherRoot)
		}
	}
	if err := CheckFolder(abs); err != nil {
		return "", err
	}
	if err := cache.CheckAncestors(abs); err != nil {
		return "", fmt.Errorf("cache root %s is not safe from other users: %w (%s)", abs, err, otherRoot)
	}
	p := abs
	for _, elem := range strings.Split(dir, "/") {
		p = filepath.Join(p, elem)
		if create {
			if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("create folder %s: %w", p, err)
			}
		}
		if err := CheckFolder(p); err != nil {
			return "", err
		}
	}
	return p, nil
}

// Lease is a run's hold on a key (rule 2). It is not safe for concurrent
// use.
type Lease struct {
	f    *os.File
	path string
	base string
	key  string
	kind Kind
}

// Acquire checks and makes the folders from root down to the folder of
// kind k (rule 1), then takes a lease on key (rules 2 and 5), waiting
// while a collection holds it, as long as ctx allows. When the key's
// folder exists it must pass [CheckFolder] too. The caller builds or
// reuses [Lease.Dir] and calls [Lease.Release] once the run is over.
func Acquire(ctx context.Context, root string, k Kind, key string) (*Lease, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	if !ValidKey(key) {
		return nil, fmt.Errorf("%s key %q is not 1 to 64 lowercase hexadecimal digits", k, key)
	}
	b, err := base(root, k.Dir, true)
	if err != nil {
		return nil, err
	}
	k.record(b)
	l := &Lease{path: filepath.Join(b, key+leaseSuffix), base: b, key: key, kind: k}
	for {
		f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open lease of a %s: %w", k, err)
		}
		if err := filelock.LockShared(ctx, f); err != nil {
			f.Close()
			if ctxErr := ctx.Err(); ctxErr != nil && err == ctxErr {
				return nil, err
			}
			return nil, fmt.Errorf("take lease %s: %w", l.path, err)
		}
		if !sameFile(f, l.path) {
			f.Close() // collected meanwhile: take the new file's
			continue
		}
		l.f = f
		break
	}
	touch(l.path)
	if _, err := os.Lstat(l.Dir()); err == nil {
		if err := CheckFolder(l.Dir()); err != nil {
			l.Release()
			return nil, err
		}
	}
	return l, nil
}

// Dir returns the key's folder, which may not exist yet.
func (l *Lease) Dir() string { return filepath.Join(l.base, l.key) }

// Base returns the folder that holds the key's folder, where the driver
// stages a new one under a name that starts with "<key>.".
func (l *Lease) Base() string { return l.base }

// Release records the use (rule 3) and releases the lease. Calling it
// again does nothing.
func (l *Lease) Release() {
	if l.f == nil {
		return
	}
	touch(l.path)
	l.f.Close()
	l.f = nil
}

// touch sets path's times to now: the last use (rule 3).
func touch(path string) {
	now := time.Now()
	os.Chtimes(path, now, now)
}

// sameFile reports whether path names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// Folder is a key's folder.
type Folder struct {
	// Agent is the agent that reads it, as its kind's file records it
	// (rule 14).
	Agent string
	// Home reports whether it is a managed home ([Kind.Home]).
	Home bool
	// Key is its key.
	Key string
	// Dir is its path.
	Dir string
	// Size is the total size of its regular files in bytes, links not
	// followed.
	Size int64
	// Files is the number of its regular files.
	Files int
	// Sessions is the number of agent sessions it holds, which are lost
	// with it.
	Sessions int
	// LastUse is when a run last took or released a lease on it (rule 3).
	LastUse time.Time
	// InUse reports whether a run held a lease on it when it was listed.
	InUse bool
}

// group is what a kind's folder holds for one key.
type group struct {
	key   string
	names []string // every <key> and <key>.* name, sorted
}

// groups reads the kind's folder b and returns its names grouped by key,
// sorted by key.
func groups(b string) ([]group, error) {
	f, err := os.Open(b)
	if err != nil {
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", b, err)
	}
	slices.Sort(names)
	byKey := map[string]*group{}
	var out []*group
	for _, n := range names {
		key, _, _ := strings.Cut(n, ".")
		if !ValidKey(key) {
			continue
		}
		g := byKey[key]
		if g == nil {
			g = &group{key: key}
			byKey[key] = g
			out = append(out, g)
		}
		g.names = append(g.names, n)
	}
	slices.SortFunc(out, func(a, b *group) int { return strings.Compare(a.key, b.key) })
	res := make([]group, len(out))
	for i, g := range out {
		res[i] = *g
	}
	return res, nil
}

// lastUse returns the key's last use (rule 3): its lease file's time,
// else its folder's; ok is false when neither exists.
func lastUse(b, key string) (t time.Time, ok bool) {
	if fi, err := os.Lstat(filepath.Join(b, key+leaseSuffix)); err == nil {
		return fi.ModTime(), true
	}
	if fi, err := os.Lstat(filepath.Join(b, key)); err == nil {
		return fi.ModTime(), true
	}
	return time.Time{}, false
}

// describe measures the key's folder.
func describe(k Kind, b, key string, last time.Time) (Folder, error) {
	dir := filepath.Join(b, key)
	f := Folder{Agent: k.Agent, Home: k.Home(), Key: key, Dir: dir, LastUse: last}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while it was measured: an agent at work
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			f.Size += fi.Size()
			f.Files++
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("measure %s: %w", dir, err)
	}
	f.Sessions = k.sessions(dir)
	return f, nil
}

// List returns the folders of every kind under root, by kind folder
// then key (rule 7). A root or kind folder that does not exist holds none; one
// that fails rule 1 is an error.
func List(root string) ([]Folder, error) {
	var out []Folder
	err := eachKind(root, func(k Kind, b string) error {
		gs, err := groups(b)
		if err != nil {
			return err
		}
		for _, g := range gs {
			if !slices.Contains(g.names, g.key) {
				continue // no folder: a lease taken or left without one
			}
			last, _ := lastUse(b, g.key)
			f, err := describe(k, b, g.key, last)
			if err != nil {
				return err
			}
			f.InUse = inUse(filepath.Join(b, g.key+leaseSuffix))
			out = append(out, f)
		}
		return nil
	})
	return out, err
}

// eachKind calls f with each kind under root and its folder, checked
// as rule 1 says: every folder mounts/NAME and homes/NAME (rule 14), by
// path. A root, mounts/ or homes/ that does not exist holds none. It
// stops at the first error.
func eachKind(root string, f func(k Kind, b string) error) error {
	for _, top := range []string{"mounts", "homes"} {
		t, err := base(root, top, false)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		entries, err := os.ReadDir(t)
		if err != nil {
			return fmt.Errorf("list %s: %w", t, err)
		}
		for _, e := range entries {
			dir := top + "/" + e.Name()
			if !kindDir.MatchString(dir) {
				continue // not a kind's folder: left alone
			}
			b, err := base(root, dir, false)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			}
			if err == nil {
				err = f(found(dir, b), b)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// inUse reports whether a run holds the lease file at path.
func inUse(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(filelock.TryLock(f), filelock.ErrLocked)
}

// Collect removes the folders under root not used since before and not
// held by a run (rule 4), and returns them, measured just before their
// removal.
func Collect(root string, before time.Time) ([]Folder, error) {
	var removed []Folder
	err := eachKind(root, func(k Kind, b string) error {
		gs, err := groups(b)
		if err != nil {
			return err
		}
		for _, g := range gs {
			f, ok, err := collect(k, b, g, before)
			if err != nil {
				return err
			}
			if ok {
				removed = append(removed, f)
			}
		}
		return nil
	})
	return removed, err
}

// collect removes one key under the exclusive lock of its lease, when it
// is old enough, and reports whether it did.
func collect(k Kind, b string, g group, before time.Time) (Folder, bool, error) {
	leasePath := filepath.Join(b, g.key+leaseSuffix)
	created := false
	f, err := os.OpenFile(leasePath, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err == nil {
		created = true
	} else if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(leasePath, os.O_RDWR|noFollow, 0)
	}
	if err != nil {
		return Folder{}, false, fmt.Errorf("open lease of %s: %w", filepath.Join(b, g.key), err)
	}
	defer f.Close()
	if err := filelock.TryLock(f); err != nil {
		if errors.Is(err, filelock.ErrLocked) {
			return Folder{}, false, nil // a run holds it
		}
		return Folder{}, false, fmt.Errorf("lock lease %s: %w", leasePath, err)
	}
	if !sameFile(f, leasePath) {
		return Folder{}, false, nil // collected by another process meanwhile
	}
	var last time.Time
	if created {
		// No lease before this one: the folder's time stands (rule 3).
		if fi, err := os.Lstat(filepath.Join(b, g.key)); err == nil {
			last = fi.ModTime()
		}
	} else if fi, err := f.Stat(); err == nil {
		last = fi.ModTime()
	}
	if !last.Before(before) {
		if created {
			os.Remove(leasePath) // leave the last use as it was
		}
		return Folder{}, false, nil
	}
	folder, err := describe(k, b, g.key, last)
	if err != nil {
		return Folder{}, false, err
	}
	names := slices.DeleteFunc(slices.Clone(g.names), func(n string) bool { return n == g.key+leaseSuffix })
	if i := slices.Index(names, g.key); i >= 0 {
		aside := g.key + ".gc-" + randomID()
		if err := os.Rename(filepath.Join(b, g.key), filepath.Join(b, aside)); err != nil {
			return Folder{}, false, fmt.Errorf("remove %s: %w", folder.Dir, err)
		}
		names[i] = aside
	}
	for _, n := range names {
		if err := removeTree(filepath.Join(b, n)); err != nil {
			return folder, true, fmt.Errorf("remove %s: %w", folder.Dir, err)
		}
	}
	// Windows cannot remove a file that a waiting run holds open: then
	// it stays, and the run uses it (see "Other systems").
	os.Remove(leasePath)
	return folder, true, nil
}

// removeTree removes p and everything under it, making its folders
// writable first (a skill mount's skills folder is read-only). Links are
// removed, never followed.
func removeTree(p string) error {
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

func randomID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Linked returns the names of the entries of root (the content store's
// <digest> folders) that a link in any folder under root points into
// (rule 6), sorted and without repeats. Links are read, never followed;
// a relative one is taken from its own folder.
func Linked(root string) ([]string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = eachKind(abs, func(k Kind, b string) error {
		err := filepath.WalkDir(b, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			target, err := os.Readlink(p)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			rel, err := filepath.Rel(abs, filepath.Clean(target))
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil
			}
			first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
			seen[first] = true
			return nil
		})
		if err != nil {
			return fmt.Errorf("find the skills that %ss link to: %w", k, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}
