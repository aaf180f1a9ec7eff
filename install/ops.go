package install

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// AddRequest says what to install.
type AddRequest struct {
	// Sources are folders, archive files or URLs (rules 3 and 12).
	Sources []string
	// Agents are the agents to install for; empty means those
	// [Installer.ChooseAgents] chooses.
	Agents []Agent
	// Copy makes full copies instead of links.
	Copy bool
	// Skills, when not empty, selects skills from the sources, each by
	// its name or by its folder inside its source (rule 12); a skill
	// nested in another skill's folder is installed alone only so.
	Skills []string
	// Force replaces installed skills that were changed since they were
	// installed, after moving each to a backup (rule 7). Default: such a
	// skill fails the request with ErrModified.
	Force bool
	// Strict makes a skill that cannot be installed (rule 4) fail the
	// request with ErrInvalidSource before anything changes. Default: it
	// is skipped and reported, and the others are installed.
	Strict bool
	// Plugins, when not empty, selects the skills of these Claude
	// plugins, by the names the sources' manifests give them (rule 12);
	// with Skills as well, a skill must be named by both. A name no
	// source's skills belong to fails with ErrInvalidSource, listing the
	// plugins that have skills there. Default: skills of any plugin or
	// none.
	Plugins []string
	// Lenient installs a skill that breaks only the Agent Skills
	// specification (rule 4), reporting what it breaks (Change.Spec);
	// the lock file records it as installed leniently, and Sync
	// installs it again without being asked. Default: such a skill is
	// skipped, as one that cannot be installed.
	Lenient bool
	// NoRequires installs only the skills of Sources, not the skills
	// they require (rule 17); the lock file records each requirement,
	// answered only by a skill installed already. Default: the skills
	// they require are installed too, and the skills those require.
	NoRequires bool
}

// SyncRequest says how to sync.
type SyncRequest struct {
	// Frozen installs exactly what the lock file records, as npm ci
	// does: it restores what is missing or broken, as an unfrozen sync
	// does, but checks every recorded skill first and fails with
	// ErrDrift, changing nothing, if any source's content differs from
	// the lock file, so the lock file's digests never change. Default: a
	// changed folder or unpinned URL updates the skill;
	// a pinned source with other content for its pin fails the sync
	// either way (rule 13).
	Frozen bool
	// Force is AddRequest.Force.
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
	// Kind is how it is made for the agent (KindLink, KindCopy, ...).
	Kind Kind `json:"kind"`
	// Backup, when not empty, is where what was there before was moved:
	// a modified copy replaced by a forced request (rule 7).
	Backup string `json:"backup,omitempty"`
	// Source, for ActionSkipped, is the source that holds the skill, as
	// recorded (without credentials).
	Source string `json:"source,omitempty"`
	// Reason, for ActionSkipped, is why the skill cannot be installed;
	// for ActionRemoved, why a skill no one named was removed: "no longer
	// required", a dependency that only the skills removed needed (rule
	// 18); on the canonical copy's change of a skill a sync installed
	// because the policy requires it, "required by the policy:
	// required[N] (FILE:LINE)", with ", the project's file" when that
	// file's entry asks (# Required skills).
	Reason string `json:"reason,omitempty"`
	// RequiredBy, on the canonical copy's change, names skills that
	// require this one, sorted: on an Add or Update, the skills of the
	// request that require it (rule 17); on a removal forced though
	// installed skills that stay require it (RemoveRequest.Required),
	// those skills, whose requirements are no longer answered (rule 18).
	RequiredBy []string `json:"required_by,omitempty"`
	// Pin and PreviousPin, on the canonical copy's change, are the pin
	// of a published source that an add moved, and the one before
	// (rule 13).
	Pin         string `json:"pin,omitempty"`
	PreviousPin string `json:"previous_pin,omitempty"`
	// Signer and PreviousSigner, on the canonical copy's change, are the
	// signer the lock file records for the skill now and the one it
	// recorded before, as [signature.Signer.String] writes them, when
	// they differ (Trust rule 4): a new signer accepted by name
	// (Trust.AcceptSigners), also for content that did not change.
	Signer         string `json:"signer,omitempty"`
	PreviousSigner string `json:"previous_signer,omitempty"`
	// Spec, when not empty, is what the skill breaks of the Agent Skills
	// specification (rule 4): on a skipped skill, the only reason it was
	// skipped (AddRequest.Lenient installs it); on the canonical copy's
	// change of a skill installed leniently, the warning.
	Spec string `json:"spec,omitempty"`
}

// Changed reports whether any change was made (a skipped skill is no
// change).
func Changed(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool {
		return c.Action != ActionUnchanged && c.Action != ActionSkipped || c.Pin != c.PreviousPin || c.Signer != c.PreviousSigner
	})
}

// Add installs the skills of req's sources for its agents (rules 1-7).
// A skill that cannot be installed (rule 4) is skipped, reported as a
// Change with ActionSkipped and its reason, and the others are installed;
// Add fails with ErrInvalidSource when nothing is left to install, or,
// with req.Strict, when anything was skipped. It is all or nothing for
// the rest: every skill is read, checked and staged, and every place it
// goes is checked, before the first one is swapped in.
func (in *Installer) Add(ctx context.Context, req AddRequest) ([]Change, error) {
	ctx, endWork := in.startWork(ctx)
	defer endWork()
	choice, err := in.ChooseAgents(ctx, req)
	if err != nil {
		return nil, err
	}
	agents := choice.List()
	if err := in.checkFolders(agents); err != nil {
		return nil, err
	}
	trusts, err := in.checkSources(req.Sources)
	if err != nil {
		return nil, err
	}
	sources, cleanup, err := in.resolveAll(ctx, req.Sources, trusts, req.Skills)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	use, skipped, err := in.selectSkills(sources, req)
	if err != nil {
		return nil, err
	}
	if !req.NoRequires {
		notes, err := in.linkPlugins(sources, use, req.Lenient)
		if err != nil {
			return skipped, err
		}
		skipped = append(skipped, notes...)
	}
	use, required, cleanupRequired, err := in.requirements(ctx, use, req.Lenient, req.NoRequires, false)
	if err != nil {
		return skipped, err
	}
	defer cleanupRequired()
	sources = append(sources, required...)
	// A skill is never installed without what it requires, nor a
	// requirement without the skill that needs it: with requirements,
	// the audit's refusal of any skill stops the request (rule 17).
	strict := req.Strict || slices.ContainsFunc(use, func(c *candidate) bool { return c.dependency })
	use, refusedSkips, refused, err := in.auditUse(ctx, use, strict)
	if err != nil {
		return skipped, err
	}
	skipped = append(skipped, refusedSkips...)
	digests, err := in.keepPinned(ctx, use)
	if err != nil {
		return skipped, err
	}
	in.rememberSources(sources, use, digests)
	s, err := in.begin(ctx)
	if err != nil {
		return skipped, err
	}
	defer s.end()
	wants, moved, kept, err := in.addWants(s.lock, use, agents, req.Copy)
	if err != nil {
		return append(s.recovered, skipped...), err
	}
	s.audits = newStagedAudits(strict, refused)
	changes, err := in.reconcile(ctx, s, wants, req.Force, false)
	refused, skipped = s.audits.refused, append(skipped, s.audits.skipped...)
	notePins(changes, moved, s.lock)
	noteSpec(changes, use)
	noteRequired(changes, use)
	if err == nil && len(refused) > 0 {
		err = &trust.RefusedError{Refusals: refused} // the others are installed (Trust rule 6)
	}
	var partial *trust.RefusedError
	if ierr := integrityFailures(sources); ierr != nil && (err == nil || errors.As(err, &partial) && len(partial.Refusals) > 0) {
		err = errors.Join(ierr, err) // the others are installed (rule 4)
	}
	return slices.Concat(s.recovered, skipped, kept, changes), err
}

