package install

import (
	"cmp"
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
	// Sources are folders, archive files or URLs (rules 3 and 12).
	Sources []string
	// Agents are the agents to install for; empty means DefaultAgents.
	Agents []Agent
	// Copy makes full copies instead of links.
	Copy bool
	// Skills, when not empty, selects skills from the sources, each by
	// its name or by its folder inside its source (rule 12).
	Skills []string
	// Force replaces installed skills that were changed since they were
	// installed, after moving each to a backup (rule 7). Default: such a
	// skill fails the request with ErrModified.
	Force bool
	// Strict makes a skill that cannot be installed (rule 4) fail the
	// request with ErrInvalidSource before anything changes. Default: it
	// is skipped and reported, and the others are installed.
	Strict bool
}

// SyncRequest says how to sync.
type SyncRequest struct {
	// Frozen checks every recorded skill first and fails with ErrDrift,
	// changing nothing, if any source's content differs from the lock
	// file. Default: a changed source updates the skill.
	Frozen bool
	// Force is Request.Force.
	Force bool
}

// Action is what an operation did at one place, or found already done.
type Action string

// Actions of a Change.
const (
	ActionInstalled  Action = "installed"   // made where there was nothing of that kind
	ActionUpdated    Action = "updated"     // replaced by, or now showing, the source's new content
	ActionRepaired   Action = "repaired"    // recorded, but missing or broken: made again
	ActionAdopted    Action = "adopted"     // found with exactly the content it would make, and recorded (rule 1)
	ActionUnchanged  Action = "unchanged"   // already as requested
	ActionRemoved    Action = "removed"     // removed
	ActionFinished   Action = "finished"    // left unfinished by an interrupted run, now finished (rule 6)
	ActionRolledBack Action = "rolled-back" // left unfinished by an interrupted run, now rolled back (rule 6)
	ActionSkipped    Action = "skipped"     // a skill of a source that cannot be installed, left out (rule 4)
)

// Change is one thing an operation did, or found already done.
type Change struct {
	// Skill is the skill's name.
	Skill string `json:"skill"`
	// Agent is the agent's ID, or "" for the canonical copy itself.
	Agent string `json:"agent"`
	// Path is the folder or link changed; for ActionSkipped, the skill's
	// folder inside Source ("." for its root).
	Path string `json:"path"`
	// Action is what was done.
	Action Action `json:"action"`
	// Kind is the Placement kind (KindLink, KindCopy, ...).
	Kind string `json:"kind"`
	// Backup, when not empty, is where what was there before was moved:
	// a modified copy replaced by a forced request (rule 7).
	Backup string `json:"backup,omitempty"`
	// Source, for ActionSkipped, is the source that holds the skill, as
	// recorded (without credentials).
	Source string `json:"source,omitempty"`
	// Reason, for ActionSkipped, is why the skill cannot be installed.
	Reason string `json:"reason,omitempty"`
	// Pin and PreviousPin, on the canonical copy's change, are the pin
	// of a published source that an add moved, and the one before
	// (rule 13).
	Pin         string `json:"pin,omitempty"`
	PreviousPin string `json:"previous_pin,omitempty"`
}

// Changed reports whether any change was made (a skipped skill is no
// change).
func Changed(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool {
		return c.Action != ActionUnchanged && c.Action != ActionSkipped || c.Pin != c.PreviousPin
	})
}

