package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/skill"
)

// Request says what to install.
type Request struct {
	// Sources are folders, archive files or URLs (see rule 3).
	Sources []string
	// Agents are the agents to install for; empty means DefaultAgents.
	Agents []Agent
	// Copy makes full copies instead of links.
	Copy bool
	// Skills, when not empty, selects skills by name from the sources.
	Skills []string

	// expect maps a skill's name to the digest it must have (frozen sync).
	expect map[string]string
}

// Change is one thing an operation did, or found already done.
type Change struct {
	Skill string
	// Agent is the agent's ID, or "" for the canonical copy itself.
	Agent string
	// Path is the folder or link changed.
	Path string
	// Action is "installed", "updated", "unchanged" or "removed".
	Action string
	// Kind is the Placement kind (KindLink, KindCopy, ...).
	Kind string
}

// Changed reports whether any change was made.
func Changed(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Action != "unchanged" })
}

// Add installs the skills of req's sources for its agents (rules 1-4). It
// is all or nothing for the checks: every skill is read, checked and staged
// before the first one is swapped in.
func (in *Installer) Add(ctx context.Context, req Request) ([]Change, error) {
	agents := req.Agents
	if len(agents) == 0 {
		agents = DefaultAgents(in.env)
	}
	var cands []candidate
	for _, src := range req.Sources {
		found, cleanup, err := in.resolve(ctx, src, "", req.Skills)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cands = append(cands, found...)
	}
	if err := uniqueNames(cands); err != nil {
		return nil, err
	}
	lock, unlock, err := in.begin()
	if err != nil {
		return nil, err
	}
	defer unlock()
	plans := make([]plan, len(cands))
	for i, c := range cands {
		old := lock.Skills[c.name]
		if old != nil && (old.Source != c.source || old.Subpath != c.subpath) {
			return nil, fmt.Errorf("skill %q is already installed from %s; nothing was changed (run 'agentskills remove %s' first to install it from %s)",
				c.name, sourceLabel(old.Source, old.Subpath), c.name, sourceLabel(c.source, c.subpath))
		}
		plans[i] = in.plan(c, old, agents, req.Copy)
	}
	if err := conflicts(plans); err != nil {
		return nil, err
	}
	// Stage every canonical copy first: a source that cannot be copied, or
	// (frozen) whose content is not the recorded one, changes nothing.
	staged := make([]*stagedCopy, len(plans))
	defer func() {
		for _, st := range staged {
			st.discard()
		}
	}()
	for i, p := range plans {
		if staged[i], err = stageCopy(p.c.dir, p.canonical); err != nil {
			return nil, err
		}
		if want, ok := req.expect[p.c.name]; ok && staged[i].digest != want {
			return nil, fmt.Errorf("%w: %s from %s; nothing was changed", ErrDrift, p.c.name, sourceLabel(p.c.source, p.c.subpath))
		}
	}
	// Record the new state before making it, so that what a crash leaves
	// is always recorded as ours (verify then reports it, sync repairs it).
	for i, p := range plans {
		lock.Skills[p.c.name] = in.entry(p, staged[i].digest)
	}
	if err := lock.write(in.lockPath()); err != nil {
		return nil, err
	}
	var changes []Change
	for i, p := range plans {
		ch, err := in.apply(ctx, p, staged[i], lock)
		changes = append(changes, ch...)
		if err != nil {
			lock.write(in.lockPath())
			return changes, err
		}
	}
	return changes, lock.write(in.lockPath())
}

// begin starts a change of the scope: it checks the canonical folder,
// takes the scope's lock (sweeping what crashed runs left) and reads the
// lock file. The caller releases the lock with the function returned.
func (in *Installer) begin() (*Lock, func(), error) {
	if err := in.checkCanonicalRoot(); err != nil {
		return nil, nil, err
	}
	unlock, err := in.lock()
	if err != nil {
		return nil, nil, err
	}
	lock, err := in.readLock()
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return lock, unlock, nil
}

// checkCanonicalRoot refuses a scope whose .agents or .agents/skills is a
// link or a file: canonical copies live in a real folder of the scope, so
// a planted link cannot send writes or removals elsewhere.
func (in *Installer) checkCanonicalRoot() error {
	for _, p := range []string{filepath.Join(in.Root(), ".agents"), in.canonicalRoot()} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is a link or a file, not a folder; agentskills keeps its canonical copies in a real folder (move it away)", p)
		}
	}
	return nil
}

func sourceLabel(source, subpath string) string {
	if subpath == "" {
		return source
	}
	return source + " (" + subpath + ")"
}