// resolveAll resolves every source (see resolve), each verified as the
// trust at the same index says, for an Add that chooses the skills only
// (AddRequest.Skills); cleanup removes what reading them extracted.
func (in *Installer) resolveAll(ctx context.Context, sources []string, trusts []*sourceTrust, only []string) (_ []*sourceSkills, cleanup func(), _ error) {
	var out []*sourceSkills
	cleanup = func() {
		for _, r := range out {
			r.cleanup()
		}
	}
	for i, src := range sources {
		r, err := in.resolve(ctx, src, false, trusts[i], only)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		out = append(out, r)
	}
	return out, cleanup, nil
}

// selectSkills picks the skills of sources that req installs (rule 4),
// and reports those it skips. It fails when a skill req names is in no
// source, when nothing is left to install, or, with req.Strict, when any
// skill was skipped.
func (in *Installer) selectSkills(sources []*sourceSkills, req AddRequest) (use []*candidate, skipped []Change, _ error) {
	if err := missing(req.Skills, sources); err != nil {
		return nil, nil, err
	}
	if err := missingPlugins(req.Plugins, sources); err != nil {
		return nil, nil, err
	}
	var all []candidate
	for _, r := range sources {
		all = append(all, r.skills...)
	}
	use, skip := pick(all, req.Skills, req.Plugins, req.Lenient)
	if len(use) == 0 && len(skip) == 0 {
		// Only Plugins can select nothing: with Skills, or when its
		// skills are all nested in other skills' folders.
		return nil, nil, fmt.Errorf("%w: no skill of the plugins %s is selected (%s: %s; a skill nested in another skill's folder counts only when named); no skill is left to install; nothing was changed",
			ErrInvalidSource, strings.Join(req.Plugins, ", "), in.setting(SettingAddSkills), cmp.Or(strings.Join(req.Skills, ", "), "none"))
	}
	if req.Strict || len(use) == 0 {
		if err := refuseSkipped(skip, in.setting(SettingAddLenient)); err != nil {
			if !req.Strict {
				err = fmt.Errorf("%w\nno skill is left to install; nothing was changed", err)
			} else {
				err = fmt.Errorf("%w\nnothing was changed (strict: a skill that cannot be installed stops the request)", err)
			}
			return nil, nil, err
		}
	}
	for _, c := range skip {
		ch := Change{Skill: c.label(), Source: c.source, Path: c.pathInSource(), Action: ActionSkipped, Reason: c.problem}
		if c.specOnly() {
			ch.Spec = c.spec
		}
		skipped = append(skipped, ch)
	}
	return use, skipped, nil
}