// Add installs the skills of req's sources for its agents (rules 1-7).
// A skill that cannot be installed (rule 4) is skipped, reported as a
// Change with ActionSkipped and its reason, and the others are installed;
// Add fails with ErrInvalidSource when nothing is left to install, or,
// with req.Strict, when anything was skipped. It is all or nothing for
// the rest: every skill is read, checked and staged, and every place it
// goes is checked, before the first one is swapped in.
func (in *Installer) Add(ctx context.Context, req Request) ([]Change, error) {
	agents := req.Agents
	if len(agents) == 0 {
		agents = DefaultAgents(in.env)
	}
	if err := in.checkFolders(agents); err != nil {
		return nil, err
	}
	var all []candidate
	var sources []*sourceSkills
	for _, src := range req.Sources {
		r, err := in.resolve(ctx, src, false)
		if err != nil {
			return nil, err
		}
		defer r.cleanup()
		sources = append(sources, r)
		all = append(all, r.skills...)
	}
	if err := missing(req.Skills, sources); err != nil {
		return nil, err
	}
	use, skip := pick(all, req.Skills)
	if req.Strict || len(use) == 0 {
		if err := refuseSkipped(skip); err != nil {
			if !req.Strict {
				err = fmt.Errorf("%w\nno skill is left to install; nothing was changed", err)
			} else {
				err = fmt.Errorf("%w\nnothing was changed (--strict: a skill that cannot be installed stops the request)", err)
			}
			return nil, err
		}
	}
	var skipped []Change
	for _, c := range skip {
		skipped = append(skipped, Change{Skill: c.label(), Source: c.source, Path: c.pathInSource(), Action: ActionSkipped, Reason: c.problem})
	}
	// The skills of pinned sources are kept in the skill cache, for
	// syncs without the network (rule 13), and copied from there.
	for _, c := range use {
		if c.pin != "" || isPinnedURL(c.source) {
			dir, err := in.keep(ctx, c)
			if err != nil {
				return skipped, err
			}
			c.dir = dir
		}
	}
	s, err := in.begin()
	if err != nil {
		return skipped, err
	}
	defer s.end()
	wants := make([]want, len(use))
	moved := map[string]*LockedSkill{}
	for i, c := range use {
		old := s.lock.Skills[c.name]
		if old != nil && (!in.sameSource(old.Source, c.source) || old.Subpath != c.subpath) {
			return append(s.recovered, skipped...), fmt.Errorf("%w: skill %q is already installed from %s; nothing was changed (run 'agentskills remove %s' first to install it from %s)",
				ErrConflict, c.name, sourceLabel(old.Source, old.Subpath), c.name, sourceLabel(c.source, c.subpath))
		}
		if old != nil && old.Pin != c.pin {
			moved[c.name] = old
		}
		wants[i] = want{c: *c}
		for _, a := range agents {
			wants[i].places = append(wants[i].places, wantPlace{agent: a, copy: req.Copy})
		}
	}
	changes, err := in.reconcile(ctx, s, wants, req.Force, false)
	for i, ch := range changes {
		if old := moved[ch.Skill]; old != nil && ch.Agent == "" {
			changes[i].Pin, changes[i].PreviousPin = s.lock.Skills[ch.Skill].Pin, old.Pin
		}
	}
	return slices.Concat(s.recovered, skipped, changes), err
}

// keep materializes a skill of a pinned source into the skill cache,
// under its name, and returns the cached folder.
func (in *Installer) keep(ctx context.Context, c *candidate) (string, error) {
	s := skill.FS(os.DirFS(c.dir), ".")
	s.Key = c.name
	s.Metadata = map[string]string{skill.MetadataRuntimeName: c.name}
	dir, err := in.cache.Materialize(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			return "", interrupted(ctx, "nothing was changed")
		}
		return "", fmt.Errorf("skill %s from %s: %w", c.name, c.where(), archiveError(err))
	}
	return dir, nil
}

// cached returns the skill cache's folder of a recorded skill, if the
// cache holds its content: a sync of a pinned source needs no network.
func (in *Installer) cached(name string, entry *LockedSkill) (string, bool) {
	if len(entry.Digest) != 64 || strings.Trim(entry.Digest, "0123456789abcdef") != "" {
		return "", false
	}
	return in.cache.Lookup(entry.Digest, name)
}

// sameSource reports whether two sources are one: the same folder, URL,
// or published repository (whatever ref each names).
func (in *Installer) sameSource(a, b string) bool {
	ka, kb := in.sourceKey(a), in.sourceKey(b)
	return ka == kb
}