func uniqueNames(cands []candidate) error {
	seen := map[string]string{}
	for _, c := range cands {
		if prev, ok := seen[c.name]; ok {
			return fmt.Errorf("two skills are named %q (%s and %s); install them separately with --skill", c.name, prev, c.dir)
		}
		seen[c.name] = c.dir
	}
	return nil
}

// lock takes the scope's file lock, waiting for another process.
// readLock reads the scope's lock file and checks that every entry names a
// usable skill folder and records each agent's placement exactly where
// this tool puts it: a hand-edited or hostile lock file cannot steer a
// removal anywhere else.
func (in *Installer) readLock() (*Lock, error) {
	lock, err := readLock(in.lockPath())
	if err != nil {
		return nil, err
	}
	for name, entry := range lock.Skills {
		if err := checkName(name); err != nil || entry == nil {
			return nil, fmt.Errorf("lock file %s lists the skill %q, which is not a usable folder name; fix or remove that entry", in.lockPath(), name)
		}
		for id, pl := range entry.Agents {
			a, ok := LookupAgent(id)
			if !ok {
				return nil, fmt.Errorf("lock file %s lists an unknown agent %q for %s; fix or remove that entry", in.lockPath(), id, name)
			}
			want := in.placement(a, name, pl.Kind)
			if pl.Path != want.Path {
				return nil, fmt.Errorf("lock file %s puts %s for %s at %s, not where agentskills puts it (%s); fix or remove that entry", in.lockPath(), name, id, pl.Path, want.Path)
			}
			switch pl.Kind {
			case KindCanonical, KindLink, KindJunction, KindCopy:
			default:
				return nil, fmt.Errorf("lock file %s has an unknown kind %q for %s; fix or remove that entry", in.lockPath(), pl.Kind, name)
			}
		}
	}
	return lock, nil
}

// placement is where a skill goes for an agent.
func (in *Installer) placement(a Agent, name, kind string) Placement {
	dir := a.Dir(in.env, in.scope)
	if kind == KindCanonical {
		dir = in.canonicalRoot()
	}
	return Placement{Kind: kind, Path: relTo(in.Root(), filepath.Join(dir, name))}
}

// maxName is the longest skill name accepted, in bytes, so that staging
// names beside it still fit a file system's 255-byte limit.
const maxName = 200

func checkName(name string) error {
	if len(name) > maxName {
		return fmt.Errorf("name is %d bytes; the limit is %d", len(name), maxName)
	}
	_, err := skill.RuntimeName(skill.Skill{Key: name, Metadata: map[string]string{skill.MetadataRuntimeName: name}})
	return err
}

func (in *Installer) lock() (func(), error) {
	unlock, err := in.lockOnly()
	if err != nil {
		return nil, err
	}
	in.sweep()
	return unlock, nil
}

