package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/skill"
)

// session is one change of a scope, under the scope's lock.
type session struct {
	lock      *lockFile
	unlock    func()
	recovered []Change      // what settling an interrupted run did (rule 6)
	audits    *stagedAudits // an Add's audits left to staging, or nil
}

func (s *session) end() { s.unlock() }

// begin starts a change of the scope: it checks the canonical folder,
// takes the scope's lock (sweeping what crashed runs left), reads the
// lock file, and finishes or rolls back what an interrupted run left.
// Waiting for the lock ends when ctx does.
func (in *Installer) begin(ctx context.Context) (*session, error) {
	in.stamps.forgetDevs()
	if err := in.checkFolders(nil); err != nil {
		return nil, err
	}
	unlock, err := in.lock(ctx)
	if err != nil {
		return nil, err
	}
	lock, err := in.readCheckedLock()
	if err != nil {
		unlock()
		return nil, err
	}
	s := &session{lock: lock, unlock: unlock}
	if len(lock.Unfinished) > 0 {
		// Settling, once the lock is held, is finished whatever ctx does:
		// it puts the scope back into a state the lock file describes.
		if s.recovered, err = in.settleUnfinished(context.WithoutCancel(ctx), lock); err != nil {
			unlock()
			return nil, fmt.Errorf("settling what an interrupted run left: %w", err)
		}
	}
	return s, nil
}

// want is one skill an operation wants in place, and where.
type want struct {
	c      candidate
	places []wantPlace
}

type wantPlace struct {
	agent Agent
	copy  bool
}

// found is what examine finds at a place.
type found int

const (
	foundNothing  found = iota
	foundOurs           // what this tool made there, as recorded
	foundSame           // exactly what it would make there now, though not recorded so
	foundModified       // recorded as made by this tool, since changed
	foundForeign        // anything else: not this tool's
)

// seen is what is at a place.
type seen struct {
	found    found
	link     bool // a link or junction to the canonical copy
	junction bool
	digest   string // of a folder
}

// examine looks at path, a skill's canonical folder or its place for an
// agent, with rec what the lock file records there (nil: nothing),
// recDigest the recorded content and newDigest the content wanted now;
// real (which may be nil) remembers the real locations of folders.
func (in *Installer) examine(ctx context.Context, path, canonical string, rec *lockPlace, recDigest, newDigest string, real realDirs) seen {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return seen{found: foundNothing}
	}
	if err != nil {
		return seen{found: foundForeign}
	}
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		if path == canonical {
			return seen{found: foundForeign}
		}
		link := ourLink(path, canonical, real)
		junction := !link && ourJunction(path, canonical)
		if !link && !junction {
			return seen{found: foundForeign}
		}
		s := seen{found: foundSame, link: true, junction: junction && !link}
		if rec != nil && (rec.Kind == KindLink || rec.Kind == KindJunction) {
			s.found = foundOurs
		}
		return s
	}
	if !fi.IsDir() {
		return seen{found: foundForeign}
	}
	d, err := in.stamps.digest(ctx, in, path, false)
	if err != nil {
		return seen{found: foundForeign}
	}
	recFolder := rec != nil && (rec.Kind == KindCopy || rec.Kind == KindCanonical)
	s := seen{digest: d}
	switch {
	case recFolder && d == recDigest:
		s.found = foundOurs
	case d == newDigest:
		s.found = foundSame
	case recFolder:
		s.found = foundModified
	default:
		s.found = foundForeign
	}
	return s
}

// step is what a plan does at one place.
type step struct {
	agent  string // "" for the canonical copy
	path   string
	kind   Kind
	seen   seen
	action Action
	work   bool // something on disk changes
	backup bool // move what is there to a backup first
}

// plan is what installing one skill does.
type plan struct {
	name      string
	c         candidate
	old       *lockEntry
	canonical string
	st        *stagedCopy
	// real remembers the real locations of folders for the whole
	// operation (decide runs plan by plan, never at once).
	real realDirs
	// canonSeen is what stageAll saw at the canonical copy when it found
	// it and the source both unchanged (and so staged nothing), else nil.
	canonSeen *seen
	canon     step
	places    []step
	entry     *lockEntry
	// stale are the places recorded where an agent's folder was and is no
	// longer (rule 11): removed, when still this tool's, once the skill is
	// in the agent's folder of today.
	stale []step
}

func (p *plan) work() bool {
	return p.canon.work || len(p.stale) > 0 || slices.ContainsFunc(p.places, func(s step) bool { return s.work })
}