func (in *Installer) sourceKey(source string) string {
	if rs, err := in.parseRemote(source); err == nil && rs != nil {
		return rs.identity()
	}
	return in.sourcePath(source)
}

// isPinnedURL reports whether source is a URL pinned with #sha256=.
func isPinnedURL(source string) bool {
	return isURL(source) && strings.Contains(source, "#sha256=")
}

func sourceLabel(source, subpath string) string {
	if subpath == "" {
		return source
	}
	return source + " (" + subpath + ")"
}

// Sync makes the folders match the lock file, under one lock for the
// whole run: each recorded source is read once, every skill and every
// place it goes is checked, and only then is anything changed. Frozen,
// any source whose content differs from the lock file fails the sync
// with ErrDrift, listing each, and nothing changes.
func (in *Installer) Sync(ctx context.Context, req SyncRequest) ([]Change, error) {
	if _, err := in.peekLock(); err != nil {
		return nil, err
	}
	s, err := in.begin()
	if err != nil {
		return nil, err
	}
	defer s.end()
	lock := s.lock
	var agents []Agent
	// Skills installed from one source at one pin are read together.
	type read struct{ source, pin string }
	bySource := map[read][]string{}
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		entry := lock.Skills[name]
		k := read{entry.Source, entry.Pin}
		bySource[k] = append(bySource[k], name)
		for id := range entry.Agents {
			a, _ := LookupAgent(id) // readCheckedLock checked every ID
			agents = append(agents, a)
		}
	}
	if err := in.checkFolders(agents); err != nil {
		return s.recovered, err
	}
	var wants []want
	var problems []error
	for _, k := range slices.SortedFunc(maps.Keys(bySource), func(a, b read) int {
		return cmp.Or(strings.Compare(a.source, b.source), strings.Compare(a.pin, b.pin))
	}) {
		source, names := k.source, bySource[k]
		r, err := in.syncSource(ctx, source, k.pin, names, lock)
		if errors.Is(err, ErrInterrupted) {
			return s.recovered, err
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", strings.Join(names, ", "), err))
			continue
		}
		defer r.cleanup()
		for _, name := range names {
			entry := lock.Skills[name]
			i := slices.IndexFunc(r.skills, func(c candidate) bool { return c.name == name && c.subpath == entry.Subpath })
			if i < 0 {
				problems = append(problems, fmt.Errorf("%w: %s: %s no longer holds it where the lock file says (%s)", ErrDrift, name, source, sourceLabel(entry.Source, entry.Subpath)))
				continue
			}
			c := r.skills[i]
			if c.problem != "" {
				problems = append(problems, fmt.Errorf("%w: skill %s in %s: %s", ErrInvalidSource, name, c.where(), c.problem))
				continue
			}
			w := want{c: c}
			for _, id := range slices.Sorted(maps.Keys(entry.Agents)) {
				a, _ := LookupAgent(id)
				w.places = append(w.places, wantPlace{agent: a, copy: entry.Agents[id].Kind == KindCopy})
			}
			wants = append(wants, w)
		}
	}
	if len(problems) > 0 {
		return s.recovered, refuse(problems)
	}
	changes, err := in.reconcile(ctx, s, wants, req.Force, req.Frozen)
	return append(s.recovered, changes...), err
}

// syncSource reads the skills names of a recorded source for a sync.
// Those of a pinned source (a published one, or a URL with #sha256=)
// come from the skill cache when it holds their content; else a
// published source is read at its pin, never at its moving reference,
// each skill where the lock file says.
func (in *Installer) syncSource(ctx context.Context, source, pin string, names []string, lock *Lock) (*sourceSkills, error) {
	if pin != "" || isPinnedURL(source) {
		r := &sourceSkills{source: source, pin: pin, cleanup: func() {}}
		for _, name := range names {
			entry := lock.Skills[name]
			dir, ok := in.cached(name, entry)
			if !ok {
				r = nil
				break
			}
			r.skills = append(r.skills, candidate{dir: dir, source: source, subpath: entry.Subpath})
		}
		if r != nil {
			in.checkAll(r.skills, pin)
			return r, nil
		}
	}
	if pin == "" {
		return in.resolve(ctx, in.sourcePath(source), true)
	}
	rs, err := in.parseSource(source, false)
	if err == nil && rs == nil {
		err = fmt.Errorf("%w: %s is recorded with a pin, but is not a published source", ErrInvalidLock, source)
	}
	if err != nil {
		return nil, err
	}
	var at []string
	for _, name := range names {
		at = append(at, lock.Skills[name].Subpath)
	}
	r := &sourceSkills{source: source, pin: pin}
	_, r.skills, r.cleanup, err = in.fromRemote(ctx, rs, source, pin, at)
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(ctx, "nothing was changed")
		}
		return nil, err
	}
	in.checkAll(r.skills, pin)
	return r, nil
}

