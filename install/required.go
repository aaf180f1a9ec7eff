package install

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// RequiredState is what the lock file records of a skill the policy
// requires.
type RequiredState string

// States of a required skill.
const (
	RequiredMet        RequiredState = "met"          // installed from its source, within its range, for its agents
	RequiredMissing    RequiredState = "missing"      // not installed from its source, or not for an agent it names
	RequiredOutOfRange RequiredState = "out-of-range" // installed from its source at a version outside its range, or one not recorded
)

// PolicyRequirement is a skill the policy requires and what the lock file
// records of it, as [Installer.PolicyRequired] reports it (# Required skills
// in the package doc).
type PolicyRequirement struct {
	// Source is the source the policy names, as written.
	Source string `json:"source"`
	// Policy locates the entry: "required[N] (FILE:LINE)".
	Policy string `json:"policy"`
	// Agents are the agents the policy names for it; empty: any agent
	// (a sync installs it for those the project installs for).
	Agents []string `json:"agents,omitempty"`
	// Reason is why the policy requires it, when it says.
	Reason string `json:"reason,omitempty"`
	// State is what the lock file records of it.
	State RequiredState `json:"state"`
	// Skills are the installed skills from its source, sorted.
	Skills []string `json:"skills,omitempty"`
	// Problem, when State is not met, says what is wrong and what to run.
	Problem string `json:"problem,omitempty"`

	req         policy.Requirement
	missingFor  []string // agents the policy names that lack a skill from it
	outOfRange  []string // "NAME at VERSION" of skills outside the range
	unversioned []string // skills whose version is not known
}

// PolicyRequired reports every skill the policy requires (the user's file's
// first) and what the lock file records of each, changing nothing. The
// policy is the trust engine's ([WithTrust]); without one, and in the
// user's scope, nothing is required and Required returns nil.
func (in *Installer) PolicyRequired(ctx context.Context) ([]PolicyRequirement, error) {
	reqs := in.policyRequirements()
	if len(reqs) == 0 {
		return nil, nil
	}
	lock, err := in.viewLock()
	if err != nil {
		return nil, err
	}
	return in.checkRequired(lock, reqs)
}

// policyRequirements are the required skills of the installer's policy: none
// in the user's scope, as # Required skills says.
func (in *Installer) policyRequirements() []policy.Requirement {
	if in.trust == nil || in.scope == User {
		return nil
	}
	return in.trust.effectivePolicy().Required()
}

// UnmetPolicyRequired is the [*PolicyRequiredError] of the skills of got
// that are not met (as [Installer.PolicyRequired] reports them), or nil.
func UnmetPolicyRequired(got []PolicyRequirement) error {
	var unmet []PolicyRequirement
	for _, r := range got {
		if r.State != RequiredMet {
			unmet = append(unmet, r)
		}
	}
	if len(unmet) == 0 {
		return nil
	}
	return &PolicyRequiredError{Skills: unmet}
}

// PolicyRequiredError lists the skills the policy requires that the lock file
// does not record as it requires them: what verify and a frozen sync
// fail with. It wraps [ErrPolicyRequired].
type PolicyRequiredError struct {
	Skills []PolicyRequirement
}

func (e *PolicyRequiredError) Error() string {
	lines := make([]string, len(e.Skills))
	for i, r := range e.Skills {
		lines[i] = fmt.Sprintf("%s (%s): %s", r.Source, r.Policy, r.Problem)
	}
	if len(lines) == 1 {
		return fmt.Sprintf("%v: 1 skill is not installed as the policy requires: %s", ErrPolicyRequired, lines[0])
	}
	return fmt.Sprintf("%v: %d skills are not installed as the policy requires:\n  %s", ErrPolicyRequired, len(lines), strings.Join(lines, "\n  "))
}

// Unwrap returns ErrPolicyRequired.
func (e *PolicyRequiredError) Unwrap() error { return ErrPolicyRequired }

// place is where a published source's skills come from: its repository
// (source.Remote.Repository), the folder it names in it, and its
// reference.
type place struct {
	repo, folder, ref string
}