// reconcile puts the wanted skills in place (rules 1, 2, 6 and 7): it
// stages every canonical copy, checks every place, and fails listing
// every problem before changing anything; then it marks the work in the
// lock file, does it skill by skill (stopping between skills when ctx
// ends), and records exactly what was done.
func (in *Installer) reconcile(ctx context.Context, s *session, wants []want, force, frozen bool) ([]Change, error) {
	lock := s.lock
	plans := make([]*plan, 0, len(wants))
	real := realDirs{}
	for _, w := range wants {
		plans = append(plans, &plan{name: w.c.name, c: w.c, old: lock.Skills[w.c.name], canonical: in.canonicalPath(w.c.name), real: real})
	}
	defer in.saveRecords()
	discard, err := in.stageAll(ctx, plans)
	defer discard()
	if err != nil {
		return nil, err
	}
	if plans, wants, err = in.auditStaged(ctx, s.audits, plans, wants); err != nil {
		return nil, err
	}
	var problems []error
	for i, p := range plans {
		switch {
		case p.pinDrift():
			problems = append(problems, pinDriftError(p))
		case frozen && p.old != nil && p.st.digest != p.old.Digest:
			problems = append(problems, fmt.Errorf("%s from %s: %w: recorded %.12s, the source now has %.12s",
				p.name, sourceLabel(p.c.source, p.c.subpath), ErrDrift, p.old.Digest, p.st.digest))
		}
		problems = append(problems, in.decide(ctx, p, wants[i].places, force)...)
	}
	if ctx.Err() != nil {
		// What was examined after ctx ended is not known: no verdict.
		return nil, interrupted(ctx, "nothing was changed")
	}
	if len(problems) > 0 {
		return nil, refuse(problems)
	}
	total, err := in.markWork(lock, plans)
	if err != nil {
		return nil, err
	}
	return in.applyAll(ctx, lock, plans, total)
}

// pinDrift reports whether the plan's skill comes from a pinned source
// (a published one at the pin the lock file records, or a URL with
// #sha256=) with content other than the lock file records for that pin
// (rule 13).
func (p *plan) pinDrift() bool {
	if p.old == nil || p.st.digest == p.old.Digest || p.old.Subpath != p.c.subpath {
		return false
	}
	if p.c.pin != "" {
		return p.c.pin == p.old.Pin // one repository (add refuses others)
	}
	return p.old.Pin == "" && isPinnedURL(p.c.source) && p.old.Source == p.c.source
}

// pinDriftError says that a pinned source gave other content than the
// lock file records for its pin.
func pinDriftError(p *plan) error {
	if p.c.pin == "" {
		// A URL#sha256=HEX: the download matched its #sha256= (else it
		// fails with source.ErrIntegrity), so the bytes are those the lock
		// file's entry was made from; the skill read from them is not.
		return fmt.Errorf("%s from %s: %w: the lock file records content %s, but the download, which matches its #sha256=, gives %s; "+
			"the lock file was edited, or another version of agentskills read the archive otherwise: to record what it gives now, "+
			"run 'agentskills remove %s' and add it again",
			p.name, sourceLabel(p.c.source, p.c.subpath), ErrDrift, p.old.Digest, p.st.digest, p.name)
	}
	return fmt.Errorf("%s from %s at pin %s: %w: the lock file records content %s, but the source now gives %s for the same pin; "+
		"content at a pin never changes, so the source (or something between) serves other bytes: check it, and to accept them "+
		"run 'agentskills remove %s' and add it again",
		p.name, sourceLabel(p.c.source, p.c.subpath), p.c.pin, ErrDrift, p.old.Digest, p.st.digest, p.name)
}