// sourcePath turns a recorded source back into one Add takes.
func (in *Installer) sourcePath(source string) string {
	if isURL(source) {
		return source
	}
	return abs(in.Root(), source)
}

func isURL(source string) bool {
	return strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://")
}

// Remove removes the named skills for the agents (all recorded agents
// when none is given); the canonical copy goes when no agent uses it. It
// removes only what it installed and what is still as it installed it;
// anything else fails the request before anything changes.
func (in *Installer) Remove(ctx context.Context, names []string, agents []Agent) ([]Change, error) {
	// Names that are not recorded fail before anything is made, even the
	// scope's lock.
	peek, err := in.peekLock()
	if err != nil {
		return nil, err
	}
	if err := notInstalled(peek, names, in.Root()); err != nil {
		return nil, err
	}
	s, err := in.begin()
	if err != nil {
		return nil, err
	}
	defer s.end()
	lock := s.lock
	if err := notInstalled(lock, names, in.Root()); err != nil {
		return s.recovered, err
	}
	root := in.Root()
	type removal struct {
		name      string
		prev, cur *LockedSkill
		ids       []string
	}
	var plans []removal
	var problems []error
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
		cur := &LockedSkill{Source: entry.Source, Subpath: entry.Subpath, Digest: entry.Digest, Agents: maps.Clone(entry.Agents)}
		for _, id := range ids {
			delete(cur.Agents, id)
		}
		canonical := in.canonicalPath(n)
		for _, id := range ids {
			pl := entry.Agents[id]
			if pl.Kind == KindCanonical {
				continue
			}
			p := abs(root, pl.Path)
			switch examine(p, canonical, &pl, entry.Digest, "").found {
			case foundNothing, foundOurs:
			case foundModified:
				problems = append(problems, modifiedError(p, canonical))
			default:
				problems = append(problems, fmt.Errorf("%s is no longer what agentskills installed for %s (it was replaced): %w; remove it yourself if you want it gone", p, id, ErrConflict))
			}
		}
		if len(cur.Agents) == 0 {
			cur = nil
			// The canonical copy is ours only while it holds the recorded
			// content (or is gone).
			switch examine(canonical, canonical, &Placement{Kind: KindCanonical}, entry.Digest, "").found {
			case foundNothing, foundOurs:
			case foundModified:
				problems = append(problems, modifiedError(canonical, ""))
			default:
				problems = append(problems, fmt.Errorf("%s is no longer the folder agentskills installed (it was replaced): %w; remove it yourself if you want it gone", canonical, ErrConflict))
			}
		}
		plans = append(plans, removal{name: n, prev: entry, cur: cur, ids: ids})
	}
	if len(problems) > 0 {
		return s.recovered, refuse(problems)
	}
	// Mark the work, do it, then record the result (rule 6).
	if lock.Unfinished == nil {
		lock.Unfinished = map[string]*LockedSkill{}
	}
	for _, r := range plans {
		lock.Unfinished[r.name] = r.prev
		setEntry(lock, r.name, r.cur)
	}
	if err := lock.write(in.lockPath()); err != nil {
		return s.recovered, err
	}
	changes := s.recovered
	for i, r := range plans {
		if ctx.Err() != nil {
			for _, rest := range plans[i:] {
				setEntry(lock, rest.name, rest.prev)
				delete(lock.Unfinished, rest.name)
			}
			lock.Unfinished = nil
			if err := lock.write(in.lockPath()); err != nil {
				return changes, err
			}
			what := "nothing was changed"
			if i > 0 {
				what = fmt.Sprintf("%d of %d skills were removed, and the lock file records exactly what is left; run the command again to finish", i, len(plans))
			}
			return changes, interrupted(ctx, what)
		}
		for _, id := range r.ids {
			pl := r.prev.Agents[id]
			p := abs(root, pl.Path)
			// Agents that share a folder (Trae and Trae CN) share a place:
			// it stays while one that keeps the skill has it.
			shared := r.cur != nil && slices.ContainsFunc(slices.Collect(maps.Values(r.cur.Agents)), func(o Placement) bool { return o.Path == pl.Path })
			switch {
			case shared:
			case pl.Kind == KindLink || pl.Kind == KindJunction:
				// Checked above: the link or junction this tool made.
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return changes, err
				}
			case pl.Kind == KindCopy:
				if err := removeAside(p); err != nil {
					return changes, err
				}
			}
			changes = append(changes, Change{Skill: r.name, Agent: id, Path: p, Action: ActionRemoved, Kind: pl.Kind})
		}
		if r.cur == nil {
			canonical := in.canonicalPath(r.name)
			if err := removeAside(canonical); err != nil {
				return changes, err
			}
			changes = append(changes, Change{Skill: r.name, Path: canonical, Action: ActionRemoved, Kind: KindCanonical})
		}
		delete(lock.Unfinished, r.name)
	}
	lock.Unfinished = nil
	return changes, lock.write(in.lockPath())
}