// sourcePlace reads text, a published source, as its kind's package
// does; ok is false for another source (a folder, a URL).
func (in *Installer) sourcePlace(text string) (_ place, ok bool, _ error) {
	rs, err := in.parseSource(text, false)
	if err != nil || rs == nil {
		return place{}, false, err
	}
	pl := place{repo: rs.Repository()}
	spec, err := source.Parse(text)
	if err != nil {
		return place{}, false, err
	}
	switch spec.Kind {
	case source.GitHub:
		src, ok, err := parseGitHub(text, spec, false)
		if err != nil || !ok {
			return place{}, false, err
		}
		pl.folder, pl.ref = src.Path, src.Ref
	case source.Git:
		src, err := parseGit(spec)
		if err != nil {
			return place{}, false, err
		}
		pl.folder, pl.ref = src.Path, src.Ref
	case source.OCI:
		ref, err := oci.ParseReference(spec.Text)
		if err != nil {
			return place{}, false, err
		}
		pl.ref = cmp.Or(ref.Range, ref.Tag)
	}
	pl.folder = strings.Trim(path.Clean("/"+pl.folder), "/")
	return pl, true, nil
}

// within reports whether a skill at folder (inside the repository) is
// one of those the place names: at its folder or below.
func (p place) within(folder string) bool {
	return p.folder == "" || folder == p.folder || strings.HasPrefix(folder, p.folder+"/")
}

// requiredFrom returns the names of the skills lock records from the
// place want, sorted: the same repository, whatever its reference, at
// the folder want names or below.
func (in *Installer) requiredFrom(lock *lockFile, want place, places map[string]place) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		e := lock.Skills[name]
		pl, ok := places[e.Source]
		if !ok {
			pl, ok, _ = in.sourcePlace(e.Source)
			if !ok {
				pl = place{}
			}
			places[e.Source] = pl
		}
		if pl.repo == "" || pl.repo != want.repo {
			continue
		}
		// A published source's skills record their folders from the
		// repository's root (the archive's), whatever folder the source
		// names.
		if want.within(strings.Trim(path.Clean("/"+e.Subpath), "/")) {
			out = append(out, name)
		}
	}
	return out
}

// entryVersion is the version a lock entry was installed at: the tag its
// range picked, which the lock file records, else the version its
// source names (github:acme/x@v1.2.3), else "". A recorded version the
// source's own reference refuses (outside its range, or not the tag it
// names) is a hand edit, not what was installed, and is ignored
// (# Required skills, rule 5).
func entryVersion(e *lockEntry, pl place) string {
	if e.Version != "" && versionFits(e.Version, pl.ref) {
		return e.Version
	}
	if version.IsVersion(pl.ref) {
		return pl.ref
	}
	return ""
}

// versionFits reports whether v, a recorded version, can be what ref (a
// source's reference) installed: any version when ref is no range and
// no version (none, a branch, a commit); one the range admits; the
// version ref names.
func versionFits(v, ref string) bool {
	switch {
	case version.IsRange(ref):
		rg, err := version.ParseRange(ref)
		return err == nil && rg.Admits(v)
	case version.IsVersion(ref):
		return version.IsVersion(v) && version.Compare(v, ref) == 0
	}
	return true
}

// sourceRef is the reference text, a published source, names; "" for
// another source or one that cannot be read.
func sourceRef(text string) string {
	spec, err := source.Parse(text)
	if err != nil {
		return ""
	}
	switch spec.Kind {
	case source.GitHub:
		if src, ok, err := parseGitHub(text, spec, false); err == nil && ok {
			return src.Ref
		}
	case source.Git:
		if src, err := parseGit(spec); err == nil {
			return src.Ref
		}
	case source.OCI:
		if ref, err := oci.ParseReference(spec.Text); err == nil {
			return cmp.Or(ref.Range, ref.Tag)
		}
	}
	return ""
}