// stageAll stages the canonical copy of every plan, a few at a time, in
// one hidden folder beside the canonical copies. discard removes what
// staging left, and the folders made for it when nothing was installed
// after all; it must be called whatever the error.
func (in *Installer) stageAll(ctx context.Context, plans []*plan) (discard func(), _ error) {
	var made []string
	for _, dir := range []string{filepath.Join(in.Root(), ".agents"), in.canonicalRoot()} {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			made = append(made, dir)
		}
	}
	if err := os.MkdirAll(in.canonicalRoot(), 0o755); err != nil {
		return func() {}, err
	}
	shared := filepath.Join(in.canonicalRoot(), ".all.stage-"+randomSuffix())
	if err := os.Mkdir(shared, 0o755); err != nil {
		return func() {}, err
	}
	discard = func() {
		for _, p := range plans {
			p.st.discard()
		}
		os.RemoveAll(shared)
		for _, dir := range slices.Backward(made) {
			os.Remove(dir) // only when still empty
		}
	}
	// Staging is copying and hashing, a few workers at a time.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(stageWorkers)
	progress := workOf(ctx)
	progress.expect(workCopying, len(plans))
	for _, p := range plans {
		g.Go(func() error {
			t := p.c.tree()
			if p.old != nil {
				if s, ok := in.unchangedInPlace(gctx, p, t); ok {
					p.st, p.canonSeen = &stagedCopy{dst: p.canonical, digest: p.old.Digest}, &s
					progress.did(workCopying, 0)
					return nil
				}
			}
			t.opened = in.staging
			st, err := stageCopy(gctx, t, p.canonical, shared, in.cache)
			if err != nil {
				return fmt.Errorf("skill %s from %s: %w", p.name, sourceLabel(p.c.source, p.c.subpath), err)
			}
			progress.did(workCopying, st.size)
			p.st = st
			// What was audited (its tree, or its kept report, by the
			// digest) is what is installed: a source that changed after
			// it was hashed is refused, not installed unaudited.
			if p.c.digest != "" && st.digest != p.c.digest {
				return fmt.Errorf("skill %s from %s: %w: it changed while it was read (audited %.12s, copied %.12s); run the command again",
					p.name, sourceLabel(p.c.source, p.c.subpath), ErrDrift, p.c.digest, st.digest)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return discard, interrupted(ctx, "nothing was changed")
		}
		return discard, err
	}
	return discard, nil
}

// unchangedInPlace reports whether the plan's source and its canonical copy
// both still hold the content the lock file records: the source read and
// checked as staging reads it (the cache's rules and limits) but copied
// nowhere, the canonical copy as examine sees it. A sync or add with
// nothing to change then stages nothing. It returns what examine saw at
// the canonical copy.
func (in *Installer) unchangedInPlace(ctx context.Context, p *plan, src tree) (seen, bool) {
	s := in.examine(ctx, p.canonical, p.canonical, &lockPlace{Kind: KindCanonical}, p.old.Digest, p.old.Digest, nil)
	if s.found != foundOurs {
		return s, false
	}
	if p.c.digest != "" { // hashed for the audit, or the cache's
		return s, p.c.digest == p.old.Digest
	}
	d, err := checkTree(ctx, src, p.name, in.cache)
	return s, err == nil && d == p.old.Digest
}

// markWork records every plan's entry in the lock file, and marks those
// with work to do unfinished, with their entries before, writing it
// before the work is done: a run killed midway leaves them marked for the
// next one to settle (rule 6). It returns how many have work to do.
func (in *Installer) markWork(lock *lockFile, plans []*plan) (int, error) {
	if lock.Unfinished == nil {
		lock.Unfinished = map[string]*lockEntry{}
	}
	total := 0
	for _, p := range plans {
		if p.work() {
			lock.Unfinished[p.name] = p.old
			total++
		}
		lock.Skills[p.name] = p.entry
	}
	if total > 0 {
		if err := lock.write(in.lockPath()); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// applyAll carries out the plans, marked as markWork does, one by one,
// stopping between two when ctx ends, and records what was done. When
// no plan had work to do and each records the entry the lock file
// already had, the lock file, which holds what begin read (or settling
// wrote), is left as it is, not encoded to be compared: a sync with
// nothing to do writes nothing.
func (in *Installer) applyAll(ctx context.Context, lock *lockFile, plans []*plan, total int) ([]Change, error) {
	n := 0
	for _, p := range plans {
		n += 1 + len(p.places) + len(p.stale)
	}
	// What a skill requires is applied before it (rule 17), so that a
	// run stopped between two leaves no skill installed without what it
	// requires; the changes are reported in the plans' order.
	order := requiresFirst(plans)
	chunks := make([][]Change, len(plans))
	gather := func() []Change {
		changes := make([]Change, 0, n)
		for _, c := range chunks {
			changes = append(changes, c...)
		}
		return changes
	}
	done := 0
	real := realDirs{}
	progress := workOf(ctx)
	progress.expect(workInstalling, len(plans))
	for k, i := range order {
		p := plans[i]
		if p.work() && ctx.Err() != nil {
			unmarkPlans(lock, plansAt(plans, order[k:]))
			return gather(), in.stopped(ctx, lock, done, total, "installed or updated", "in place")
		}
		var err error
		chunks[i], err = in.apply(context.WithoutCancel(ctx), p, real, nil) // a skill begun is finished: applyAll stops between two
		if err != nil {
			// This skill stays marked unfinished; the next run settles it.
			unmarkPlans(lock, plansAt(plans, order[k+1:]))
			lock.write(in.lockPath())
			return gather(), fmt.Errorf("skill %s: %w (the next add, remove or sync finishes or rolls back what was done)", p.name, err)
		}
		lock.Skills[p.name] = p.entry
		delete(lock.Unfinished, p.name)
		progress.did(workInstalling, 0)
		if p.work() {
			done++
		}
	}
	lock.Unfinished = nil
	if total == 0 && sameEntries(plans) && lock.asWritten() {
		return gather(), nil
	}
	return gather(), lock.write(in.lockPath())
}

// requiresFirst is the order applyAll applies plans in: each after the
// plans of the skills its entry requires (a cycle, which rule 17
// refuses, is broken where found), otherwise in the plans' order.
func requiresFirst(plans []*plan) []int {
	at := make(map[string]int, len(plans))
	for i, p := range plans {
		at[p.name] = i
	}
	seen := make([]bool, len(plans))
	order := make([]int, 0, len(plans))
	var visit func(i int)
	visit = func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		if e := plans[i].entry; e != nil {
			for _, r := range e.Requires {
				if j, ok := at[r.Skill]; ok {
					visit(j)
				}
			}
		}
		order = append(order, i)
	}
	for i := range plans {
		visit(i)
	}
	return order
}

// plansAt returns the plans at the indices.
func plansAt(plans []*plan, indices []int) []*plan {
	out := make([]*plan, len(indices))
	for k, i := range indices {
		out[k] = plans[i]
	}
	return out
}

// sameEntries reports whether every plan records the entry the lock file
// had for its skill.
func sameEntries(plans []*plan) bool {
	for _, p := range plans {
		if p.old == nil || !reflect.DeepEqual(p.entry, p.old) {
			return false
		}
	}
	return true
}

// unmarkPlans restores the lock entries of plans not carried out.
func unmarkPlans(lock *lockFile, plans []*plan) {
	for _, p := range plans {
		if p.work() {
			unmark(lock, p.name, p.old)
		}
	}
}

// unmark restores the entry from before, prev, of a skill marked
// unfinished that a run did not change.
func unmark(lock *lockFile, name string, prev *lockEntry) {
	setEntry(lock, name, prev)
	delete(lock.Unfinished, name)
	if len(lock.Unfinished) == 0 {
		lock.Unfinished = nil
	}
}

// stopped records the lock file of a run that ctx stopped between two
// skills, after done of total were changed (each then was did) and the
// others were unmarked, and returns ErrInterrupted saying so; state says
// what the lock file records.
func (in *Installer) stopped(ctx context.Context, lock *lockFile, done, total int, did, state string) error {
	if err := lock.write(in.lockPath()); err != nil {
		return err
	}
	what := "nothing was changed"
	if done > 0 {
		what = fmt.Sprintf("%d of %d skills were %s, and the lock file records exactly what is %s; run the command again to finish", done, total, did, state)
	}
	return interrupted(ctx, what)
}

// stageWorkers is how many skills are staged at once: file system calls
// on different folders overlap.
const stageWorkers = 4

// decide works out what a plan does at each place, and what stops it.
func (in *Installer) decide(ctx context.Context, p *plan, places []wantPlace, force bool) []error {
	var problems []error
	if err := in.decideCanonical(ctx, p, force); err != nil {
		problems = append(problems, err)
	}
	p.entry = &lockEntry{Source: p.c.source, Subpath: p.c.subpath, Pin: p.c.pin, Digest: p.st.digest, Agents: map[string]lockPlace{}, Lenient: p.c.lenient}
	p.entry.Signer, p.entry.CommitSigner = p.c.trusted(p.old)
	p.entry.AllowedRisks = p.c.allowance(p.st.digest, p.old, in.trust != nil)
	p.entry.Host = in.githubHost(p.c.source, p.c.pin)
	p.entry.Version = p.c.recordedVersion(p.old)
	p.entry.ETag, p.entry.LastModified = p.c.got.etag, p.c.got.modified
	switch {
	case p.c.reqRead: // rule 17
		p.entry.Requires = p.c.requires
		p.entry.Dependency = p.c.dependency && (p.old == nil || p.old.Dependency)
	case p.old != nil:
		p.entry.Requires, p.entry.Dependency = p.old.Requires, p.old.Dependency
	}
	if p.old != nil {
		p.entry.RequiredBy = p.old.RequiredBy // derived when the lock file is written
	}
	if p.old != nil {
		maps.Copy(p.entry.Agents, p.old.Agents)
	}
	for _, wp := range places {
		st, err := in.decidePlace(ctx, p, wp, force)
		if err != nil {
			problems = append(problems, err)
		}
		p.places = append(p.places, st)
		p.entry.Agents[wp.agent.ID] = lockPlace{Kind: st.kind, Path: relTo(in.Root(), st.path)}
	}
	if !p.work() && p.old != nil && reflect.DeepEqual(p.entry, p.old) {
		// Nothing to do, and nothing new to record: the entry read is
		// kept, which apply leaves as it is, and the new one let go.
		p.entry = p.old
	}
	return problems
}

// oldDigest is the content the lock file records for the plan's skill,
// or "" when it records none.
func (p *plan) oldDigest() string {
	if p.old == nil {
		return ""
	}
	return p.old.Digest
}

// decideCanonical works out what the plan does at the canonical copy,
// and what stops it.
func (in *Installer) decideCanonical(ctx context.Context, p *plan, force bool) error {
	var rec *lockPlace
	if p.old != nil {
		rec = &lockPlace{Kind: KindCanonical}
	}
	newD, oldD := p.st.digest, p.oldDigest()
	c := step{path: p.canonical, kind: KindCanonical}
	if p.canonSeen != nil {
		c.seen = *p.canonSeen
	} else {
		c.seen = in.examine(ctx, p.canonical, p.canonical, rec, oldD, newD, p.real)
	}
	err := in.decideFound(&c, p, rec != nil, force)
	switch c.seen.found {
	case foundOurs:
		c.action = ActionUnchanged
		if newD != oldD {
			c.action, c.work = ActionUpdated, true
		}
	case foundSame:
		c.action = ActionAdopted
		if p.old != nil {
			c.action = ActionUpdated
		}
	}
	p.canon = c
	return err
}

// decideFound works out what a plan does at a place that holds nothing
// (make it; recorded says whether the lock file records it there: a
// repair), a modified folder (replace it after a backup, when forced) or
// something this tool did not make (a conflict); it leaves the rest,
// what it made or would make, to the caller.
func (in *Installer) decideFound(st *step, p *plan, recorded, force bool) error {
	switch st.seen.found {
	case foundNothing:
		st.action, st.work = ActionInstalled, true
		if recorded {
			st.action = ActionRepaired
		}
	case foundOurs, foundSame:
	case foundModified:
		st.action, st.work, st.backup = ActionUpdated, true, true
		if !force {
			return modifiedError(st.path, p.st.content())
		}
	default:
		return in.conflictError(st.path, p)
	}
	return nil
}

// decidePlace works out what a plan does at one agent's place, and what
// stops it.
func (in *Installer) decidePlace(ctx context.Context, p *plan, wp wantPlace, force bool) (step, error) {
	id := wp.agent.ID
	rec := recordedAt(p.old, id)
	dir := wp.agent.Dir(in.env, in.scope)
	target := filepath.Join(dir, p.name)
	if samePath(dir, in.canonicalRoot(), p.real) {
		target = p.canonical
	}
	if rec != nil && rec.Kind != KindCanonical && abs(in.Root(), rec.Path) != target {
		// The agent's folder moved since (rule 11): the old place goes
		// if it is still ours, and the new one is planned as if
		// nothing was recorded there.
		old := abs(in.Root(), rec.Path)
		if s := in.examine(ctx, old, p.canonical, rec, p.oldDigest(), p.st.digest, p.real); s.found == foundOurs {
			p.stale = append(p.stale, step{agent: id, path: old, kind: rec.Kind, action: ActionRemoved, work: true})
		}
		rec = nil
	}
	if target == p.canonical {
		st := step{agent: id, path: p.canonical, kind: KindCanonical, action: p.canon.action}
		if (rec == nil || rec.Kind != KindCanonical) && p.canon.action != ActionAdopted {
			st.action = ActionInstalled
		}
		return st, nil
	}
	st := step{agent: id, path: target, kind: KindLink}
	if wp.copy {
		st.kind = KindCopy
	}
	st.seen = in.examine(ctx, st.path, p.canonical, rec, p.oldDigest(), p.st.digest, p.real)
	err := in.decideFound(&st, p, rec != nil, force)
	if st.seen.found == foundOurs || st.seen.found == foundSame {
		decideExisting(&st, rec, p.canon.action, p.st.digest)
	}
	return st, err
}

// recordedAt is the place entry records for the agent id, or nil when it
// records none (or entry is nil).
func recordedAt(entry *lockEntry, id string) *lockPlace {
	if entry == nil {
		return nil
	}
	pl, ok := entry.Agents[id]
	if !ok {
		return nil
	}
	return &pl
}

// decideExisting works out what a plan does at an agent's place that
// holds what this tool made, or would make (st.seen): rec is what the
// lock file records there, canon what the plan does at the canonical
// copy, and digest the content wanted.
func decideExisting(st *step, rec *lockPlace, canon Action, digest string) {
	switch {
	case st.seen.link != (st.kind == KindLink):
		st.action, st.work = ActionInstalled, true // a link becomes a copy, or the reverse
	case st.seen.link:
		if st.seen.junction {
			st.kind = KindJunction
		}
		st.action = ActionUnchanged
		switch {
		case rec == nil || rec.Kind != st.kind:
			st.action = ActionAdopted
		case canon == ActionUpdated || canon == ActionRepaired:
			st.action = canon // what the link shows changed
		}
	case st.seen.digest == digest:
		st.action = ActionUnchanged
		if rec == nil || rec.Kind != KindCopy {
			st.action = ActionAdopted
		}
	default:
		st.action, st.work = ActionUpdated, true
	}
}

// apply carries out a plan: the canonical copy first, then each agent's
// place. It appends what it did to changes.
func (in *Installer) apply(ctx context.Context, p *plan, real realDirs, changes []Change) ([]Change, error) {
	c := p.canon
	ch := Change{Skill: p.name, Path: p.canonical, Action: c.action, Kind: KindCanonical}
	ch.Signer, ch.PreviousSigner = signerChange(p.old, p.entry)
	if c.work {
		free := c.seen.found == foundNothing
		if c.backup {
			b, moved, err := in.toBackup(ctx, p.canonical, p.name)
			if err != nil {
				return changes, err
			}
			ch.Backup, free = b, moved
		}
		if err := p.st.commit(free); err != nil {
			return changes, err
		}
	}
	changes = append(changes, ch)
	for i, st := range p.places {
		ch := Change{Skill: p.name, Agent: st.agent, Path: st.path, Action: st.action, Kind: st.kind}
		if st.work {
			if st.backup {
				b, _, err := in.toBackup(ctx, st.path, filepath.Join(st.agent, p.name))
				if err != nil {
					return changes, err
				}
				ch.Backup = b
			}
			kind, err := in.place(ctx, st.path, p.canonical, st.kind, p.st.digest, real)
			if err != nil {
				return changes, err
			}
			ch.Kind = kind
			p.places[i].kind = kind
			p.entry.Agents[st.agent] = lockPlace{Kind: kind, Path: relTo(in.Root(), st.path)}
		}
		changes = append(changes, ch)
	}
	for _, st := range p.stale {
		if err := removePlace(st.path, st.kind); err != nil {
			return changes, err
		}
		changes = append(changes, Change{Skill: p.name, Agent: st.agent, Path: st.path, Action: ActionRemoved, Kind: st.kind})
	}
	return changes, nil
}

// removePlace removes the link, junction or copy of kind at p, which the
// caller has checked is the one this tool made; one already gone is no
// error.
func removePlace(p string, kind Kind) error {
	var err error
	if kind == KindCopy {
		err = removeAside(p)
	} else {
		err = os.Remove(p)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// place makes path a link to canonical (kind KindLink; where links cannot
// be made, a junction, else a copy) or a copy of it (KindCopy), replacing
// what is there (which the caller has checked is its own), and returns the
// kind made.
func (in *Installer) place(ctx context.Context, path, canonical string, kind Kind, digest string, real realDirs) (Kind, error) {
	if kind == KindCopy {
		return KindCopy, placeCopyOf(ctx, canonical, path, digest, in.cache)
	}
	err := placeLink(path, canonical, real)
	var linkErr *noLinkError
	if !errors.As(err, &linkErr) {
		return KindLink, err
	}
	// No links here (Windows without the privilege): a junction where
	// the place is free, else a copy.
	err = errors.ErrUnsupported
	if _, statErr := os.Lstat(path); errors.Is(statErr, fs.ErrNotExist) {
		err = makeJunction(path, canonical)
	}
	if err == nil {
		return KindJunction, nil
	}
	return KindCopy, placeCopyOf(ctx, canonical, path, digest, in.cache)
}

// toBackup moves what is at path (a modified skill folder) to a new
// backup folder under the scope's .agents/backups, as rel, and returns
// where. When it cannot be moved (another file system) it is copied, and
// moved reports false: path still holds it.
func (in *Installer) toBackup(ctx context.Context, path, rel string) (dst string, moved bool, err error) {
	base := filepath.Join(in.Root(), ".agents", "backups")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", false, err
	}
	dir, err := os.MkdirTemp(base, time.Now().UTC().Format("20060102T150405Z")+"-")
	if err != nil {
		return "", false, err
	}
	dst = filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", false, err
	}
	if err := os.Rename(path, dst); err == nil {
		return dst, true, nil
	}
	if _, _, err := copyTree(ctx, folderTree(path), dst, in.cache); err != nil {
		return "", false, fmt.Errorf("backup of %s: %w", path, err)
	}
	return dst, false, nil
}

// conflictError says that path holds something this tool did not make.
func (in *Installer) conflictError(path string, p *plan) error {
	if p.old == nil {
		return fmt.Errorf("%s %w: no lock entry records it, and it is not what installing %s from %s makes there; move it away, or install under another name (what agentskills installed before its lock file was lost is adopted when it matches the source exactly)",
			path, ErrConflict, p.name, sourceLabel(p.c.source, p.c.subpath))
	}
	return fmt.Errorf("%s %w: something else replaced what it installed there; move it away and run again", path, ErrConflict)
}

// modifiedError says that path, which this tool made, was changed: how,
// compared with the tree want (when given).
func modifiedError(path, want string) error {
	how := "its content no longer matches the lock file"
	if want != "" {
		if d := describeDiff(path, want); d != "" {
			how = d
		}
	}
	return fmt.Errorf("%s %w (%s); keep your changes elsewhere, or force the change, which moves it to a backup first", path, ErrModified, how)
}

// refuse is the error for a request that problems stop.
func refuse(problems []error) error {
	if len(problems) == 1 {
		return fmt.Errorf("%w; nothing was changed", problems[0])
	}
	return &problemsError{problems}
}

// problemsError lists every problem that stopped a request.
type problemsError struct{ errs []error }

func (e *problemsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems; nothing was changed:", len(e.errs))
	for _, err := range e.errs {
		b.WriteString("\n  ")
		b.WriteString(err.Error())
	}
	return b.String()
}

func (e *problemsError) Unwrap() []error { return e.errs }

// settleUnfinished finishes or rolls back what an interrupted run left
// (rule 6). A skill whose canonical copy holds what the run was
// installing is finished: its places are made from the canonical copy. A
// removal whose canonical copy is gone, or still as recorded, is
// finished. Anything else is rolled back to its entry before the run.
func (in *Installer) settleUnfinished(ctx context.Context, lock *lockFile) ([]Change, error) {
	var out []Change
	for _, name := range slices.Sorted(maps.Keys(lock.Unfinished)) {
		prev, cur := lock.Unfinished[name], lock.Skills[name]
		canonical := in.canonicalPath(name)
		d := ""
		if fi, err := os.Lstat(canonical); err == nil && fi.IsDir() {
			d, _ = skill.ContentDigest(ctx, canonical)
		}
		switch {
		case cur != nil && d == cur.Digest,
			cur == nil && (d == "" || (prev != nil && d == prev.Digest)):
			kept, err := in.settle(ctx, name, prev, cur)
			if err != nil {
				return out, err
			}
			if cur == nil && d != "" {
				if err := removeAside(canonical); err != nil {
					return out, err
				}
			}
			setEntry(lock, name, kept)
			out = append(out, Change{Skill: name, Path: canonical, Action: ActionFinished, Kind: KindCanonical})
		default:
			setEntry(lock, name, prev)
			out = append(out, Change{Skill: name, Path: canonical, Action: ActionRolledBack, Kind: KindCanonical})
		}
		delete(lock.Unfinished, name)
	}
	lock.Unfinished = nil
	return out, lock.write(in.lockPath())
}

// settle makes the places of a skill match cur, whose content is in its
// canonical copy (nil: removed): it makes each place cur records, and
// removes those only prev records while they are still this tool's. A
// place held by something else is left alone and not recorded. It returns
// the entry to record.
func (in *Installer) settle(ctx context.Context, name string, prev, cur *lockEntry) (*lockEntry, error) {
	var kept *lockEntry
	if cur != nil {
		k := *cur // every field kept (the pin too), the places cloned
		k.Agents = maps.Clone(cur.Agents)
		kept = &k
	}
	if err := in.removeDropped(ctx, name, prev, kept); err != nil {
		return nil, err
	}
	if kept == nil {
		return nil, nil
	}
	canonical := in.canonicalPath(name)
	var prevD string
	if prev != nil {
		prevD = prev.Digest
	}
	for id, pl := range kept.Agents {
		if pl.Kind == KindCanonical {
			continue
		}
		p := abs(in.Root(), pl.Path)
		s := in.examine(ctx, p, canonical, recordedAt(prev, id), prevD, kept.Digest, nil)
		wantLink := pl.Kind != KindCopy
		switch {
		case s.found == foundNothing,
			(s.found == foundOurs || s.found == foundSame) && (s.link != wantLink || (!s.link && s.digest != kept.Digest)):
			kind, err := in.place(ctx, p, canonical, pl.Kind, kept.Digest, nil)
			if err != nil {
				return nil, err
			}
			kept.Agents[id] = lockPlace{Kind: kind, Path: pl.Path}
		case s.found == foundOurs || s.found == foundSame:
		default:
			delete(kept.Agents, id)
		}
	}
	return kept, nil
}

// removeDropped removes the places of the skill name that prev records
// and kept does not (nil: none is kept), where they are still this
// tool's.
func (in *Installer) removeDropped(ctx context.Context, name string, prev, kept *lockEntry) error {
	if prev == nil {
		return nil
	}
	canonical := in.canonicalPath(name)
	for id, pl := range prev.Agents {
		if kept != nil {
			if _, ok := kept.Agents[id]; ok {
				continue
			}
		}
		p := abs(in.Root(), pl.Path)
		if pl.Kind == KindCanonical || in.examine(ctx, p, canonical, &pl, prev.Digest, "", nil).found != foundOurs {
			continue
		}
		if err := removePlace(p, pl.Kind); err != nil {
			return err
		}
	}
	return nil
}

// lock takes the scope's file lock, waiting for another process until
// ctx is done, and sweeps what crashed runs left.
func (in *Installer) lock(ctx context.Context) (func(), error) {
	unlock, err := in.lockOnly(ctx)
	if err != nil {
		return nil, err
	}
	in.sweep()
	return unlock, nil
}

// sweep removes, under the scope's lock, what crashed runs left: hidden
// staging folders, links and folders being removed (".<name>.stage-<12
// hex>", ".<name>.link-<12 hex>", ".<name>.trash-<12 hex>") in the
// canonical folder and every agent's folder.
func (in *Installer) sweep() {
	dirs := []string{in.canonicalRoot()}
	for _, a := range Agents() {
		if d := a.Dir(in.env, in.scope); filepath.IsAbs(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d) // each folder once: many agents share one
		}
	}
	for _, dir := range dirs {
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			if isLeftover(name) {
				os.RemoveAll(filepath.Join(dir, name))
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
	return strings.Trim(suffix, "0123456789abcdef") == "" &&
		(strings.HasSuffix(kind, ".stage-") || strings.HasSuffix(kind, ".link-") || strings.HasSuffix(kind, ".trash-"))
}

// lockOnly takes the scope's file lock: a file named after the scope
// root's real path in the lock folder (WithLockDir), outside the project,
// so that nothing a project commits can stand in its place. The file is
// opened through an os.Root on that folder, so a link planted there
// cannot make it create or lock a file anywhere else. Waiting for
// another holder ends when ctx does, with an error that wraps ctx's.
func (in *Installer) lockOnly(ctx context.Context) (func(), error) {
	return in.lockRoot(ctx, in.Root(), in.scope.String())
}

// lockRoot is lockOnly for the scope whose root is root, named scope in
// messages.
func (in *Installer) lockRoot(ctx context.Context, scopeRoot, scope string) (func(), error) {
	real, err := filepath.EvalSymlinks(scopeRoot)
	if err != nil {
		return nil, fmt.Errorf("the %s folder: %w", scope, err)
	}
	dir := in.lockDir
	if dir == "" {
		if dir, err = os.UserCacheDir(); err != nil {
			dir = filepath.Join(os.TempDir(), fmt.Sprintf("agentskills-%d", os.Getuid()))
		}
		dir = filepath.Join(dir, "agentskills", "locks")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	sum := sha256.Sum256([]byte(real))
	name := hex.EncodeToString(sum[:16]) + ".lock"
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the file lock %s: %w: %w", filepath.Join(dir, name), ErrUnsafeFolder, err)
	}
	if err := filelock.Lock(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("waiting for the lock of the %s folder (another agentskills is changing it): %w", scope, err)
	}
	return func() { f.Close() }, nil
}