// notInstalled fails with ErrNotInstalled naming every name the lock
// does not record.
func notInstalled(lock *Lock, names []string, root string) error {
	var missing []string
	for _, n := range names {
		if lock.Skills[n] == nil {
			missing = append(missing, fmt.Sprintf("%q", n))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("skill %s %w in %s; nothing was changed (see 'agentskills list')", strings.Join(missing, ", "), ErrNotInstalled, root)
}

// setEntry records e for name, or removes the entry when e is nil.
func setEntry(lock *Lock, name string, e *LockedSkill) {
	if e == nil {
		delete(lock.Skills, name)
		return
	}
	lock.Skills[name] = e
}

// States of an installed skill, as List reports them.
const (
	StateInstalled  = "installed"  // as recorded
	StateModified   = "modified"   // its files no longer match the recorded digest
	StateMissing    = "missing"    // recorded, but gone
	StateExternal   = "external"   // present in an agent's folder, not installed by this tool
	StateUnfinished = "unfinished" // an interrupted run was changing it; the next add, remove or sync finishes or rolls it back
	StateMoved      = "moved"      // installed where the agent's folder was; it is elsewhere today (rule 11); sync moves it
)

// Status is one skill in one agent's folder.
type Status struct {
	Skill string `json:"skill"`
	Agent string `json:"agent"`
	Path  string `json:"path"`
	Kind  string `json:"kind,omitempty"`
	State string `json:"state"`
}

// List reports every skill in the folders the agents read (all known
// agents when none is given; see [Agent.Reads]), once for each agent that
// reads it: those this tool installed, with their state, and the others as
// external.
func (in *Installer) List(ctx context.Context, agents []Agent) ([]Status, error) {
	return in.list(ctx, agents, true)
}

// list is List; without readers it reports each recorded place once, for
// its own agent, and looks only in the folders skills are installed into.
func (in *Installer) list(ctx context.Context, agents []Agent, readers bool) ([]Status, error) {
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		agents = Agents()
	}
	root := in.Root()
	// What this tool made, by path: each canonical copy and each place.
	type made struct {
		name  string
		entry *LockedSkill
		pl    Placement
	}
	byPath := map[string]made{}
	for name, entry := range lock.Skills {
		byPath[in.canonicalPath(name)] = made{name, entry, Placement{Kind: KindCanonical}}
		for _, pl := range entry.Agents {
			if pl.Kind != KindCanonical {
				byPath[abs(root, pl.Path)] = made{name, entry, pl}
			}
		}
	}
	// Many agents read one folder: hash each place once.
	states := map[string]string{}
	status := func(m made, agent, p string) Status {
		state, ok := states[p]
		if !ok {
			state = in.state(m.name, m.entry, m.pl, p)
			if _, ok := lock.Unfinished[m.name]; ok {
				state = StateUnfinished
			}
			states[p] = state
		}
		return Status{Skill: m.name, Agent: agent, Path: p, Kind: m.pl.Kind, State: state}
	}
	var out []Status
	for _, a := range agents {
		seen := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
			entry := lock.Skills[name]
			pl, ok := entry.Agents[a.ID]
			if !ok {
				continue
			}
			p := abs(root, pl.Path)
			if pl.Kind == KindCanonical {
				p = in.canonicalPath(name)
			}
			seen[p] = true
			st := status(made{name, entry, pl}, a.ID, p)
			if st.State == StateInstalled && pl.Path != in.placement(a, name, pl.Kind).Path {
				st.State = StateMoved
			}
			out = append(out, st)
		}
		dirs := []string{a.Dir(in.env, in.scope)}
		if readers {
			dirs = a.Reads(in.env, in.scope)
		}
		for _, dir := range dirs {
			entries, err := os.ReadDir(dir)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			for _, e := range entries {
				p := filepath.Join(dir, e.Name())
				if strings.HasPrefix(e.Name(), ".") || e.Type().IsRegular() || seen[p] {
					continue
				}
				seen[p] = true
				if m, ok := byPath[p]; ok {
					if readers {
						out = append(out, status(m, a.ID, p))
					}
					continue // without readers, its own agent reports it
				}
				out = append(out, Status{Skill: e.Name(), Agent: a.ID, Path: p, State: StateExternal})
			}
		}
	}
	if ctx.Err() != nil {
		return out, interrupted(ctx, "the list is incomplete")
	}
	return out, nil
}