// missingPlugins fails naming the plugins of names that no skill of the
// sources belongs to, and listing those that have skills there.
func missingPlugins(names []string, sources []*sourceSkills) error {
	var have, srcs []string
	for _, r := range sources {
		srcs = append(srcs, r.source)
		for _, c := range r.skills {
			for _, p := range c.plugins {
				if !slices.Contains(have, p) {
					have = append(have, p)
				}
			}
		}
	}
	var unknown []string
	for _, n := range names {
		if !slices.Contains(have, n) && !slices.Contains(unknown, strconv.Quote(n)) {
			unknown = append(unknown, strconv.Quote(n))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(have)
	held := "none: no Claude plugin manifest there lists a skill"
	if len(have) > 0 {
		held = strings.Join(have, ", ")
	}
	return fmt.Errorf("%s: %w: it holds no skill of a plugin named %s; the plugins with skills there: %s",
		strings.Join(srcs, " and "), ErrInvalidSource, strings.Join(unknown, ", "), held)
}

// keepPinned puts the skills of pinned sources into the skill cache, for
// syncs without the network (rule 13), and points them there: they are
// copied from the cache. It returns the content digest of each.
func (in *Installer) keepPinned(ctx context.Context, use []*candidate) (map[*candidate]string, error) {
	var pinned []*candidate
	for _, c := range use {
		if c.pin != "" || isPinnedURL(c.source) {
			pinned = append(pinned, c)
		}
	}
	return in.materializePinned(ctx, pinned)
}

// addWants is what an add wants in place: each skill of use for every
// agent. It refuses a skill installed from another source (rule 13),
// returns the entries of the skills whose pin moves, by name, and leaves
// out, reporting each as skipped, an agent whose place for a skill is the
// skill's own source folder (rule 1).
func (in *Installer) addWants(lock *lockFile, use []*candidate, agents []Agent, asCopy bool) (wants []want, moved map[string]*lockEntry, kept []Change, _ error) {
	moved = map[string]*lockEntry{}
	for _, c := range use {
		old := lock.Skills[c.name]
		if old != nil && (!in.sameSource(old.Source, c.source) || old.Subpath != c.subpath) {
			return nil, nil, nil, fmt.Errorf("skill %q: %w: it is already installed from %s; nothing was changed (remove it first with %s to install it from %s)",
				c.name, ErrConflict, sourceLabel(old.Source, old.Subpath), in.setting(SettingRemove), sourceLabel(c.source, c.subpath))
		}
		if old != nil && old.Pin != c.pin {
			moved[c.name] = old
		}
		w := want{c: *c}
		for _, a := range agents {
			if dir := a.Dir(in.env, in.scope); dir != in.canonicalRoot() && sameFolder(filepath.Join(dir, c.name), c.dir) {
				p := filepath.Join(dir, c.name)
				kept = append(kept, Change{Skill: c.name, Agent: a.ID, Source: c.source, Path: c.pathInSource(), Action: ActionSkipped,
					Reason: fmt.Sprintf("%s is this skill's source folder, which %s reads already; nothing is made for %s", relTo(in.Root(), p), a.ID, a.ID)})
				continue
			}
			w.places = append(w.places, wantPlace{agent: a, copy: asCopy})
		}
		if len(w.places) > 0 {
			wants = append(wants, w)
		}
	}
	return wants, moved, kept, nil
}

// sameFolder reports whether the folder place (not a link to it) and the
// folder src are one.
func sameFolder(place, src string) bool {
	fa, err := os.Lstat(place)
	if err != nil {
		return false
	}
	fb, err := os.Stat(src)
	return err == nil && os.SameFile(fa, fb)
}

// notePins reports, on the canonical copy's change of each skill whose
// pin an add moved, the pin recorded now and the one before (rule 13).
func notePins(changes []Change, moved map[string]*lockEntry, lock *lockFile) {
	for i, ch := range changes {
		if old := moved[ch.Skill]; old != nil && ch.Agent == "" {
			changes[i].Pin, changes[i].PreviousPin = lock.Skills[ch.Skill].Pin, old.Pin
		}
	}
}

// noteSpec reports, on the canonical copy's change of each skill of use
// installed leniently, what it breaks of the specification (rule 4).
func noteSpec(changes []Change, use []*candidate) {
	lenient := map[string]*candidate{}
	for _, c := range use {
		if _, ok := lenient[c.name]; c.lenient && !ok {
			lenient[c.name] = c
		}
	}
	for i, ch := range changes {
		if c := lenient[ch.Skill]; c != nil && ch.Agent == "" {
			changes[i].Spec = c.spec
		}
	}
}

// noteRequired reports, on the canonical copy's change of each skill of
// use that others of use require, which require it (rule 17).
func noteRequired(changes []Change, use []*candidate) {
	by := map[string][]string{}
	for _, c := range use {
		if len(c.requiredBy) > 0 {
			by[c.name] = c.requiredBy
		}
	}
	for i, ch := range changes {
		if names := by[ch.Skill]; names != nil && ch.Agent == "" {
			changes[i].RequiredBy = names
		}
	}
}

// cached returns the skill cache's folder of a recorded skill, if the
// cache holds its content: a sync of a pinned source needs no network.
func (in *Installer) cached(ctx context.Context, name string, entry *lockEntry) (string, bool) {
	return skillcache.Lookup(ctx, in.cache, entry.Digest, name)
}

// sameSource reports whether two sources are one: the same folder, URL,
// or published repository (whatever ref each names).
func (in *Installer) sameSource(a, b string) bool {
	ka, kb := in.sourceKey(a), in.sourceKey(b)
	return ka == kb
}

func (in *Installer) sourceKey(source string) string {
	if rs, err := in.parseRemote(source); err == nil && rs != nil {
		return rs.Repository()
	}
	return in.sourcePath(source)
}

// isPinnedURL reports whether source is a URL pinned with #sha256=.
func isPinnedURL(text string) bool {
	spec, err := source.Parse(text)
	return err == nil && spec.SHA256 != ""
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
// with ErrDrift, listing each, and nothing changes. A scope without a
// lock file has nothing to sync: Sync returns no change and writes
// nothing, not even a lock file; frozen, it fails with ErrNothingRecorded
// instead (as npm ci does), since there is nothing to install exactly.
func (in *Installer) Sync(ctx context.Context, req SyncRequest) ([]Change, error) {
	return in.syncWithRequired(ctx, req, in.syncRecorded)
}

// syncRecorded is Sync of what the lock file records.
func (in *Installer) syncRecorded(ctx context.Context, req SyncRequest) ([]Change, error) {
	if _, err := os.Lstat(in.lockPath()); errors.Is(err, fs.ErrNotExist) {
		if req.Frozen {
			return nil, fmt.Errorf("%s: %w: there is no lock file, so a frozen sync has nothing to install (add skills with 'agentskills add SOURCE', which writes it, or sync without --frozen)", in.lockPath(), ErrNothingRecorded)
		}
		return nil, nil
	}
	s, err := in.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer s.end()
	if err := in.checkFolders(recordedAgents(s.lock)); err != nil {
		return s.recovered, err
	}
	wants, cleanup, err := in.syncWants(ctx, s.lock)
	if err != nil {
		return s.recovered, err
	}
	defer cleanup()
	changes, err := in.reconcile(ctx, s, wants, req.Force, req.Frozen)
	if len(s.recovered) == 0 {
		return changes, err
	}
	return append(s.recovered, changes...), err
}

// recordedAgents is the agent of every place the lock file records,
// each once, sorted by ID.
func recordedAgents(lock *lockFile) []Agent {
	ids := map[string]bool{}
	for _, e := range lock.Skills {
		for id := range e.Agents {
			ids[id] = true
		}
	}
	var agents []Agent
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		a, _ := LookupAgent(id) // readCheckedLock checked every ID
		agents = append(agents, a)
	}
	return agents
}

// recordedRead is a source at a pin, as the lock file records it: the
// skills recorded from one are read together.
type recordedRead struct{ source, pin string }

// recordedReads groups the skills the lock file records by the source and
// pin they are read from, sorted.
func recordedReads(lock *lockFile) ([]recordedRead, map[recordedRead][]string) {
	bySource := map[recordedRead][]string{}
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		entry := lock.Skills[name]
		k := recordedRead{entry.Source, entry.Pin}
		bySource[k] = append(bySource[k], name)
	}
	reads := slices.SortedFunc(maps.Keys(bySource), func(a, b recordedRead) int {
		return cmp.Or(strings.Compare(a.source, b.source), strings.Compare(a.pin, b.pin))
	})
	return reads, bySource
}

// syncWants reads every recorded source once and returns what a sync
// wants in place: each recorded skill where the lock file records it.
// It fails listing every source and skill it cannot read, or at once
// when ctx ends; cleanup removes what reading the sources extracted.
func (in *Installer) syncWants(ctx context.Context, lock *lockFile) (_ []want, cleanup func(), _ error) {
	wants := make([]want, 0, len(lock.Skills))
	var problems []error
	var read []*sourceSkills
	cleanup = func() {
		for _, r := range read {
			r.cleanup()
		}
	}
	reads, bySource := recordedReads(lock)
	for _, k := range reads {
		names := bySource[k]
		st, err := in.checkRecorded(k.source, k.pin, names, lock)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", strings.Join(names, ", "), err))
			continue
		}
		r, err := in.syncSource(ctx, k.source, k.pin, names, lock, st)
		if errors.Is(err, ErrInterrupted) {
			cleanup()
			return nil, nil, err
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", strings.Join(names, ", "), err))
			continue
		}
		read = append(read, r)
		for _, name := range names {
			w, err := in.recordedWant(name, k.source, lock.Skills[name], r)
			if err == nil && w.c.root != "" && w.c.digest == "" {
				// A folder source's skill whose stat record vouches for
				// the recorded content is not read again (rule 16).
				if d := in.stamps.sourceDigest(ctx, in, &w.c); d == lock.Skills[name].Digest {
					w.c.digest = d
					in.stamps.markChecked(in, &w.c, d)
				}
			}
			if err == nil {
				err = in.auditRecorded(ctx, &w.c, lock.Skills[name].AllowedRisks)
			}
			if err != nil {
				problems = append(problems, err)
				continue
			}
			wants = append(wants, w)
		}
	}
	if len(problems) > 0 {
		cleanup()
		return nil, nil, refuse(problems)
	}
	return wants, cleanup, nil
}

