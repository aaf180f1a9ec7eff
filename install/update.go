package install

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	srcversion "github.com/agentadaptor/agentadaptor/source/version"
)

// UpdateRequest says what [Installer.Update] updates.
type UpdateRequest struct {
	// Names are the skills to update. Default (empty): every skill the
	// lock file records.
	Names []string
	// Latest makes a source whose reference is a version range
	// (source.Versioned) leave its range for the highest version tag of
	// its repository; the lock file then records the source with the
	// range ^MAJOR.MINOR.PATCH of that tag (rule 14). A range naming a
	// pre-release that picks one above every release stays within its
	// range, never moved back. Default: a range source moves within its
	// range.
	Latest bool
	// DryRun reads the sources and reports what an update would do,
	// changing nothing: no lock file written, no folder touched, no file
	// lock taken (the skill cache may gain the new content, as
	// [Installer.Outdated] does). A skill that would stop the update
	// (modified, refused) fails the dry run as it would the update.
	DryRun bool
	// Force replaces installed skills that were changed since they were
	// installed, after moving each to a backup (rule 7). Default: such a
	// skill fails the update with ErrModified and nothing changes.
	Force bool
	// Lenient updates a skill whose new content breaks only the Agent
	// Skills specification (rule 4) though the lock file does not record
	// it as installed leniently; the lock file then does. Default: such
	// a skill fails the update with [ErrSpecification] and nothing
	// changes. A skill recorded as lenient is updated either way.
	Lenient bool
	// Digests, when set, are the content digests the update must
	// install, by skill name: what a dry run reported ([SkillUpdate.Digest])
	// and its caller checked (agentskills update --eval evaluated). A
	// named skill whose new content has another digest now fails the
	// update with [ErrDrift], naming both, and nothing changes. Default:
	// whatever the sources hold now.
	Digests map[string]string
}

// SkillUpdate is what [Installer.Update] did, or would do with DryRun,
// to one skill. Its JSON form is what `agentskills update --json`
// prints.
type SkillUpdate struct {
	// Skill is the skill's name.
	Skill string `json:"skill"`
	// Source is the source the lock file records after the update, and
	// PreviousSource the one before, when Latest moved a range.
	Source         string `json:"source"`
	PreviousSource string `json:"previous_source,omitempty"`
	// Pin and PreviousPin are the pin after and before ("" for a folder
	// or a URL).
	Pin         string `json:"pin,omitempty"`
	PreviousPin string `json:"previous_pin,omitempty"`
	// Version, for a version range, is the tag the pin is.
	Version string `json:"version,omitempty"`
	// Digest and PreviousDigest are the content digests after and
	// before.
	Digest         string `json:"digest"`
	PreviousDigest string `json:"previous_digest"`
	// Added, Removed and Changed are the skill's files (slash-separated,
	// sorted) that the new content adds, removes and changes, compared
	// with what the lock file records: the skill cache's copy of the
	// recorded digest, else the installed canonical copy.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"`
	// Signer and PreviousSigner are the signer the lock file records
	// after and before, as [Change] reports them, when they differ: a
	// new signer accepted (Trust.AcceptSigners), also of unchanged
	// content.
	Signer         string `json:"signer,omitempty"`
	PreviousSigner string `json:"previous_signer,omitempty"`
}

// Updated reports whether the update moves the skill: its source, pin
// or content, or the signer the lock file records.
func (u SkillUpdate) Updated() bool {
	return u.Pin != u.PreviousPin || u.Digest != u.PreviousDigest || u.PreviousSource != "" || u.Signer != u.PreviousSigner
}