func (in *Installer) state(name string, entry *LockedSkill, pl Placement, p string) string {
	canonical := in.canonicalPath(name)
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
// from the lock file (modified, missing or unfinished). A scope whose
// lock file records no skill fails with ErrNothingRecorded: there is
// nothing to check against.
func (in *Installer) Verify(ctx context.Context) ([]Status, error) {
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	if len(lock.Skills) == 0 && len(lock.Unfinished) == 0 {
		return nil, fmt.Errorf("%w in %s, so there is nothing to verify (install skills with 'agentskills add')", ErrNothingRecorded, in.lockPath())
	}
	all, err := in.list(ctx, nil, false)
	if err != nil {
		return nil, err
	}
	var bad []Status
	for _, s := range all {
		if s.State == StateModified || s.State == StateMissing || s.State == StateUnfinished || s.State == StateMoved {
			bad = append(bad, s)
		}
	}
	return bad, nil
}

// readCheckedLock reads the scope's lock file and checks that every entry names a
// usable skill folder and records each agent's placement exactly where
// this tool puts it: a hand-edited or hostile lock file cannot steer a
// removal anywhere else.
func (in *Installer) readCheckedLock() (*Lock, error) {
	lock, err := readLock(in.lockPath())
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s %s; fix or remove that entry", ErrInvalidLock, in.lockPath(), fmt.Sprintf(format, args...))
	}
	for i, set := range []map[string]*LockedSkill{lock.Skills, lock.Unfinished} {
		for name, entry := range set {
			if err := checkName(name); err != nil {
				return nil, bad("lists the skill %q, which is not a usable folder name", name)
			}
			if entry == nil {
				if i == 0 {
					return nil, bad("has an empty entry for %q", name)
				}
				continue // unfinished: there was no entry before
			}
			for id, pl := range entry.Agents {
				a, ok := LookupAgent(id)
				if !ok {
					return nil, bad("lists an unknown agent %q for %s", id, name)
				}
				switch pl.Kind {
				case KindCanonical, KindLink, KindJunction, KindCopy:
				default:
					return nil, bad("has an unknown kind %q for %s", pl.Kind, name)
				}
				want := in.placement(a, name, pl.Kind)
				if pl.Path != want.Path && !in.moved(name, pl) {
					return nil, bad("puts %s for %s at %s, not where agentskills puts it (%s)", name, id, pl.Path, want.Path)
				}
			}
		}
	}
	return lock, nil
}