// checkRequired finds what lock records of each of reqs (# Required
// skills in the package doc).
func (in *Installer) checkRequired(lock *lockFile, reqs []policy.Requirement) ([]PolicyRequirement, error) {
	places := map[string]place{}
	out := make([]PolicyRequirement, 0, len(reqs))
	for _, req := range reqs {
		if req.Project && !in.localRequired {
			if err := onThisMachine(req.Source); err != nil {
				return nil, fmt.Errorf("%w: %s: %s: the source %q is refused: %v; a project's policy may require only skills published elsewhere (the user's own policy file may name one on this machine)", policy.ErrInvalid, where(req.Rule), req.Name, redact.URL(req.Source), err)
			}
		}
		want, ok, err := in.sourcePlace(req.Source)
		if err == nil && !ok {
			err = errors.New("not a published source")
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: the source %q cannot be read: %v", policy.ErrInvalid, where(req.Rule), req.Name, redact.URL(req.Source), err)
		}
		r := PolicyRequirement{Source: req.Source, Policy: req.Rule.String(), Agents: req.Agents, Reason: req.Reason, req: req, State: RequiredMet}
		r.Skills = in.requiredFrom(lock, want, places)
		for _, name := range r.Skills {
			e := lock.Skills[name]
			v := entryVersion(e, places[e.Source])
			switch {
			case req.Admits(v):
			case v == "":
				r.unversioned = append(r.unversioned, name)
			default:
				r.outOfRange = append(r.outOfRange, name+" at "+v)
			}
			for _, id := range req.Agents {
				if _, ok := e.Agents[id]; !ok && !slices.Contains(r.missingFor, id) {
					r.missingFor = append(r.missingFor, id)
				}
			}
		}
		in.describe(&r)
		out = append(out, r)
	}
	return out, nil
}