// Update moves the pins of installed skills to what their sources'
// references name now and installs the new content (rule 14): each
// source is read once, every skill is checked (trust, edits, the new
// content) before anything changes, and the changes are made as Add and
// Sync make them (rules 2, 6 and 7). It returns what it did per skill,
// sorted by name, and the changes made. Names the lock file does not
// record fail with ErrNotInstalled, listing them; a source that cannot
// be read fails the update, changing nothing.
func (in *Installer) Update(ctx context.Context, req UpdateRequest) ([]SkillUpdate, []Change, error) {
	peek, err := in.peekLock()
	if err != nil {
		return nil, nil, err
	}
	if err := notInstalled(peek, req.Names, in.Root()); err != nil {
		return nil, nil, err
	}
	if req.DryRun {
		if err := in.checkFolders(recordedAgents(peek)); err != nil {
			return nil, nil, err
		}
		ups, wants, cleanup, err := in.planUpdate(ctx, peek, req)
		if err != nil {
			return nil, nil, err
		}
		defer cleanup()
		_, _, cleanupRequired, err := in.updateRequirements(ctx, wants, req.Lenient)
		if err != nil {
			return nil, nil, err
		}
		defer cleanupRequired()
		return ups, nil, in.checkEdits(ctx, peek, wants, ups, req.Force)
	}
	s, err := in.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer s.end()
	if err := notInstalled(s.lock, req.Names, in.Root()); err != nil {
		return nil, s.recovered, err
	}
	if err := in.checkFolders(recordedAgents(s.lock)); err != nil {
		return nil, s.recovered, err
	}
	ups, wants, cleanup, err := in.planUpdate(ctx, s.lock, req)
	if err != nil {
		return nil, s.recovered, err
	}
	defer cleanup()
	moved := map[string]*lockEntry{}
	for _, w := range wants {
		moved[w.c.name] = s.lock.Skills[w.c.name]
	}
	wants, added, cleanupRequired, err := in.updateRequirements(ctx, wants, req.Lenient)
	if err != nil {
		return nil, s.recovered, err
	}
	defer cleanupRequired()
	if added {
		s.audits = newStagedAudits(true, nil) // the new requirements' (rule 17)
	}
	changes, err := in.reconcile(ctx, s, wants, req.Force, false)
	notePins(changes, moved, s.lock)
	use := make([]*candidate, len(wants))
	for i := range wants {
		use[i] = &wants[i].c
	}
	noteRequired(changes, use)
	if err != nil {
		return nil, append(s.recovered, changes...), err
	}
	return ups, append(s.recovered, changes...), nil
}

// planUpdate reads the source of every skill req names once, at what
// its reference names now, and returns per skill what updating it does,
// and what the update wants in place: each skill that moves, where the
// lock file records it. It fails listing every source and skill it
// cannot read or that the trust checks refuse; cleanup removes what
// reading the sources extracted.
func (in *Installer) planUpdate(ctx context.Context, lock *lockFile, req UpdateRequest) (ups []SkillUpdate, wants []want, cleanup func(), _ error) {
	var read []*sourceSkills
	cleanup = func() {
		for _, r := range read {
			r.cleanup()
		}
	}
	var problems []error
	groups, bySource := sourceGroups(lock, req.Names)
	for _, src := range groups {
		names := bySource[src]
		r, version, err := in.readNow(ctx, lock, src, names, req.Latest)
		if errors.Is(err, ErrInterrupted) || ctx.Err() != nil {
			cleanup()
			return nil, nil, nil, interrupted(ctx, "nothing was changed")
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", strings.Join(names, ", "), err))
			continue
		}
		read = append(read, r)
		for _, name := range names {
			e := lock.Skills[name]
			asked := *e
			asked.Lenient = e.Lenient || req.Lenient
			w, err := in.recordedWant(name, src, &asked, r)
			if err == nil {
				err = in.auditRecorded(ctx, &w.c, e.AllowedRisks)
			}
			var up SkillUpdate
			if err == nil {
				up, err = in.describeUpdate(ctx, name, e, &w.c, version)
			}
			if want := req.Digests[name]; err == nil && want != "" && up.Digest != want {
				err = fmt.Errorf("skill %s: %w: its source now holds content of digest %s, not %s as checked before", name, ErrDrift, up.Digest, want)
			}
			if err != nil {
				problems = append(problems, err)
				continue
			}
			ups = append(ups, up)
			if up.Updated() {
				wants = append(wants, w)
			}
		}
	}
	if len(problems) > 0 {
		cleanup()
		return nil, nil, nil, refuse(problems)
	}
	slices.SortFunc(ups, func(a, b SkillUpdate) int { return strings.Compare(a.Skill, b.Skill) })
	return ups, wants, cleanup, nil
}

// describeUpdate puts the new content of the skill name, recorded as e
// and found as c, into the skill cache (a pinned source's skill is then
// copied from there, as Add does), and says what updating it does.
func (in *Installer) describeUpdate(ctx context.Context, name string, e *lockEntry, c *candidate, version string) (SkillUpdate, error) {
	dir, d, err := in.materialize(ctx, c)
	if err != nil {
		return SkillUpdate{}, err
	}
	if c.pin != "" || isPinnedURL(c.source) {
		c.dir = dir
	}
	up := SkillUpdate{Skill: name, Source: c.source, Pin: c.pin, PreviousPin: e.Pin, Version: version, Digest: d, PreviousDigest: e.Digest}
	if c.source != e.Source {
		up.PreviousSource = e.Source
	}
	s, _ := c.trusted(e)
	up.Signer, up.PreviousSigner = signerChange(e, &lockEntry{Signer: s})
	if d == e.Digest {
		return up, nil
	}
	old, ok := in.cached(ctx, name, e)
	if !ok {
		old = in.canonicalPath(name)
	}
	a, aerr := fileSums(old)
	b, berr := fileSums(dir)
	if aerr == nil && berr == nil {
		up.Added, up.Removed, up.Changed = diffSums(a, b)
	}
	return up, nil
}