// recordedWant is the skill name, recorded as entry from source, taken
// from r, the skills read from that source: wanted for each agent it is
// recorded for, as a copy where it was copied.
func (in *Installer) recordedWant(name, src string, entry *lockEntry, r *sourceSkills) (want, error) {
	i := r.find(name, entry.Subpath)
	if i < 0 {
		return want{}, fmt.Errorf("skill %s: %w: %s no longer holds it where the lock file says (%s); remove it, or add it again from where the source keeps it now", name, ErrDrift, src, sourceLabel(entry.Source, entry.Subpath))
	}
	c := r.skills[i]
	if c.problem != "" && c.integrity {
		return want{}, fmt.Errorf("skill %s in %s: %w: %s", name, c.where(), source.ErrIntegrity, c.problem)
	}
	if c.problem != "" {
		return want{}, fmt.Errorf("skill %s in %s: %w: %s", name, c.where(), ErrInvalidSource, c.problem)
	}
	if c.spec != "" && !entry.Lenient {
		return want{}, fmt.Errorf("skill %s in %s: %w: it %w, though agents load it: %s; the lock file does not record it as installed leniently (add it again with %s, or update it with %s)",
			name, c.where(), ErrInvalidSource, ErrSpecification, c.spec, in.setting(SettingAddLenient), in.setting(SettingUpdateLenient))
	}
	c.lenient = c.spec != ""
	w := want{c: c}
	for _, id := range slices.Sorted(maps.Keys(entry.Agents)) {
		a, _ := LookupAgent(id)
		w.places = append(w.places, wantPlace{agent: a, copy: entry.Agents[id].Kind == KindCopy})
	}
	return w, nil
}

// syncSource reads the skills names of a recorded source for a sync.
// Those of a pinned source (a published one, or a URL with #sha256=)
// come from the skill cache when it holds their content; else a
// published source is read at its pin, never at its moving reference,
// each skill where the lock file says.
func (in *Installer) syncSource(ctx context.Context, source, pin string, names []string, lock *lockFile, st *sourceTrust) (*sourceSkills, error) {
	if (pin != "" || isPinnedURL(source)) && st.cachedOK(names, lock) {
		r := &sourceSkills{source: source, pin: pin, cleanup: func() {}}
		for _, name := range names {
			entry := lock.Skills[name]
			dir, ok := in.cached(ctx, name, entry)
			if !ok {
				r = nil
				break
			}
			// The cache checked its tree of the digest (rule 4 of package
			// skill): the digest is the cache's, not the lock file's word.
			r.skills = append(r.skills, candidate{dir: dir, source: source, subpath: entry.Subpath, digest: entry.Digest})
		}
		if r != nil {
			if err := in.verifyCached(ctx, source, pin, st); err != nil {
				return nil, err
			}
			in.checkAll(ctx, r.skills, pin)
			st.mark(r.skills)
			return r, nil
		}
	}
	if pin == "" {
		if r := in.stampedSource(ctx, source, names, lock, st); r != nil {
			return r, nil
		}
		return in.resolve(ctx, in.sourcePath(source), true, st, nil)
	}
	rs, err := in.parseSource(source, false)
	if err == nil && rs == nil && isWebIndex(source) {
		return in.syncWebIndex(ctx, source, pin, names, lock, st)
	}
	if err == nil && rs == nil {
		err = fmt.Errorf("%s: %w: it is recorded with a pin, but is not a published source", source, ErrInvalidLock)
	}
	if err != nil {
		return nil, err
	}
	var at []string
	for _, name := range names {
		at = append(at, lock.Skills[name].Subpath)
	}
	r := &sourceSkills{source: source, pin: pin}
	_, r.skills, r.cleanup, err = in.fromRemote(ctx, rs, source, pin, at, st, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(ctx, "nothing was changed")
		}
		return nil, err
	}
	in.checkAll(ctx, r.skills, pin)
	st.mark(r.skills)
	return r, nil
}

// stampedSource returns the skills names of the recorded folder source,
// as resolve finds them, when the stat record vouches for the folder of
// each (rule 16): it holds the content the lock file records and the
// name a sync's check found, and the folders above it in the source are
// folders, not links. Nothing of the source is then read or checked
// again. It returns nil when one is not so: the source is read.
func (in *Installer) stampedSource(ctx context.Context, source string, names []string, lock *lockFile, st *sourceTrust) *sourceSkills {
	if isURL(source) {
		return nil
	}
	root := in.sourcePath(source)
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil
	}
	rec := in.recordSource(root)
	r := &sourceSkills{source: redact.URL(root), skills: make([]candidate, 0, len(names)), cleanup: func() {}}
	for _, name := range names {
		e := lock.Skills[name]
		if e.Lenient || !realFolders(root, e.Subpath) {
			return nil
		}
		c := candidate{dir: filepath.Join(root, filepath.FromSlash(e.Subpath)), source: rec, subpath: e.Subpath, root: root, noLinks: true}
		checked, digest, ok := in.stamps.checked(ctx, in, &c)
		if !ok || checked != name || digest != e.Digest {
			return nil
		}
		c.name, c.digest = checked, digest
		r.skills = append(r.skills, c)
	}
	st.mark(r.skills)
	return r
}

// realFolders reports whether every folder of the slash-separated
// subpath inside root but its last is a folder, not a link.
func realFolders(root, subpath string) bool {
	dir, _ := path.Split(subpath)
	if dir == "" {
		return true // the source's root, or a folder in it
	}
	p := root
	for _, elem := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if elem == "" {
			continue
		}
		p = filepath.Join(p, elem)
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
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

// RemoveRequest says what [Installer.Remove] removes.
type RemoveRequest struct {
	// Names are the skills to remove, by the names the lock file records.
	Names []string
	// Agents are the agents to remove them for. Default (empty): every
	// agent the lock file records for each.
	Agents []Agent
	// Force removes a copy or canonical copy that was changed since it
	// was installed, after moving it to a new folder under
	// <root>/.agents/backups, which the change names (Change.Backup), as
	// AddRequest.Force does for Add (rule 7). Default: such a skill fails
	// the removal with ErrModified and nothing changes.
	Force bool
	// Required removes a skill that other installed skills, which stay,
	// require (rule 18); their requirements are then not answered, which
	// [Installer.Verify] reports. Default: such a skill fails the removal
	// with ErrRequired, naming them, and nothing changes.
	Required bool
}

// Remove removes the skills req names for its agents; the canonical copy
// goes when no agent uses it. It removes only what it installed and what
// is still as it installed it: a place changed since fails the request
// with ErrModified unless req.Force is set; anything else this tool did
// not make fails it with ErrConflict. A skill that goes while installed
// skills that stay require it fails the request with ErrRequired unless
// req.Required is set, and the dependencies that only the skills going
// needed go with them, reported with the Reason "no longer required"
// (rule 18). Every problem is found before anything changes.
func (in *Installer) Remove(ctx context.Context, req RemoveRequest) ([]Change, error) {
	names, agents := req.Names, req.Agents
	// Names that are not recorded fail before anything is made, even the
	// scope's lock.
	peek, err := in.peekLock()
	if err != nil {
		return nil, err
	}
	if err := notInstalled(peek, names, in.Root()); err != nil {
		return nil, err
	}
	s, err := in.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer s.end()
	lock := s.lock
	if err := notInstalled(lock, names, in.Root()); err != nil {
		return s.recovered, err
	}
	var plans []removal
	for _, n := range names {
		plans = append(plans, in.planRemoval(ctx, n, lock.Skills[n], agents, req.Force))
	}
	// What the lock file records of the policy's requirements, found
	// once for the plans and for the check of them.
	required, reqErr := in.requiredIn(lock)
	plans = in.planRequirements(ctx, lock, plans, req, policyEntries(required))
	var problems []error
	for _, r := range plans {
		problems = append(problems, r.problems...)
	}
	if ctx.Err() != nil {
		// What was examined after ctx ended is not known: no verdict.
		return s.recovered, interrupted(ctx, "nothing was changed")
	}
	if reqErr != nil {
		return s.recovered, reqErr
	}
	if err := keepRequired(required, plans); err != nil {
		return s.recovered, err
	}
	if len(problems) > 0 {
		return s.recovered, refuse(problems)
	}
	// Mark the work, do it, then record the result (rule 6).
	if lock.Unfinished == nil {
		lock.Unfinished = map[string]*lockEntry{}
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
				unmark(lock, rest.name, rest.prev)
			}
			return changes, in.stopped(ctx, lock, i, len(plans), "removed", "left")
		}
		ch, err := in.remove(context.WithoutCancel(ctx), r) // a removal begun is finished: Remove stops between two
		for i := range ch {
			ch[i].Reason = r.reason
			if ch[i].Agent == "" {
				ch[i].RequiredBy = r.requiredBy
			}
		}
		changes = append(changes, ch...)
		if err != nil {
			return changes, err
		}
		delete(lock.Unfinished, r.name)
	}
	lock.Unfinished = nil
	return changes, lock.write(in.lockPath())
}