// onThisMachine refuses text, a required source, when it names a
// repository on this machine or next to it: a file URL (git+file:, in
// any case), or a host that is this machine (localhost, 127.0.0.0/8,
// ::1) or link-local (169.254.0.0/16, fe80::/10, where clouds serve
// their metadata). A project's file must not make sync copy what is on
// the user's machine into the project (# Required skills, rule 7).
func onThisMachine(text string) error {
	var host string
	switch {
	case len(text) >= 4 && strings.EqualFold(text[:4], "git+"):
		u, err := url.Parse(text[4:])
		if err != nil {
			return errors.New("its URL cannot be read")
		}
		if strings.EqualFold(u.Scheme, "file") {
			return errors.New("it is a file URL, a repository on this machine")
		}
		if u.Host == "" {
			return errors.New("its URL names no host")
		}
		host = u.Hostname()
	case len(text) >= 6 && strings.EqualFold(text[:6], "oci://"):
		host, _, _ = strings.Cut(text[6:], "/")
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
	default:
		return nil // github: its host is the GitHub API's, which the user sets
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("its host %s is this machine", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		switch {
		case ip.IsLoopback(), ip.IsUnspecified():
			return fmt.Errorf("its host %s is this machine", host)
		case ip.IsLinkLocalUnicast():
			return fmt.Errorf("its host %s is link-local, next to this machine", host)
		}
	}
	return nil
}

// where locates a requirement: FILE:LINE.
func where(r policy.Rule) string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// describe sets r's State and Problem from what was found.
func (in *Installer) describe(r *PolicyRequirement) {
	sync := in.setting(SettingSync)
	switch {
	case len(r.Skills) == 0:
		r.State = RequiredMissing
		r.Problem = fmt.Sprintf("no skill from it is installed; run %s, which installs it", sync)
	case len(r.outOfRange) > 0 || len(r.unversioned) > 0:
		r.State = RequiredOutOfRange
		var parts []string
		if len(r.outOfRange) > 0 {
			parts = append(parts, fmt.Sprintf("%s, outside %s", strings.Join(r.outOfRange, ", "), r.req.Ref))
		}
		if len(r.unversioned) > 0 {
			parts = append(parts, fmt.Sprintf("%s installed at a version the lock file does not record, so %s cannot be checked", strings.Join(r.unversioned, ", "), r.req.Ref))
		}
		r.Problem = fmt.Sprintf("%s; run %s, which installs it from %s", strings.Join(parts, "; "), sync, r.Source)
	case len(r.missingFor) > 0:
		r.State = RequiredMissing
		r.Problem = fmt.Sprintf("%s is not installed for %s; run %s, which installs it for them", strings.Join(r.Skills, ", "), strings.Join(r.missingFor, ", "), sync)
	}
}

// syncWithRequired is a Sync (recorded: what the lock file records)
// that installs the skills the policy requires, as # Required skills in
// the package doc says: frozen, it fails with a [*PolicyRequiredError] before
// anything changes when one is not met; else it syncs what is recorded
// and then adds each one not met, as Add does.
func (in *Installer) syncWithRequired(ctx context.Context, req SyncRequest, recorded func(context.Context, SyncRequest) ([]Change, error)) ([]Change, error) {
	reqs := in.policyRequirements()
	if len(reqs) == 0 {
		return recorded(ctx, req)
	}
	if req.Frozen {
		lock, err := in.peekLock()
		if err != nil {
			return nil, err
		}
		got, err := in.checkRequired(lock, reqs)
		if err != nil {
			return nil, err
		}
		if err := UnmetPolicyRequired(got); err != nil {
			return nil, fmt.Errorf("%w\na frozen sync installs only what the lock file records, so nothing was changed (sync without --frozen installs them, and records them in the lock file)", err)
		}
		return recorded(ctx, req)
	}
	if err := in.resolveRequired(ctx, reqs); err != nil {
		return nil, err
	}
	changes, err := recorded(ctx, req)
	if err != nil {
		return changes, err
	}
	added, err := in.addRequired(ctx, reqs, req.Force)
	changes = append(changes, added...)
	if err != nil && slices.ContainsFunc(changes, func(c Change) bool { return c.Action != ActionUnchanged && c.Action != ActionSkipped }) {
		// The failing Add changed nothing, but the sync before it did:
		// the message may not say nothing was.
		err = &changedError{err: err}
	}
	return changes, err
}

// changedError is an error of a step that changed nothing after earlier
// steps of the same run changed something: its message says so where the
// step's own says "nothing was changed". It wraps err.
type changedError struct{ err error }

func (e *changedError) Error() string {
	msg := e.err.Error()
	const nothing = "nothing was changed"
	if strings.Contains(msg, nothing) {
		return strings.ReplaceAll(msg, nothing, "the required skill was not added (the sync's earlier changes stay)")
	}
	return msg + " (the sync's earlier changes stay)"
}

func (e *changedError) Unwrap() error { return e.err }

// resolveRequired checks, before a sync changes anything, that each
// requirement the lock file does not meet can be met: the entries for
// one repository and folder are resolved together, with every reference
// they name (a version the ranges of both files admit, ^1 and <1.1:
// v1.0.0), and one that admits no version fails the sync with a
// [*PolicyRequiredError] naming them (# Required skills, rule 2).
func (in *Installer) resolveRequired(ctx context.Context, reqs []policy.Requirement) error {
	lock, err := in.peekLock()
	if err != nil {
		return err
	}
	got, err := in.checkRequired(lock, reqs)
	if err != nil {
		return err
	}
	type group struct {
		refs    []string
		entries []int
		unmet   int // index in got of the first entry not met; -1: all met
	}
	groups := map[place]*group{}
	var order []place
	for i, r := range got {
		pl, _, _ := in.sourcePlace(r.Source)
		key := place{repo: pl.repo, folder: pl.folder}
		g := groups[key]
		if g == nil {
			g = &group{unmet: -1}
			groups[key] = g
			order = append(order, key)
		}
		g.entries = append(g.entries, i)
		if r.req.Ref != "" && !slices.Contains(g.refs, r.req.Ref) {
			g.refs = append(g.refs, r.req.Ref)
		}
		if r.State != RequiredMet && g.unmet < 0 {
			g.unmet = i
		}
	}
	var failed []PolicyRequirement
	for _, key := range order {
		g := groups[key]
		if g.unmet < 0 || len(g.refs) == 0 {
			continue
		}
		text := got[g.unmet].Source
		if len(g.refs) > 1 {
			rs, err := in.parseSource(text, false)
			if err != nil {
				return err
			}
			v, ok := rs.(source.Versioned)
			rs.Close()
			if !ok {
				continue
			}
			text = v.WithRange(strings.Join(g.refs, " "))
		}
		rs, err := in.parseSource(text, false)
		if err != nil {
			return err
		}
		_, err = rs.Resolve(ctx)
		rs.Close()
		if err == nil {
			continue
		}
		if !errors.Is(err, source.ErrNotFound) {
			return fmt.Errorf("%s, which %s requires: %w\nnothing was changed", got[g.unmet].Source, got[g.unmet].Policy, err)
		}
		for _, i := range g.entries {
			r := got[i]
			if len(g.refs) > 1 {
				r.Problem = fmt.Sprintf("no version of its repository is admitted by all of %s, which the entries for it name; make the policy's entries agree", strings.Join(g.refs, ", "))
			} else {
				r.Problem = fmt.Sprintf("no version of its repository is admitted by %s (%v)", r.req.Ref, err)
			}
			r.State = RequiredMissing
			failed = append(failed, r)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w\nnothing was changed", &PolicyRequiredError{Skills: failed})
}

// addRequired adds, one at a time as Add does, the source of each
// requirement the lock file does not meet, each once, the user's file's
// first; it fails with a [*PolicyRequiredError] when some are still not met
// (two entries for one source whose ranges admit no common version).
func (in *Installer) addRequired(ctx context.Context, reqs []policy.Requirement, force bool) ([]Change, error) {
	var changes []Change
	tried := map[string]bool{}
	for {
		lock, err := in.peekLock()
		if err != nil {
			return changes, err
		}
		got, err := in.checkRequired(lock, reqs)
		if err != nil {
			return changes, err
		}
		i := slices.IndexFunc(got, func(r PolicyRequirement) bool { return r.State != RequiredMet && !tried[r.Policy] })
		if i < 0 {
			return changes, UnmetPolicyRequired(got)
		}
		r := got[i]
		tried[r.Policy] = true
		agents, err := requiredAgents(lock, r)
		if err != nil {
			return changes, err
		}
		text, tag, pin := r.Source, "", ""
		if in.mustPin(r.Source) {
			if text, tag, pin, err = in.pinnedForm(ctx, r.Source); err != nil {
				return changes, fmt.Errorf("%s, which %s requires: %w", r.Source, r.Policy, err)
			}
		}
		ch, err := in.Add(ctx, AddRequest{Sources: []string{text}, Agents: agents, Force: force})
		if err == nil && tag != "" {
			err = in.recordVersion(ctx, text, pin, tag)
		}
		why := "required by the policy: " + r.Policy
		if r.req.Project {
			why += ", the project's file"
		}
		for i := range ch {
			if ch[i].Agent == "" && ch[i].Action != ActionSkipped && ch[i].Reason == "" {
				ch[i].Reason = why
			}
		}
		changes = append(changes, ch...)
		if err != nil {
			return changes, fmt.Errorf("%s, which %s requires: %w", r.Source, r.Policy, err)
		}
	}
}

// mustPin reports whether the policy refuses text only because it names
// no pin (sources.pinned: true).
func (in *Installer) mustPin(text string) bool {
	o, err := in.policySource(text, "", true)
	if err != nil {
		return false
	}
	var d *policy.DeniedError
	return errors.As(in.trust.effectivePolicy().Check(o), &d) && d.Rule == "sources.pinned"
}

// pinnedForm resolves text, a required source, and returns it with its
// reference replaced by the pin it resolved to, with the tag that pin is
// (the highest the range admits, or the version text names) and the pin
// (# Required skills, rule 9).
func (in *Installer) pinnedForm(ctx context.Context, text string) (pinned, tag, pin string, err error) {
	rs, err := in.parseSource(text, false)
	if err != nil {
		return "", "", "", err
	}
	defer rs.Close()
	v, ok := rs.(source.Versioned)
	if !ok {
		return "", "", "", fmt.Errorf("%w: sources.pinned requires a pin, and this source cannot name one", ErrInvalidSource)
	}
	if pin, err = rs.Resolve(ctx); err != nil {
		return "", "", "", err
	}
	tag = v.Version()
	if tag == "" {
		if ref := sourceRef(text); version.IsVersion(ref) {
			tag = ref
		}
	}
	if tag == "" {
		// No reference: the newest version tag, if it is the pin.
		if latest, lpin, err := v.Latest(ctx); err == nil && lpin == pin {
			tag = latest
		}
	}
	return v.WithRange(pin), tag, pin, nil
}

// recordVersion records tag as the version of each skill the lock file
// records from text at pin without one: a required skill added at the
// pin its range resolved to (rule 9), whose tag the pin alone does not
// name.
func (in *Installer) recordVersion(ctx context.Context, text, pin, tag string) error {
	s, err := in.begin(ctx)
	if err != nil {
		return err
	}
	defer s.end()
	changed := false
	for _, e := range s.lock.Skills {
		if e.Source == text && e.Pin == pin && e.Version == "" {
			e.Version = tag
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return s.lock.write(in.lockPath())
}

// requiredAgents are the agents a required skill is added for: those
// the policy names; else those its installed skills are recorded for;
// else every agent the lock file records; else none, which Add reads as
// the agents it chooses ([Installer.ChooseAgents]).
func requiredAgents(lock *lockFile, r PolicyRequirement) ([]Agent, error) {
	if len(r.Agents) > 0 {
		return LookupAgents(r.Agents...)
	}
	ids := map[string]bool{}
	for _, name := range r.Skills {
		for id := range lock.Skills[name].Agents {
			ids[id] = true
		}
	}
	if len(ids) == 0 {
		return recordedAgents(lock), nil
	}
	return LookupAgents(slices.Sorted(maps.Keys(ids))...)
}

// requiredIn is what lock records of each skill the policy requires
// ([Installer.PolicyRequired] of lock): none without required entries.
func (in *Installer) requiredIn(lock *lockFile) ([]PolicyRequirement, error) {
	reqs := in.policyRequirements()
	if len(reqs) == 0 {
		return nil, nil
	}
	return in.checkRequired(lock, reqs)
}

// keepRequired refuses, with [ErrPolicyRequired], removals that would take
// from the lock file a skill installed from a source the policy
// requires, or take it from an agent the requirement names; --force or
// not: only the policy file can lift a requirement. got is what the
// lock file records of the policy's requirements (requiredIn).
func keepRequired(got []PolicyRequirement, plans []removal) error {
	var problems []string
	for _, p := range plans {
		for _, r := range got {
			if !slices.Contains(r.Skills, p.name) {
				continue
			}
			why := ""
			if r.Reason != "" {
				why = " (" + r.Reason + ")"
			}
			if p.cur == nil {
				problems = append(problems, fmt.Sprintf("skill %q: %s requires %s%s", p.name, r.Policy, r.Source, why))
				break
			}
			var lost []string
			for _, id := range r.Agents {
				if _, ok := p.cur.Agents[id]; !ok && slices.Contains(p.ids, id) {
					lost = append(lost, id)
				}
			}
			if len(lost) > 0 {
				problems = append(problems, fmt.Sprintf("skill %q for %s: %s requires %s for %s%s", p.name, strings.Join(lost, ", "), r.Policy, r.Source, strings.Join(r.Agents, ", "), why))
				break
			}
		}
	}
	const rest = "nothing was changed; a skill the policy requires cannot be removed, forced or not: remove its entry from the policy file first"
	switch len(problems) {
	case 0:
		return nil
	case 1:
		subject, detail, _ := strings.Cut(problems[0], ": ")
		return fmt.Errorf("%s: %w: %s\n%s", subject, ErrPolicyRequired, detail, rest)
	}
	return fmt.Errorf("%w: %d skills:\n  %s\n%s", ErrPolicyRequired, len(problems), strings.Join(problems, "\n  "), rest)
}

// policyEntries maps each skill of got, what the lock file records of the
// policy's requirements (requiredIn), to the first entry that requires
// it ([PolicyRequirement].Policy).
func policyEntries(got []PolicyRequirement) map[string]string {
	by := map[string]string{}
	for _, r := range got {
		for _, name := range r.Skills {
			if _, ok := by[name]; !ok {
				by[name] = r.Policy
			}
		}
	}
	return by
}

// markRequired sets RequiredByPolicy of each status of a skill this tool
// installed, as lock records it, from a source the policy requires.
func (in *Installer) markRequired(lock *lockFile, st []Status) error {
	got, err := in.requiredIn(lock)
	if err != nil {
		return err
	}
	by := policyEntries(got)
	for i := range st {
		if st[i].Kind != "" {
			st[i].RequiredByPolicy = by[st[i].Skill]
		}
	}
	return nil
}