// sweep removes, under the scope's lock, what crashed runs left: hidden
// staging folders and links (".<name>.stage-<12 hex>", ".<name>.link-<12
// hex>") in the canonical folder and every agent's folder.
func (in *Installer) sweep() {
	dirs := []string{in.canonicalRoot()}
	for _, a := range agents {
		dirs = append(dirs, a.Dir(in.env, in.scope))
	}
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if isLeftover(e.Name()) {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
}

// isLeftover reports whether name is one of the hidden names staging uses.
func isLeftover(name string) bool {
	if !strings.HasPrefix(name, ".") || len(name) < 20 {
		return false
	}
	suffix := name[len(name)-12:]
	kind := name[:len(name)-12]
	return strings.Trim(suffix, "0123456789abcdef") == "" && (strings.HasSuffix(kind, ".stage-") || strings.HasSuffix(kind, ".link-"))
}

func (in *Installer) lockOnly() (func(), error) {
	dir := filepath.Join(in.Root(), ".agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".agentskills.flock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// plan is what installing one skill will do.
type plan struct {
	c         candidate
	old       *LockedSkill
	canonical string
	places    []place
	conflicts []string
}

type place struct {
	agent Agent
	path  string
	kind  string
}

func (in *Installer) plan(c candidate, old *LockedSkill, agents []Agent, copyMode bool) plan {
	p := plan{c: c, old: old, canonical: filepath.Join(in.canonicalRoot(), c.name)}
	if fi, err := os.Lstat(p.canonical); err == nil && (old == nil || !fi.IsDir()) {
		p.conflicts = append(p.conflicts, p.canonical)
	}
	for _, a := range agents {
		dir := a.Dir(in.env, in.scope)
		pl := place{agent: a, path: filepath.Join(dir, c.name), kind: KindLink}
		if samePath(dir, in.canonicalRoot()) {
			pl.kind = KindCanonical
		} else if copyMode {
			pl.kind = KindCopy
		}
		if pl.kind != KindCanonical {
			if _, err := os.Lstat(pl.path); err == nil && !in.owns(old, a.ID, pl.path, p.canonical) {
				p.conflicts = append(p.conflicts, pl.path)
			}
		}
		p.places = append(p.places, pl)
	}
	return p
}

// owns reports whether path is still what this tool made there for agent:
// the link to the canonical copy, or a copy with the recorded content. A
// link or folder the user put in its place is not ours.
func (in *Installer) owns(old *LockedSkill, agent, path, canonical string) bool {
	if old == nil {
		return false
	}
	pl, ok := old.Agents[agent]
	if !ok || abs(in.Root(), pl.Path) != path {
		return false
	}
	switch pl.Kind {
	case KindLink:
		return ourLink(path, canonical)
	case KindJunction:
		return ourJunction(path, canonical)
	case KindCopy:
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() {
			return false
		}
		d, err := skill.ContentDigest(path)
		return err == nil && d == old.Digest
	}
	return false
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
// dangling because the canonical copy is gone).
func ourLink(path, canonical string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	if isLinkTo(path, canonical) {
		return true
	}
	target, err1 := os.Readlink(path)
	rel, err2 := relLink(path, canonical)
	return err1 == nil && err2 == nil && target == rel
}

func conflicts(plans []plan) error {
	var paths []string
	for _, p := range plans {
		paths = append(paths, p.conflicts...)
	}
	if len(paths) == 0 {
		return nil
	}
	return fmt.Errorf("%s %w; nothing was changed (remove or rename it, or install under another name)", strings.Join(paths, ", "), errConflict)
}

// apply swaps the staged canonical copy in and places it for each agent.
func (in *Installer) apply(ctx context.Context, p plan, st *stagedCopy, lock *Lock) ([]Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root := in.Root()
	action, err := st.commit()
	if err != nil {
		return nil, err
	}
	digest := st.digest
	entry := lock.Skills[p.c.name]
	changes := []Change{{Skill: p.c.name, Path: p.canonical, Action: action, Kind: KindCanonical}}
	for _, pl := range p.places {
		act := action
		var prev Placement
		var had bool
		if p.old != nil {
			prev, had = p.old.Agents[pl.agent.ID]
		}
		switch pl.kind {
		case KindCanonical:
		case KindLink:
			err := placeLink(pl.path, p.canonical)
			var linkErr *noLinkError
			if errors.As(err, &linkErr) {
				// No links here (Windows without the privilege): a
				// junction where the place is free, else a copy.
				err = errors.ErrUnsupported
				if _, statErr := os.Lstat(pl.path); errors.Is(statErr, fs.ErrNotExist) {
					err = makeJunction(pl.path, p.canonical)
				}
				pl.kind = KindJunction
				if err != nil {
					pl.kind = KindCopy
					err = placeCopyOf(p.canonical, pl.path, digest)
				}
			}
			if err != nil {
				return changes, err
			}
		case KindCopy:
			if err := placeCopyOf(p.canonical, pl.path, digest); err != nil {
				return changes, err
			}
		}
		if !had || prev.Kind != pl.kind {
			act = "installed"
		}
		if p.old == nil || p.old.Agents[pl.agent.ID] != (Placement{Kind: pl.kind, Path: relTo(root, pl.path)}) {
			if act == "unchanged" {
				act = "installed"
			}
		}
		entry.Agents[pl.agent.ID] = Placement{Kind: pl.kind, Path: relTo(root, pl.path)}
		changes = append(changes, Change{Skill: p.c.name, Agent: pl.agent.ID, Path: pl.path, Action: act, Kind: pl.kind})
	}
	return changes, nil
}

// entry is the lock entry a plan leads to.
func (in *Installer) entry(p plan, digest string) *LockedSkill {
	e := &LockedSkill{Source: p.c.source, Subpath: p.c.subpath, Digest: digest, Agents: map[string]Placement{}}
	if p.old != nil {
		maps.Copy(e.Agents, p.old.Agents)
	}
	for _, pl := range p.places {
		e.Agents[pl.agent.ID] = Placement{Kind: pl.kind, Path: relTo(in.Root(), pl.path)}
	}
	return e
}

// stagedCopy is a copy of a skill folder staged beside its place.
type stagedCopy struct {
	stage  string // the hidden staging folder
	path   string // the copy inside it, named like dst
	dst    string
	digest string
}

// stageCopy copies src to a hidden staging folder beside dst.
func stageCopy(src, dst string) (*stagedCopy, error) {
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	// Under the scope's lock no other process stages here: what an earlier
	// crash left behind can go.
	removeLeftovers(parent, "."+filepath.Base(dst)+".stage-")
	st := &stagedCopy{stage: filepath.Join(parent, "."+filepath.Base(dst)+".stage-"+randomSuffix()), dst: dst}
	if err := os.Mkdir(st.stage, 0o755); err != nil {
		return nil, err
	}
	st.path = filepath.Join(st.stage, filepath.Base(dst))
	if err := copyTree(src, st.path); err != nil {
		st.discard()
		return nil, err
	}
	d, err := skill.ContentDigest(st.path)
	if err != nil {
		st.discard()
		return nil, err
	}
	st.digest = d
	return st, nil
}

// commit puts the staged copy in place: a rename when the place is free,
// nothing when it already holds this content, else an atomic exchange with
// what is there (which the caller has checked is its own).
func (st *stagedCopy) commit() (string, error) {
	fi, err := os.Lstat(st.dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "installed", os.Rename(st.path, st.dst)
	case err != nil:
		return "", err
	}
	if fi.IsDir() {
		if cur, err := skill.ContentDigest(st.dst); err == nil && cur == st.digest {
			return "unchanged", nil
		}
	}
	return "updated", swapDirs(st.path, st.dst)
}

func (st *stagedCopy) discard() {
	if st != nil && st.stage != "" {
		os.RemoveAll(st.stage)
		st.stage = ""
	}
}

// placeCopyOf makes dst a copy of the canonical copy src, which has the
// given digest.
func placeCopyOf(src, dst, digest string) error {
	st, err := stageCopy(src, dst)
	if err != nil {
		return err
	}
	defer st.discard()
	if st.digest != digest {
		return fmt.Errorf("copy of %s does not match its digest", src)
	}
	_, err = st.commit()
	return err
}

// Remove removes the named skills for the agents (all recorded agents
// when none is given); the canonical copy goes when no agent uses it.
func (in *Installer) Remove(ctx context.Context, names []string, agents []Agent) ([]Change, error) {
	lock, unlock, err := in.begin()
	if err != nil {
		return nil, err
	}
	defer unlock()
	root := in.Root()
	for _, n := range names {
		entry := lock.Skills[n]
		if entry == nil {
			return nil, fmt.Errorf("skill %q was not installed by agentskills in %s; nothing was changed", n, root)
		}
		canonical := filepath.Join(in.canonicalRoot(), n)
		for id, pl := range entry.Agents {
			p := abs(root, pl.Path)
			if _, err := os.Lstat(p); pl.Kind == KindCanonical || errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if !in.owns(entry, id, p, canonical) {
				return nil, fmt.Errorf("%s is no longer what agentskills installed for %s (it was changed or replaced); nothing was changed (remove it yourself if you want it gone)", p, id)
			}
		}
	}
	var changes []Change
	for _, n := range names {
		entry := lock.Skills[n]
		ids := slices.Sorted(maps.Keys(entry.Agents))
		if len(agents) > 0 {
			ids = ids[:0]
			for _, a := range agents {
				if _, ok := entry.Agents[a.ID]; ok {
					ids = append(ids, a.ID)
				}
			}
		}
		for _, id := range ids {
			pl := entry.Agents[id]
			p := abs(root, pl.Path)
			switch pl.Kind {
			case KindLink, KindJunction:
				// Checked above: the link or junction this tool made.
				os.Remove(p)
			case KindCopy:
				os.RemoveAll(p)
			}
			delete(entry.Agents, id)
			changes = append(changes, Change{Skill: n, Agent: id, Path: p, Action: "removed", Kind: pl.Kind})
		}
		if len(entry.Agents) == 0 {
			canonical := filepath.Join(in.canonicalRoot(), n)
			if err := os.RemoveAll(canonical); err != nil {
				return changes, err
			}
			delete(lock.Skills, n)
			changes = append(changes, Change{Skill: n, Path: canonical, Action: "removed", Kind: KindCanonical})
		}
	}
	return changes, lock.write(in.lockPath())
}

// States of an installed skill, as List reports them.
const (
	StateInstalled = "installed" // as recorded
	StateModified  = "modified"  // its files no longer match the recorded digest
	StateMissing   = "missing"   // recorded, but gone
	StateExternal  = "external"  // present in an agent's folder, not installed by this tool
)

// Status is one skill in one agent's folder.
type Status struct {
	Skill string `json:"skill"`
	Agent string `json:"agent"`
	Path  string `json:"path"`
	Kind  string `json:"kind,omitempty"`
	State string `json:"state"`
}

// List reports every skill in the agents' folders (all known agents when
// none is given): those recorded, with their state, and the others as
// external.
func (in *Installer) List(ctx context.Context, agents []Agent) ([]Status, error) {
	lock, err := in.readLock()
	if err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		agents = Agents()
	}
	root := in.Root()
	var out []Status
	for _, a := range agents {
		dir := a.Dir(in.env, in.scope)
		ours := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
			entry := lock.Skills[name]
			pl, ok := entry.Agents[a.ID]
			if !ok {
				continue
			}
			p := abs(root, pl.Path)
			if pl.Kind == KindCanonical {
				p = filepath.Join(in.canonicalRoot(), name)
			}
			ours[filepath.Base(p)] = true
			out = append(out, Status{Skill: name, Agent: a.ID, Path: p, Kind: pl.Kind, State: in.state(name, entry, pl, p)})
		}
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || ours[e.Name()] {
				continue
			}
			if samePath(dir, in.canonicalRoot()) && lock.Skills[e.Name()] != nil {
				continue // another agent's canonical copy
			}
			out = append(out, Status{Skill: e.Name(), Agent: a.ID, Path: filepath.Join(dir, e.Name()), State: StateExternal})
		}
	}
	return out, ctx.Err()
}

func (in *Installer) state(name string, entry *LockedSkill, pl Placement, p string) string {
	canonical := filepath.Join(in.canonicalRoot(), name)
	switch pl.Kind {
	case KindLink, KindJunction:
		if _, err := os.Lstat(p); err != nil {
			return StateMissing
		}
		if !ourLink(p, canonical) && !ourJunction(p, canonical) {
			return StateModified
		}
		p = canonical
	}
	if _, err := os.Stat(p); err != nil {
		return StateMissing
	}
	if d, err := skill.ContentDigest(p); err != nil || d != entry.Digest {
		return StateModified
	}
	return StateInstalled
}

// Verify re-hashes every installed skill and returns those that differ
// from the lock file (modified or missing).
func (in *Installer) Verify(ctx context.Context) ([]Status, error) {
	all, err := in.List(ctx, nil)
	if err != nil {
		return nil, err
	}
	var bad []Status
	for _, s := range all {
		if s.State == StateModified || s.State == StateMissing {
			bad = append(bad, s)
		}
	}
	return bad, nil
}

// ErrDrift reports, in a frozen sync, a source whose content no longer
// matches the lock file.
var ErrDrift = errors.New("source content differs from the lock file")

// Sync makes the folders match the lock file, fetching each skill again
// from its recorded source. Frozen, it first checks every source against
// its recorded digest and fails with ErrDrift, changing nothing, if any
// differs.
func (in *Installer) Sync(ctx context.Context, frozen bool) ([]Change, error) {
	// Taking the lock sweeps what crashed runs left; each skill is then
	// installed by Add under the lock again.
	lock, unlock, err := in.begin()
	if err != nil {
		return nil, err
	}
	unlock()
	var changes []Change
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		entry := lock.Skills[name]
		var agents []Agent
		copyMode := false
		for id, pl := range entry.Agents {
			if a, ok := LookupAgent(id); ok {
				agents = append(agents, a)
				copyMode = copyMode || pl.Kind == KindCopy
			}
		}
		slices.SortFunc(agents, func(a, b Agent) int { return strings.Compare(a.ID, b.ID) })
		req := Request{Sources: []string{in.sourcePath(entry.Source)}, Agents: agents, Copy: copyMode, Skills: []string{name}}
		if frozen {
			req.expect = map[string]string{name: entry.Digest}
		}
		ch, err := in.Add(ctx, req)
		changes = append(changes, ch...)
		if err != nil {
			if errors.Is(err, ErrDrift) {
				return changes, err
			}
			return changes, fmt.Errorf("sync %s: %w", name, err)
		}
	}
	return changes, nil
}

// sourcePath turns a recorded source back into one Add takes.
func (in *Installer) sourcePath(source string) string {
	if strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://") {
		return source
	}
	return abs(in.Root(), source)
}

// removeLeftovers removes the entries of dir named prefix followed by the
// 12 hex digits of randomSuffix: staging that a crashed run left behind.
func removeLeftovers(dir, prefix string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if ok && len(rest) == 12 && strings.Trim(rest, "0123456789abcdef") == "" {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