// removal is what removing one skill does: the agents it is removed for,
// its lock entry before and after (nil: the skill goes), and the places
// changed since they were installed, which go to a backup first (forced).
type removal struct {
	name       string
	prev, cur  *lockEntry
	ids        []string
	backup     map[string]bool // by path
	reason     string          // why it goes when no one named it (Change.Reason)
	requiredBy []string        // the skills that stay and require it (Change.RequiredBy)
	problems   []error         // what stops it
}

// planRequirements applies rule 18 to the removals planned and returns
// them with what it adds: each dependency that only the skills going
// needed is planned to go too, for every agent, as planRemoval plans it
// (one named for some of its agents only is planned again, for every
// one), unless the policy requires it and no one named it: that one
// stays, no longer marked a dependency; and each skill that goes while a skill that stays requires it
// is stopped, unless req.Required is set. kept maps the skills the
// policy requires to the entry that does (policyEntries).
func (in *Installer) planRequirements(ctx context.Context, lock *lockFile, plans []removal, req RemoveRequest, kept map[string]string) []removal {
	going := map[string]bool{}
	for _, r := range plans {
		if r.cur == nil {
			going[r.name] = true
		}
	}
	if len(going) == 0 {
		return plans
	}
	// The dependencies go before the skills named, each before the
	// skills that require it: a run stopped between two leaves what is
	// left still needed by a skill named, which the next run names again.
	// A dependency the policy requires and no one named stays, and so
	// does what it needs in turn: the orphans are counted again with
	// those kept as skills the user named.
	stay := map[string]bool{}
	for _, n := range orphans(lock.Skills, going, nil) {
		if kept[n] != "" && !slices.ContainsFunc(plans, func(p removal) bool { return p.name == n }) {
			stay[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(stay)) {
		// The policy requires it: it stays, installed directly now
		// (# Required skills, rule 6).
		cur := *lock.Skills[n]
		cur.Dependency = false
		plans = append(plans, removal{name: n, prev: lock.Skills[n], cur: &cur})
	}
	var first []removal
	for _, n := range leavesFirst(lock.Skills, orphans(lock.Skills, going, stay)) {
		i := slices.IndexFunc(plans, func(p removal) bool { return p.name == n })
		going[n] = true
		r := in.planRemoval(ctx, n, lock.Skills[n], nil, req.Force)
		if i >= 0 {
			plans[i] = r
			continue
		}
		r.reason = "no longer required"
		first = append(first, r)
	}
	plans = append(first, plans...)
	by := requiredBy(lock.Skills, nil)
	for i, r := range plans {
		if !going[r.name] {
			continue
		}
		if stay := slices.DeleteFunc(slices.Clone(by[r.name]), func(n string) bool { return going[n] }); len(stay) > 0 {
			if !req.Required {
				plans[i].problems = append(plans[i].problems, requiredError(r.name, stay))
			}
			plans[i].requiredBy = stay
		}
	}
	return plans
}

// planRemoval plans the removal of the skill name, recorded as entry, for
// the agents (all it is recorded for when none is given), with what
// stops it (removal.problems): a place, or the canonical copy when it
// goes, that is no longer as this tool made it. With force, a copy or
// canonical copy that was changed is planned to go to a backup instead.
func (in *Installer) planRemoval(ctx context.Context, name string, entry *lockEntry, agents []Agent, force bool) removal {
	ids := slices.Sorted(maps.Keys(entry.Agents))
	if len(agents) > 0 {
		ids = ids[:0]
		for _, a := range agents {
			if _, ok := entry.Agents[a.ID]; ok {
				ids = append(ids, a.ID)
			}
		}
	}
	kept := *entry // every field kept (the pin too), the places cloned
	kept.Agents = maps.Clone(entry.Agents)
	cur := &kept
	for _, id := range ids {
		delete(cur.Agents, id)
	}
	canonical := in.canonicalPath(name)
	r := removal{name: name, prev: entry, ids: ids, backup: map[string]bool{}}
	check := func(p string, pl lockPlace, what string) {
		modified, err := in.removable(ctx, p, canonical, pl, entry.Digest, what, force)
		if err != nil {
			r.problems = append(r.problems, err)
		}
		if modified {
			r.backup[p] = true
		}
	}
	for _, id := range ids {
		pl := entry.Agents[id]
		if pl.Kind == KindCanonical {
			continue
		}
		check(abs(in.Root(), pl.Path), pl, "what agentskills installed for "+id)
	}
	if len(cur.Agents) == 0 {
		cur = nil
		// The canonical copy is ours only while it holds the recorded
		// content (or is gone).
		check(canonical, lockPlace{Kind: KindCanonical}, "the folder agentskills installed")
	}
	r.cur = cur
	return r
}

// removable says what stops the removal of p, which the lock file records
// as pl with the content digest, and the text names as what: nil when p
// is gone or still as this tool made it. A folder changed since stops it
// with ErrModified; forced, it does not, and modified reports it (it goes
// to a backup).
func (in *Installer) removable(ctx context.Context, p, canonical string, pl lockPlace, digest, what string, force bool) (modified bool, _ error) {
	switch in.examine(ctx, p, canonical, &pl, digest, "", nil).found {
	case foundNothing, foundOurs:
		return false, nil
	case foundModified:
		if force {
			return true, nil
		}
		if pl.Kind == KindCanonical {
			return false, modifiedError(p, "")
		}
		return false, modifiedError(p, canonical)
	default:
		return false, fmt.Errorf("%s is no longer %s (it was replaced): %w; remove it yourself if you want it gone", p, what, ErrConflict)
	}
}

// remove carries out a removal: each agent's place, then the canonical
// copy when the skill goes. A place planned for a backup is moved there
// (copied, then removed, across file systems).
func (in *Installer) remove(ctx context.Context, r removal) ([]Change, error) {
	var changes []Change
	toBackup := func(p, rel string, ch *Change) error {
		b, moved, err := in.toBackup(ctx, p, rel)
		if err != nil {
			return err
		}
		ch.Backup = b
		if !moved {
			return removeAside(p)
		}
		return nil
	}
	for _, id := range r.ids {
		pl := r.prev.Agents[id]
		p := abs(in.Root(), pl.Path)
		ch := Change{Skill: r.name, Agent: id, Path: p, Action: ActionRemoved, Kind: pl.Kind}
		// Agents that share a folder (Trae and Trae CN) share a place:
		// it stays while one that keeps the skill has it. The canonical
		// copy stays while the skill does. Anything else was checked to
		// be the link, junction or copy this tool made, or a copy
		// changed since that goes to a backup.
		shared := r.cur != nil && slices.ContainsFunc(slices.Collect(maps.Values(r.cur.Agents)), func(o lockPlace) bool { return o.Path == pl.Path })
		switch {
		case shared || pl.Kind == KindCanonical:
		case r.backup[p]:
			if err := toBackup(p, filepath.Join(id, r.name), &ch); err != nil {
				return changes, err
			}
		default:
			if err := removePlace(p, pl.Kind); err != nil {
				return changes, err
			}
		}
		changes = append(changes, ch)
	}
	if r.cur == nil {
		canonical := in.canonicalPath(r.name)
		ch := Change{Skill: r.name, Path: canonical, Action: ActionRemoved, Kind: KindCanonical}
		if r.backup[canonical] {
			if err := toBackup(canonical, r.name, &ch); err != nil {
				return changes, err
			}
		} else if err := removeAside(canonical); err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

// notInstalled fails with ErrNotInstalled naming every name the lock
// does not record.
func notInstalled(lock *lockFile, names []string, root string) error {
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
func setEntry(lock *lockFile, name string, e *lockEntry) {
	if e == nil {
		delete(lock.Skills, name)
		return
	}
	lock.Skills[name] = e
}

// State is what [Installer.List] and [Installer.Verify] find of a skill
// in one place.
type State string

// States of a skill in one place.
const (
	StateInstalled  State = "installed"  // as recorded
	StateModified   State = "modified"   // its files no longer match the recorded digest
	StateMissing    State = "missing"    // recorded, but gone
	StateExternal   State = "external"   // present in an agent's folder, not installed by this tool
	StateUnfinished State = "unfinished" // an interrupted run was changing it; the next add, remove or sync finishes or rolls it back
	StateMoved      State = "moved"      // installed where the agent's folder was; it is elsewhere today (rule 11); sync moves it
	// StateSource is a folder that the lock file records as the source
	// of an installed skill, found in a folder an agent reads only
	// because that folder is also the project's own (such as OpenClaw's
	// skills folder): not an install, and not someone else's skill.
	StateSource State = "source"
	// StateUnmet is a requirement of an installed skill (rule 18) that
	// no installed skill answers: one [Installer.Verify] reports, with
	// the requirement as written (Status.Requirement).
	StateUnmet State = "unmet"
)

// Status is one skill in one folder an agent reads, as [Installer.List]
// and [Installer.Verify] report it. Its JSON form is what
// `agentskills list --json` prints.
type Status struct {
	// Skill is the skill's name: the name of its folder.
	Skill string `json:"skill"`
	// Agent is the ID of the agent that reads it (see [Agent]).
	Agent string `json:"agent"`
	// Path is the absolute path of the skill's folder or link.
	Path string `json:"path"`
	// Kind is how this tool made it for the agent; empty for a skill
	// this tool did not install (StateExternal, StateSource).
	Kind Kind `json:"kind,omitempty"`
	// State is what was found there.
	State State `json:"state"`
	// AllowedRisks, for a skill this tool installed, is the record of
	// audit findings allowed for its content that the lock file keeps
	// (Trust rule 5), or nil.
	AllowedRisks *RiskAllowance `json:"allowed_risks,omitempty"`
	// RequiredBy, for a skill this tool installed, names the installed
	// skills that require it (rule 18), sorted; nil when none does.
	RequiredBy []string `json:"required_by,omitempty"`
	// Dependency, for a skill this tool installed, reports one installed
	// only because others require it, not named by the user: it goes
	// with the last skill that needs it (rule 18).
	Dependency bool `json:"dependency,omitempty"`
	// Requirement, for StateUnmet, is the requirement as the skill
	// declares it (github:acme/skills/changelog@^1); Agent is then empty
	// and Path is the skill's canonical copy.
	Requirement string `json:"requirement,omitempty"`
	// RequiredByPolicy, for a skill this tool installed from a source
	// the policy requires ([Installer.List] only; # Required skills in
	// the package doc), locates the entry that requires it:
	// "required[N] (FILE:LINE)", the first when several do.
	RequiredByPolicy string `json:"required_by_policy,omitempty"`
}

// ListRequest says what [Installer.List] reports.
type ListRequest struct {
	// Agents are the agents whose folders are read. Default (empty):
	// every known agent.
	Agents []Agent
}

// List reports every skill in the folders req's agents read (see
// [Agent.Reads]), once for each agent that reads it: those this tool
// installed, with their state; the folders the lock file records as the
// sources of installed skills as [StateSource] (a project's own skills
// folder that is also an agent's, say); and the others as external.
func (in *Installer) List(ctx context.Context, req ListRequest) ([]Status, error) {
	lock, err := in.viewLock()
	if err != nil {
		return nil, err
	}
	st, err := in.list(ctx, lock, req.Agents, true, false)
	if err != nil {
		return st, err
	}
	return st, in.markRequired(lock, st)
}

// Installed returns the names of the skills this tool installed in the
// scope, as the lock file records them, sorted. It reads the lock file
// alone: it opens no file of a skill, hashes nothing and writes nothing,
// so that it is cheap enough to ask on every key press (a shell's
// completion does). [Installer.List] reports their state.
func (in *Installer) Installed(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(lock.Skills)), nil
}

// list is List of lock, the scope's lock file (viewLock); without
// readers it reports each recorded place once, for its own agent, and
// looks only in the folders skills are installed into; with rehash it
// reads every folder it hashes, trusting no stat record (rule 16).
func (in *Installer) list(ctx context.Context, lock *lockFile, agents []Agent, readers, rehash bool) ([]Status, error) {
	in.stamps.forgetDevs()
	if len(agents) == 0 {
		agents = Agents()
	}
	l := &lister{in: in, lock: lock, readers: readers, rehash: rehash, made: in.madeByPath(lock), sources: in.sourceFolders(lock),
		digests: map[string]hashed{}, real: realDirs{}, byAgent: skillsByAgent(lock), dirs: map[string][]listed{}}
	l.hashAll(ctx, agents)
	var out []Status
	for _, a := range agents {
		st, err := l.agent(ctx, a)
		if err != nil {
			return nil, err
		}
		out = append(out, st...)
	}
	if ctx.Err() != nil {
		return out, interrupted(ctx, "the list is incomplete")
	}
	in.saveRecords()
	by := requiredBy(lock.Skills, nil)
	for i, st := range out {
		if e := lock.Skills[st.Skill]; e != nil && st.Kind != "" {
			out[i].AllowedRisks = e.AllowedRisks
			out[i].RequiredBy = by[st.Skill]
			out[i].Dependency = e.Dependency
		}
	}
	return out, nil
}

// skillsByAgent is the names of the skills lock records for each agent,
// sorted, found in one pass over the lock file.
func skillsByAgent(lock *lockFile) map[string][]string {
	out := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		for id := range lock.Skills[name].Agents {
			out[id] = append(out[id], name)
		}
	}
	return out
}

// madePlace is a skill's canonical copy or a place of it that this tool
// made, with what one list found there.
type madePlace struct {
	name  string
	entry *lockEntry
	pl    lockPlace
	// seen is the number of the last agent whose listing reported
	// it (lister.agents), and state the state found, once stated.
	seen   int
	stated bool
	state  State
}

// madeByPath is what the lock file says this tool made, by path: each
// canonical copy and each place.
func (in *Installer) madeByPath(lock *lockFile) map[string]*madePlace {
	byPath := map[string]*madePlace{}
	for name, entry := range lock.Skills {
		byPath[in.canonicalPath(name)] = &madePlace{name: name, entry: entry, pl: lockPlace{Kind: KindCanonical}}
		for _, pl := range entry.Agents {
			if pl.Kind != KindCanonical {
				byPath[abs(in.Root(), pl.Path)] = &madePlace{name: name, entry: entry, pl: pl}
			}
		}
	}
	return byPath
}

// sourceFolders is every folder the lock file records as the source of a
// skill: its source (a folder; relative ones are under the scope root)
// joined with its subpath. A source that is no folder (a URL, an archive,
// a published reference) gives a path that no skill is found at.
func (in *Installer) sourceFolders(lock *lockFile) map[string]bool {
	out := map[string]bool{}
	for _, e := range lock.Skills {
		out[filepath.Join(abs(in.Root(), e.Source), filepath.FromSlash(e.Subpath))] = true
	}
	return out
}

// lister is one run of list.
type lister struct {
	in      *Installer
	lock    *lockFile
	readers bool
	rehash  bool                  // read every folder, trusting no stat record
	made    map[string]*madePlace // what this tool made, by path
	sources map[string]bool       // the recorded sources' folders
	digests map[string]hashed     // what each folder hashed to: the canonical copy and the links to it are one
	real    realDirs              // the real locations of folders
	byAgent map[string][]string   // the skills lock records for each agent, sorted
	dirs    map[string][]listed   // what each folder listed holds: many agents read one
	agents  int                   // agents listed so far: the number of the one being listed
}

// listed is one entry of a folder an agent reads, as list sees it.
type listed struct {
	name, path string
	made       *madePlace // nil: not made by this tool
	source     bool       // a recorded source's folder
	seen       int        // the number of the last agent that reported it
}

// hashed is what hashing a skill folder found: its digest ("" when it
// could not be read), or that it is missing.
type hashed struct {
	digest  string
	missing bool
}

// listWorkers is how many folders list hashes at once: each is mostly
// file system calls, which overlap.
const listWorkers = 8

// hashAll hashes, listWorkers at a time, every folder the listing of
// agents will compare with the lock file: the canonical copy of each
// skill recorded in a folder they read or for one of them, and each
// such copy. state then finds them hashed. When ctx ends it stops
// hashing; state hashes no more either, and list says it is incomplete.
func (l *lister) hashAll(ctx context.Context, agents []Agent) {
	read := map[string]bool{}
	ids := map[string]bool{}
	for _, a := range agents {
		ids[a.ID] = true
		read[a.Dir(l.in.env, l.in.scope)] = true
		if l.readers {
			for _, dir := range a.Reads(l.in.env, l.in.scope) {
				read[dir] = true
			}
		}
	}
	forAgents := func(e *lockEntry) bool {
		for id := range e.Agents {
			if ids[id] {
				return true
			}
		}
		return false
	}
	var paths []string
	for p, m := range l.made {
		if (m.pl.Kind == KindCanonical || m.pl.Kind == KindCopy) && (read[filepath.Dir(p)] || forAgents(m.entry)) {
			paths = append(paths, p)
		}
	}
	got := make([]hashed, len(paths))
	var g errgroup.Group
	g.SetLimit(listWorkers)
	for i, p := range paths {
		g.Go(func() error {
			got[i] = l.in.hashFolder(ctx, p, l.rehash)
			return nil
		})
	}
	g.Wait()
	for i, p := range paths {
		l.digests[p] = got[i]
	}
}

// hashFolder hashes the skill folder p, or, without rehash, has its
// digest from the stat record (rule 16).
func (in *Installer) hashFolder(ctx context.Context, p string, rehash bool) hashed {
	var h hashed
	if _, err := os.Stat(p); err != nil {
		h.missing = true
	} else if d, err := in.stamps.digest(ctx, in, p, rehash); err == nil {
		h.digest = d
	}
	return h
}

// agent lists the skills of one agent: those recorded for it, then the
// others in the folders it reads (without readers, the one it is
// installed into).
func (l *lister) agent(ctx context.Context, a Agent) ([]Status, error) {
	l.agents++
	out := l.recorded(ctx, a)
	dirs := []string{a.Dir(l.in.env, l.in.scope)}
	if l.readers {
		dirs = a.Reads(l.in.env, l.in.scope)
	}
	for _, dir := range dirs {
		st, err := l.folder(ctx, a, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, st...)
	}
	return out, nil
}

// recorded lists the skills the lock file records for a, marking their
// places seen.
func (l *lister) recorded(ctx context.Context, a Agent) []Status {
	out := make([]Status, 0, len(l.byAgent[a.ID]))
	for _, name := range l.byAgent[a.ID] {
		entry := l.lock.Skills[name]
		pl := entry.Agents[a.ID]
		p := abs(l.in.Root(), pl.Path)
		if pl.Kind == KindCanonical {
			p = l.in.canonicalPath(name)
		}
		m := l.made[p]
		if m != nil {
			m.seen = l.agents
		}
		if m == nil || m.name != name || m.pl.Kind != pl.Kind {
			// Two entries name one place (a hand-edited lock file):
			// this one's state, not the other's.
			m = &madePlace{name: name, entry: entry, pl: pl}
		}
		st := l.status(ctx, m, a.ID, p, pl)
		if st.State == StateInstalled && pl.Path != l.in.placement(a, name, pl.Kind).Path {
			st.State = StateMoved
		}
		out = append(out, st)
	}
	return out
}

// folder lists the skills in dir, one of a's folders, that were not
// reported for a yet: what this tool made for another agent (with
// readers), the recorded sources as such, and the others as external.
func (l *lister) folder(ctx context.Context, a Agent, dir string) ([]Status, error) {
	entries, ok := l.dirs[dir]
	if !ok {
		var err error
		if entries, err = l.listFolder(dir); err != nil {
			return nil, err
		}
		l.dirs[dir] = entries
	}
	var out []Status
	for i := range entries {
		e := &entries[i]
		if m := e.made; m != nil {
			if m.seen == l.agents {
				continue
			}
			m.seen = l.agents
			if l.readers {
				out = append(out, l.status(ctx, m, a.ID, e.path, m.pl))
			}
			continue // without readers, its own agent reports it
		}
		if e.seen == l.agents {
			continue
		}
		e.seen = l.agents
		state := StateExternal
		if e.source {
			state = StateSource
		}
		out = append(out, Status{Skill: e.name, Agent: a.ID, Path: e.path, State: state})
	}
	return out, nil
}

// listFolder reads what dir holds that list reports: its folders and
// links, not hidden.
func (l *lister) listFolder(dir string) ([]listed, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	out := make([]listed, 0, len(entries))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		out = append(out, listed{name: e.Name(), path: p, made: l.made[p], source: l.sources[p]})
	}
	return out, nil
}

// status is the status of m, the place pl, at p for agent: its state is
// found once per list.
func (l *lister) status(ctx context.Context, m *madePlace, agent, p string, pl lockPlace) Status {
	if !m.stated {
		m.state = l.state(ctx, m.name, m.entry, pl, p)
		if _, ok := l.lock.Unfinished[m.name]; ok {
			m.state = StateUnfinished
		}
		m.stated = true
	}
	return Status{Skill: m.name, Agent: agent, Path: p, Kind: pl.Kind, State: m.state}
}

// state is the state of the place pl of the skill name, recorded as
// entry, at p. A folder many places show (the canonical copy, through
// links) is hashed once per list.
func (l *lister) state(ctx context.Context, name string, entry *lockEntry, pl lockPlace, p string) State {
	canonical := l.in.canonicalPath(name)
	switch pl.Kind {
	case KindLink, KindJunction:
		if _, err := os.Lstat(p); err != nil {
			return StateMissing
		}
		if !ourLink(p, canonical, l.real) && !ourJunction(p, canonical) {
			return StateModified
		}
		p = canonical
	}
	h, ok := l.digests[p]
	if !ok {
		h = l.in.hashFolder(ctx, p, l.rehash)
		l.digests[p] = h
	}
	switch {
	case h.missing:
		return StateMissing
	case h.digest == "" || h.digest != entry.Digest:
		return StateModified
	}
	return StateInstalled
}

// Verify re-hashes every installed skill, trusting no stat record (rule
// 16), and returns those that differ from the lock file (modified,
// missing or unfinished), then every requirement of an installed skill
// that no installed skill answers ([StateUnmet], rule 18). A scope whose
// lock file records no skill fails with ErrNothingRecorded: there is
// nothing to check against.
func (in *Installer) Verify(ctx context.Context) ([]Status, error) {
	lock, err := in.viewLock()
	if err != nil {
		return nil, err
	}
	if len(lock.Skills) == 0 && len(lock.Unfinished) == 0 {
		return nil, fmt.Errorf("%s: %w, so there is nothing to verify (install skills with 'agentskills add')", in.lockPath(), ErrNothingRecorded)
	}
	all, err := in.list(ctx, lock, nil, false, true)
	if err != nil {
		return nil, err
	}
	var bad []Status
	for _, s := range all {
		if s.State == StateModified || s.State == StateMissing || s.State == StateUnfinished || s.State == StateMoved {
			bad = append(bad, s)
		}
	}
	return append(bad, in.unmet(lock)...), nil
}

// readCheckedLock reads the scope's lock file and checks that every entry names a
// usable skill folder and records each agent's placement exactly where
// this tool puts it: a hand-edited or hostile lock file cannot steer a
// removal anywhere else.
func (in *Installer) readCheckedLock() (*lockFile, error) {
	lock, err := readLock(in.lockPath())
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: it %s; fix or remove that entry", ErrInvalidLock, in.lockPath(), fmt.Sprintf(format, args...))
	}
	for i, set := range []map[string]*lockEntry{lock.Skills, lock.Unfinished} {
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

// viewedLock is the checked lock file as an operation that changes
// nothing last read it, with the stamp of the file it was read from.
type viewedLock struct {
	mu    sync.Mutex
	stamp skillcache.Stamp
	taken int64 // when it was read (ns), before the stat
	lock  *lockFile
}

// viewLock is readCheckedLock for the operations that change nothing
// (List, Verify, CheckTrust, RecordedRisks), which share what it
// returns and must not change it: while the file's stamp (size, times,
// change time, inode) is the one it was read with, and was not racy
// then, the lock file is not read and checked again. A verify that
// lists, checks trust and prints the allowed risks reads it once.
func (in *Installer) viewLock() (*lockFile, error) {
	v := in.viewed
	if v == nil {
		return in.readCheckedLock()
	}
	taken := time.Now().UnixNano()
	var st skillcache.Stamp
	fi, err := os.Stat(in.lockPath())
	ok := err == nil
	if ok {
		st, ok = skillcache.StampOf(fi)
	}
	v.mu.Lock()
	if ok && v.lock != nil && v.stamp == st && !skillcache.Racy(st.Ctime, v.taken) {
		defer v.mu.Unlock()
		return v.lock, nil
	}
	v.mu.Unlock()
	lock, err := in.readCheckedLock()
	if err != nil || !ok {
		return lock, err
	}
	v.mu.Lock()
	v.stamp, v.taken, v.lock = st, taken, lock
	v.mu.Unlock()
	return lock, nil
}

// moved reports whether pl, which is not where the agent's folder is
// today, can be where it was when the skill was installed: in the user's
// scope, whose agent folders move with environment variables such as
// CLAUDE_CONFIG_DIR (rule 11), a link, junction or copy named after the
// skill in a folder named skills. Everything done there is still checked
// to be this tool's own first.
func (in *Installer) moved(name string, pl lockPlace) bool {
	p := filepath.FromSlash(pl.Path)
	return in.scope == User && pl.Kind != KindCanonical && filepath.Base(p) == name &&
		filepath.Base(filepath.Dir(p)) == "skills" && filepath.Dir(filepath.Dir(p)) != "."
}

// peekLock reads the lock file without taking the scope's lock, for
// checks that fail before anything is made.
func (in *Installer) peekLock() (*lockFile, error) { return in.readCheckedLock() }

// placement is where a skill goes for an agent.
func (in *Installer) placement(a Agent, name string, kind Kind) lockPlace {
	dir := a.Dir(in.env, in.scope)
	if kind == KindCanonical {
		dir = in.canonicalRoot()
	}
	return lockPlace{Kind: kind, Path: relTo(in.Root(), filepath.Join(dir, name))}
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
		return fmt.Errorf("the %s folder %s: %w: not an absolute path", in.scope, root, ErrUnsafeFolder)
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
			return fmt.Errorf("%s: %w: it is a link or a file, not a folder; agentskills keeps its canonical copies in a real folder (move it away)", p, ErrUnsafeFolder)
		}
	}
	for _, a := range agents {
		dir := a.Dir(in.env, in.scope)
		if !filepath.IsAbs(dir) {
			why := ""
			if a.Override != "" {
				why = fmt.Sprintf(" (is %s set to a relative path?)", a.Override)
			}
			return fmt.Errorf("%s's skills folder %s: %w: not an absolute path%s; set it to an absolute path", a.ID, dir, ErrUnsafeFolder, why)
		}
		if in.scope == Project {
			if err := checkWithin(root, dir); err != nil {
				return fmt.Errorf("%s's skills folder: %w: %w", a.ID, ErrUnsafeFolder, err)
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
				return fmt.Errorf("%s is a link to %s, outside the project; agentskills does not write out of a project through links (make it a folder, or install into the user's folders instead)", p, target)
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