// moved reports whether pl, which is not where the agent's folder is
// today, can be where it was when the skill was installed: in the user's
// scope, whose agent folders move with environment variables such as
// CLAUDE_CONFIG_DIR (rule 11), a link, junction or copy named after the
// skill in a folder named skills. Everything done there is still checked
// to be this tool's own first.
func (in *Installer) moved(name string, pl Placement) bool {
	p := filepath.FromSlash(pl.Path)
	return in.scope == User && pl.Kind != KindCanonical && filepath.Base(p) == name &&
		filepath.Base(filepath.Dir(p)) == "skills" && filepath.Dir(filepath.Dir(p)) != "."
}

// peekLock reads the lock file without taking the scope's lock, for
// checks that fail before anything is made.
func (in *Installer) peekLock() (*Lock, error) { return in.readCheckedLock() }

// placement is where a skill goes for an agent.
func (in *Installer) placement(a Agent, name, kind string) Placement {
	dir := a.Dir(in.env, in.scope)
	if kind == KindCanonical {
		dir = in.canonicalRoot()
	}
	return Placement{Kind: kind, Path: relTo(in.Root(), filepath.Join(dir, name))}
}

func (in *Installer) canonicalPath(name string) string {
	return filepath.Join(in.canonicalRoot(), name)
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

// checkFolders refuses, before anything is made, folders the installer
// cannot safely write into (rule 9): an agent folder that is not an
// absolute path (a relative override such as CLAUDE_CONFIG_DIR), a
// canonical folder that is a link or a file, and in a project, a folder on
// the way to an agent's folder that is a file or a link leading out of
// the project.
func (in *Installer) checkFolders(agents []Agent) error {
	root := in.Root()
	if !filepath.IsAbs(root) {
		return fmt.Errorf("%w: the %s folder %s is not an absolute path", ErrUnsafeFolder, in.scope, root)
	}
	for _, p := range []string{filepath.Join(root, ".agents"), in.canonicalRoot()} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is a link or a file, not a folder; agentskills keeps its canonical copies in a real folder (move it away)", ErrUnsafeFolder, p)
		}
	}
	for _, a := range agents {
		dir := a.Dir(in.env, in.scope)
		if !filepath.IsAbs(dir) {
			why := ""
			if a.Override != "" {
				why = fmt.Sprintf(" (is %s set to a relative path?)", a.Override)
			}
			return fmt.Errorf("%w: %s's skills folder %s is not an absolute path%s; set it to an absolute path", ErrUnsafeFolder, a.ID, dir, why)
		}
		if in.scope == Project {
			if err := checkWithin(root, dir); err != nil {
				return fmt.Errorf("%w: %s's skills folder: %w", ErrUnsafeFolder, a.ID, err)
			}
		}
	}
	return nil
}

// checkWithin checks every folder from root down to dir that exists: each
// must be a folder, or a link to a folder inside root.
func checkWithin(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the project %s", dir, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	p := root
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		if elem == "." {
			continue
		}
		p = filepath.Join(p, elem)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // the rest is made as real folders
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return fmt.Errorf("%s is a link that does not lead to a folder: %w", p, err)
			}
			if r, err := filepath.Rel(realRoot, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%s is a link to %s, outside the project; agentskills does not write out of a project through links (make it a folder, or install with --global)", p, target)
			}
			if fi, err = os.Stat(p); err != nil {
				return err
			}
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a folder", p)
		}
	}
	return nil
}