// diffSums compares two trees' files (fileSums): the paths only b holds,
// only a holds, and both hold with other bytes or executable bit, each
// sorted.
func diffSums(a, b map[string]string) (added, removed, changed []string) {
	for _, p := range slices.Sorted(mapKeys(a, b)) {
		x, inA := a[p]
		y, inB := b[p]
		switch {
		case !inA:
			added = append(added, p)
		case !inB:
			removed = append(removed, p)
		case x != y:
			changed = append(changed, p)
		}
	}
	return added, removed, changed
}

// readNow reads the source src, recorded for the skills names, at what
// its reference names now (for a range with latest, at the highest
// version tag), as rule 14 says, and returns its skills, each recorded
// with the source as the lock file will record it, and for a version
// range the tag. The trust checks of Add apply (the policy, the signer
// recorded for the source).
func (in *Installer) readNow(ctx context.Context, lock *lockFile, src string, names []string, latest bool) (*sourceSkills, string, error) {
	st, err := in.checkNow(src, names, lock)
	if err != nil {
		return nil, "", err
	}
	switch in.recordedKind(src) {
	case kindPublished:
		return in.readPublished(ctx, lock, src, names, latest, st)
	case kindURL:
		if isPinnedURL(src) {
			r, err := in.syncSource(ctx, src, "", names, lock, st)
			return r, "", err
		}
		r, _, err := in.readURL(ctx, src, sharedValidators(lock, names))
		if errors.Is(err, errNotModified) {
			r, err = in.unchanged(ctx, src, names, lock)
		}
		if err == nil {
			st.mark(r.skills)
		}
		return r, "", err
	case kindFolder:
		r, err := in.resolve(ctx, in.sourcePath(src), true, st, nil)
		return r, "", err
	case kindWebIndex:
		r, err := in.readWebIndexNow(ctx, lock, src, names, st)
		return r, "", err
	}
	return nil, "", fmt.Errorf("%s: %w: this version of agentskills does not know its kind of source, so it cannot update it", src, ErrInvalidSource)
}

// unchanged is the skills names of the URL source src, which its server
// says is not modified: as the lock file records them, from the skill
// cache or the installed canonical copy while it holds the recorded
// content, else downloaded again.
func (in *Installer) unchanged(ctx context.Context, src string, names []string, lock *lockFile) (*sourceSkills, error) {
	r := &sourceSkills{source: src, cleanup: func() {}}
	for _, name := range names {
		e := lock.Skills[name]
		dir, ok := in.cached(ctx, name, e)
		if !ok {
			dir = in.canonicalPath(name)
			if d, err := skill.ContentDigest(ctx, dir); err != nil || d != e.Digest {
				r, _, err := in.readURL(ctx, src, validators{})
				return r, err
			}
		}
		r.skills = append(r.skills, candidate{dir: dir, source: src, subpath: e.Subpath, got: validators{etag: e.ETag, modified: e.LastModified}})
	}
	in.checkAll(ctx, r.skills, "")
	return r, nil
}

// readPublished is readNow of a GitHub, git or OCI source: one lookup of
// its reference, and the content at the pin it names.
func (in *Installer) readPublished(ctx context.Context, lock *lockFile, src string, names []string, latest bool, st *sourceTrust) (*sourceSkills, string, error) {
	rs, err := in.parseSource(src, false)
	if err != nil {
		return nil, "", err
	}
	rec, pin, version := src, "", ""
	if v, ok := rs.(source.Versioned); ok && latest && v.Range() != "" {
		tag, p, err := in.latest(ctx, v, src)
		if err != nil {
			return nil, "", err
		}
		caret, err := srcversion.Caret(tag)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w: %w", src, ErrInvalidSource, err)
		}
		rec, pin, version = redact.URL(v.WithRange(caret)), p, tag
		if strings.Contains(v.Range(), "-") {
			// A range that names a pre-release may pick one above every
			// release: leaving it for the highest release would move the
			// skill back, so it stays within its range then.
			within, err := in.parseSource(src, false)
			if err != nil {
				return nil, "", err
			}
			wpin, wversion, err := in.lookUp(ctx, within, src)
			if err != nil {
				return nil, "", err
			}
			if srcversion.Compare(wversion, tag) > 0 {
				rs, rec, pin, version = within, src, wpin, wversion
			}
		}
	} else if pin, version, err = in.lookUp(ctx, rs, src); err != nil {
		return nil, "", err
	}
	if r, err := in.recalled(ctx, rs, rec, pin, names, lock, st); r != nil || err != nil {
		if r != nil {
			markVersion(r.skills, version, in.rangeOf(rec))
		}
		return r, version, err
	}
	var at []string
	for _, name := range names {
		at = append(at, lock.Skills[name].Subpath)
	}
	r := &sourceSkills{source: rec, pin: pin}
	if _, r.skills, r.cleanup, err = in.fromRemote(ctx, rs, rec, pin, at, st, nil); err != nil {
		return nil, "", err
	}
	in.checkAll(ctx, r.skills, pin)
	st.mark(r.skills)
	markVersion(r.skills, version, in.rangeOf(rec))
	return r, version, nil
}

// markVersion records on skills the tag a version range picked, when
// one did (the lock file's "version"), and the range, rng, as a source
// Add reads records them (for the merge of ranges, rule 17).
func markVersion(skills []candidate, version, rng string) {
	if version == "" {
		return
	}
	for i := range skills {
		skills[i].version, skills[i].rng = version, rng
	}
}

// rangeOf is the version range the source text's reference names, or
// "" when it names none.
func (in *Installer) rangeOf(text string) string {
	rs, err := in.parseRemote(text)
	if err != nil || rs == nil {
		return ""
	}
	if v, ok := rs.(source.Versioned); ok {
		return v.Range()
	}
	return ""
}

// latest returns the highest version tag of v's repository and its pin,
// under the download watchdog (rule 10).
func (in *Installer) latest(ctx context.Context, v source.Versioned, src string) (string, string, error) {
	defer v.Close()
	ctx, w := startRemoteWatchdog(ctx, in.timeout)
	defer w.stop()
	tag, pin, err := v.Latest(ctx)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", src, w.classify(ctx, err))
	}
	return tag, pin, nil
}

// checkEdits is what a dry run checks of the places an update would
// change, as the update's own checks find them: an installed canonical
// copy or copy changed since it was installed stops the update (rule 7)
// unless forced, and a place holding what this tool did not make (an
// agent's link replaced by a folder) stops it, forced or not (rule 1).
// ups give the new content's digests.
func (in *Installer) checkEdits(ctx context.Context, lock *lockFile, wants []want, ups []SkillUpdate, force bool) error {
	var problems []error
	for _, w := range wants {
		e := lock.Skills[w.c.name]
		newDigest := ""
		if i := slices.IndexFunc(ups, func(u SkillUpdate) bool { return u.Skill == w.c.name }); i >= 0 {
			newDigest = ups[i].Digest
		}
		canonical := in.canonicalPath(w.c.name)
		places := map[string]lockPlace{canonical: {Kind: KindCanonical}}
		for _, pl := range e.Agents {
			places[abs(in.Root(), pl.Path)] = pl
		}
		for _, p := range slices.Sorted(maps.Keys(places)) {
			pl := places[p]
			switch in.examine(ctx, p, canonical, &pl, e.Digest, newDigest, nil).found {
			case foundModified:
				if !force {
					problems = append(problems, modifiedError(p, w.c.dir))
				}
			case foundForeign:
				problems = append(problems, in.conflictError(p, &plan{old: e}))
			}
		}
	}
	if len(problems) > 0 {
		return refuse(problems)
	}
	return nil
}

// recalled is the skills names of the published source rs, recorded as
// rec, at pin, from the skill cache when an Outdated before recorded
// their content there (rememberPin): nil when it holds any of them not,
// or when a signed commit must be checked (which needs the repository).
// The signatures an OCI source must carry are verified as for a
// download (Trust rules 2 and 4).
func (in *Installer) recalled(ctx context.Context, rs source.Remote, rec, pin string, names []string, lock *lockFile, st *sourceTrust) (*sourceSkills, error) {
	if st != nil && len(st.commits) > 0 {
		return nil, nil
	}
	r := &sourceSkills{source: rec, pin: pin, cleanup: func() {}}
	for _, name := range names {
		sub := lock.Skills[name].Subpath
		dir, ok := in.recalledPin(ctx, rs, pin, sub, name)
		if !ok {
			return nil, nil
		}
		r.skills = append(r.skills, candidate{dir: dir, source: rec, subpath: sub})
	}
	if st.signed() {
		if err := st.verifySignatures(ctx, rs, pin); err != nil {
			return nil, err
		}
	}
	if st != nil {
		// This machine read the skills at pin (rememberPin), and pin is
		// verified now: the cache keeps the verdict (rememberVerdict).
		st.verifiedPin, st.verifiedKeys = pin, ""
	}
	in.checkAll(ctx, r.skills, pin)
	st.mark(r.skills)
	return r, nil
}

// checkNow is checkSource of the source src that the lock file records
// for the skills names, about to be read at what its reference names
// now, not at the pin recorded (# Trust, rule 1).
func (in *Installer) checkNow(src string, names []string, lock *lockFile) (*sourceTrust, error) {
	text := src
	if in.recordedKind(src) == kindFolder {
		text = in.sourcePath(src)
	}
	return in.checkSource(text, "", false, recordedSigner(lock, names))
}
