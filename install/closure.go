package install

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// The limits of a closure of requirements (rule 17).
const (
	// MaxRequired is the most skills one Add or Update installs with
	// what they require, the skills named among them.
	MaxRequired = 256
	// MaxRequireDepth is the longest chain of requirements from a skill
	// named to a skill it requires, through the skills between.
	MaxRequireDepth = 32
)

// requirer is a published source that declares requirements beside the
// content (an OCI artifact's dev.toolhive.skills.requires annotation).
type requirer interface {
	Requires(ctx context.Context, pin string) ([]string, error)
}

// reqNode is one skill of a closure of requirements.
type reqNode struct {
	name string
	// c is what is installed for it; nil while an installed skill,
	// entry, answers it without being read.
	c     *candidate
	entry *lockEntry
	root  bool     // named by the request
	chain []string // the skills from one named to this one
	via   string   // the requirement, as written, that brought it in; "" for one named
	eff   string   // the source read for via
	edges []string // the skills that answer its requirements
	done  bool     // its requirements were followed
}

// closure is the resolution of an Add's requirements (rule 17).
type closure struct {
	in      *Installer
	lock    *lockFile
	lenient bool
	none    bool                  // AddRequest.NoRequires
	read    map[string]*candidate // the skill each requirement's source (as read) gives
	sources []*sourceSkills       // what reading them extracted
	prefer  map[string]*candidate // a version that answers every range found, by name
	nodes   map[string]*reqNode
	order   []*reqNode
	restart bool
}

// requirements resolves the closure of the skills of use (rule 17):
// every skill they require, and that those require, each read, checked
// by the policy, and picked as one skill of one version per name. It
// returns the skills to install, those of use first, the sources it read
// (for rememberSources), and cleanup, which removes what reading them
// extracted. Nothing is changed: a conflict, a cycle, a limit crossed or
// a refused requirement fails it.
// With keep (an Update), the skills of use keep the lock file's
// dependency mark.
func (in *Installer) requirements(ctx context.Context, use []*candidate, lenient, none, keep bool) (_ []*candidate, _ []*sourceSkills, cleanup func(), _ error) {
	lock, err := in.peekLock()
	if err != nil {
		return nil, nil, nil, err
	}
	cl := &closure{in: in, lock: lock, lenient: lenient, none: none, read: map[string]*candidate{}, prefer: map[string]*candidate{}}
	seedPluginReqs(cl.read, use) // read with their marketplace (rule 12)
	cleanup = func() {
		for _, r := range cl.sources {
			r.cleanup()
		}
	}
	for round := 0; ; round++ {
		if err := cl.run(ctx, use); err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		if !cl.restart {
			break
		}
		if round >= MaxRequired {
			cleanup()
			return nil, nil, nil, fmt.Errorf("%w: the versions the requirements name do not settle; nothing was changed", ErrRequirements)
		}
	}
	if err := cl.cycle(); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	if err := cl.keepsInstalled(); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	var out []*candidate
	for _, n := range cl.order {
		if n.c == nil {
			continue
		}
		n.c.dependency = !n.root || keep
		n.c.requiredBy = nil
		out = append(out, n.c)
	}
	for _, n := range cl.order {
		for _, e := range n.edges {
			if m := cl.nodes[e]; m != nil && m.c != nil && e != n.name && !slices.Contains(m.c.requiredBy, n.name) {
				m.c.requiredBy = append(m.c.requiredBy, n.name)
			}
		}
	}
	for _, c := range out {
		slices.Sort(c.requiredBy)
	}
	return out, cl.sources, cleanup, nil
}

// run resolves the closure once, breadth first from the skills named. It
// sets cl.restart when a version that answers every range replaced one
// whose requirements were followed already: the closure is resolved
// again with it (cl.prefer).
func (cl *closure) run(ctx context.Context, use []*candidate) error {
	cl.nodes, cl.order, cl.restart = map[string]*reqNode{}, nil, false
	var queue []*reqNode
	for _, c := range use {
		if p := cl.prefer[c.name]; p != nil && answersRange(c, p) {
			c = p
		}
		n := &reqNode{name: c.name, c: c, root: true, chain: []string{c.name}}
		if m := cl.nodes[c.name]; m != nil {
			if err := cl.merge(ctx, m, c, n.chain, c.source); err != nil {
				return err
			}
			continue
		}
		cl.add(n)
		queue = append(queue, n)
	}
	for len(queue) > 0 && !cl.restart {
		n := queue[0]
		queue = queue[1:]
		more, err := cl.follow(ctx, n)
		if err != nil {
			return err
		}
		queue = append(queue, more...)
	}
	return nil
}

func (cl *closure) add(n *reqNode) {
	cl.nodes[n.name] = n
	cl.order = append(cl.order, n)
}

// follow reads the requirements of n and resolves each, returning the
// skills new to the closure.
func (cl *closure) follow(ctx context.Context, n *reqNode) ([]*reqNode, error) {
	n.done = true
	if n.c == nil {
		// An installed skill answers: its requirements are those the
		// lock file records, each answered as recorded.
		for _, r := range n.entry.Requires {
			if e := cl.lock.Skills[r.Skill]; e != nil {
				n.edges = append(n.edges, r.Skill)
				if cl.nodes[r.Skill] == nil {
					cl.add(&reqNode{name: r.Skill, entry: e, chain: append(slices.Clone(n.chain), r.Skill), done: true})
					cl.followInstalled(cl.nodes[r.Skill])
				}
			}
		}
		return nil, nil
	}
	reqs, err := cl.in.declared(ctx, n.c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", chainText(n.chain), err)
	}
	for _, t := range cl.keptPluginReqs(ctx, n.c) {
		if !slices.Contains(reqs, t) {
			reqs = append(reqs, t)
		}
	}
	n.c.reqRead = true
	n.c.requires = nil
	if len(reqs) > 0 {
		n.c.requires = make([]lockRequirement, len(reqs))
	}
	var more []*reqNode
	for i, text := range reqs {
		// Recorded and shown without credentials, were there any
		// (effective refuses them).
		n.c.requires[i].Source = redact.URL(text)
		eff, err := cl.effective(text, n)
		if cl.none {
			if err == nil {
				if name := cl.named(eff); name != "" {
					n.c.requires[i].Skill = name
					cl.edge(n, name) // for the cycle check: a cycle is refused here too
				}
			}
			continue
		}
		at := append(slices.Clone(n.chain), redact.URL(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", chainText(at), err)
		}
		m, isNew, err := cl.require(ctx, n, text, eff)
		if err != nil || cl.restart {
			return nil, err
		}
		n.c.requires[i].Skill = m.name
		if !slices.Contains(n.edges, m.name) {
			n.edges = append(n.edges, m.name)
		}
		if isNew {
			more = append(more, m)
		}
	}
	return more, nil
}

// edge records that n requires the skill name, for AddRequest.NoRequires:
// an installed skill not in the closure yet enters it, with what its
// entry records it requires, for the cycle check.
func (cl *closure) edge(n *reqNode, name string) {
	if !slices.Contains(n.edges, name) {
		n.edges = append(n.edges, name)
	}
	if cl.nodes[name] == nil {
		if e := cl.lock.Skills[name]; e != nil {
			m := &reqNode{name: name, entry: e, chain: append(slices.Clone(n.chain), name), done: true}
			cl.add(m)
			cl.followInstalled(m)
		}
	}
}

// followInstalled adds the installed skills that n's recorded
// requirements name, and theirs, to the closure, for its cycle check.
func (cl *closure) followInstalled(n *reqNode) {
	for _, r := range n.entry.Requires {
		if e := cl.lock.Skills[r.Skill]; e != nil {
			n.edges = append(n.edges, r.Skill)
			if cl.nodes[r.Skill] == nil && len(cl.nodes) < MaxRequired {
				m := &reqNode{name: r.Skill, entry: e, chain: append(slices.Clone(n.chain), r.Skill), done: true}
				cl.add(m)
				cl.followInstalled(m)
			}
		}
	}
}

// require resolves the requirement text of n, read as eff, to the skill
// of the closure that answers it, which isNew says was not in it yet.
func (cl *closure) require(ctx context.Context, n *reqNode, text, eff string) (_ *reqNode, isNew bool, _ error) {
	at := append(slices.Clone(n.chain), text)
	if name := cl.installed(eff); name != "" {
		// Installed from this very source: it answers without a read.
		if m := cl.nodes[name]; m != nil {
			if m.c == nil || m.eff == eff || cl.in.recordedAs(eff) == m.c.source && m.c.subpath == cl.lock.Skills[name].Subpath {
				return m, false, nil
			}
			c, err := cl.readReq(ctx, eff, at)
			if err != nil {
				return nil, false, err
			}
			return m, false, cl.merge(ctx, m, c, append(slices.Clone(n.chain), name), text)
		}
		m := &reqNode{name: name, entry: cl.lock.Skills[name], chain: append(slices.Clone(n.chain), name), via: text, eff: eff}
		if err := cl.limit(m); err != nil {
			return nil, false, err
		}
		cl.add(m)
		return m, true, nil
	}
	c, err := cl.readReq(ctx, eff, at)
	if err != nil {
		return nil, false, err
	}
	name := c.name
	if p := cl.prefer[name]; p != nil && p != c && answersRange(c, p) {
		c = p
	}
	chain := append(slices.Clone(n.chain), name)
	if m := cl.nodes[name]; m != nil {
		return m, false, cl.merge(ctx, m, c, chain, text)
	}
	if e := cl.lock.Skills[name]; e != nil && cl.sameEntry(e, c) && cl.entryAnswers(e, c) && !cl.pluginsMoved(ctx, c) {
		// Installed from this source at a version the requirement
		// admits: it answers as installed, unchanged.
		m := &reqNode{name: name, entry: e, chain: chain, via: text, eff: eff}
		if err := cl.limit(m); err != nil {
			return nil, false, err
		}
		cl.add(m)
		return m, true, nil
	}
	if e := cl.lock.Skills[name]; e != nil && !cl.sameEntry(e, c) {
		return nil, false, fmt.Errorf("%s (%s): skill %q: %w: it is already installed from %s; nothing was changed (remove it first with %s, or require it from there)",
			chainText(chain), text, name, ErrConflict, sourceLabel(e.Source, e.Subpath), cl.in.setting(SettingRemove))
	}
	m := &reqNode{name: name, c: c, chain: chain, via: text, eff: eff}
	if err := cl.limit(m); err != nil {
		return nil, false, err
	}
	cl.add(m)
	return m, true, nil
}

// limit fails when m would make the closure larger or deeper than the
// limits allow.
func (cl *closure) limit(m *reqNode) error {
	if len(m.chain) > MaxRequireDepth+1 {
		return fmt.Errorf("%s: %w: a chain of requirements longer than %d; nothing was changed", chainText(m.chain), ErrInvalidSource, MaxRequireDepth)
	}
	if len(cl.nodes) >= MaxRequired {
		return fmt.Errorf("%s: %w: more than %d skills with what they require; nothing was changed (install fewer at once, or with %s)",
			chainText(m.chain), ErrInvalidSource, MaxRequired, cl.in.setting(SettingAddNoRequires))
	}
	return nil
}

// choose makes c the skill m stands for: at once when m's requirements
// are not read yet, else by resolving the closure again, since they were
// those of another version.
func (cl *closure) choose(m *reqNode, c *candidate) {
	cl.prefer[m.name] = c
	if m.done {
		cl.restart = true
	} else {
		m.c = c
	}
}

// merge settles a second requirement, or a second named source, for
// the skill of m: read as c, it reached the closure by chain, written as
// via (a source named, for a named skill). One skill answers both when
// both are the same source and pin; or, when both name a version range
// of one repository, the highest version both admit (both); with an
// alternative (||) in either, the lower of the two versions picked when
// the other range admits it too. An installed skill that answers c as
// it is answers without change. Anything else is a conflict that names
// both chains.
func (cl *closure) merge(ctx context.Context, m *reqNode, c *candidate, chain []string, via string) error {
	if m.c == nil && cl.sameEntry(m.entry, c) && cl.entryAnswers(m.entry, c) {
		return nil // the installed version answers this requirement too
	}
	if m.c == nil {
		mc, err := cl.readReq(ctx, m.eff, m.chain)
		if err != nil {
			return err
		}
		m.c = mc
	}
	if m.c == c || sameSkill(cl.in, m.c, c) && m.c.pin == c.pin {
		return nil
	}
	if sameSkill(cl.in, m.c, c) && m.c.version != "" && c.version != "" {
		if both := cl.both(ctx, m.c, c, chain); both != nil {
			if both.pin == m.c.pin {
				return nil // m's version is the highest both admit
			}
			cl.choose(m, both)
			return nil
		}
		switch {
		case version.Compare(m.c.version, c.version) <= 0 && answersRange(c, m.c):
			return nil // m's version answers both
		case answersRange(m.c, c):
			cl.choose(m, c)
			return nil
		}
	}
	what := "two sources"
	if sameSkill(cl.in, m.c, c) {
		what = "no version answers both"
	}
	return fmt.Errorf("skill %q: %w: %s: %s and %s; nothing was changed (one version of a skill is installed: make the requirements agree)",
		m.name, ErrRequirements, what, describeNode(m), chainText(chain)+" ("+describe(via, c)+")")
}

// sameEntry reports whether c is the skill the lock file's entry e
// records: of the same source, at the same folder in it.
func (cl *closure) sameEntry(e *lockEntry, c *candidate) bool {
	return e != nil && cl.in.sameSource(e.Source, c.source) && e.Subpath == c.subpath
}

// entryAnswers reports whether the installed entry e, of the same skill
// as c, answers the requirement c was read for: at c's pin, or at a
// version c's range admits.
func (cl *closure) entryAnswers(e *lockEntry, c *candidate) bool {
	if e.Pin == c.pin {
		return true
	}
	v := e.Version
	if v == "" {
		v = cl.in.tagOf(e.Source) // installed at a version tag named
	}
	if c.rng == "" || v == "" {
		return false
	}
	r, err := version.ParseRange(c.rng)
	return err == nil && r.Admits(v)
}

// tagOf is the version tag the source text's reference names (v1.2.0;
// package source/version), or "" when it names none: a branch, a
// commit, a range.
func (in *Installer) tagOf(text string) string {
	rs, err := in.parseRemote(text)
	if err != nil || rs == nil {
		return ""
	}
	v, ok := rs.(source.Versioned)
	if !ok || v.Range() != "" {
		return ""
	}
	// The reference is what WithRange replaces.
	const mark = "^0.0.0"
	w := v.WithRange(mark)
	i := 0
	for i < len(w) && i < len(text) && w[i] == text[i] {
		i++
	}
	if !strings.HasPrefix(w[i:], mark) {
		return ""
	}
	rest := w[i+len(mark):]
	if !strings.HasSuffix(text, rest) || len(text)-len(rest) < i {
		return ""
	}
	if ref := text[i : len(text)-len(rest)]; version.IsVersion(ref) {
		return ref
	}
	return ""
}

// keepsInstalled fails when the closure would move an installed skill
// that stays (to another pin of its source) where that breaks what is
// installed (rule 17): a skill the user named, not a dependency, that
// a requirement reached (only the user moves it, by naming it); or a
// skill whose installed requirers, which this request does not read
// again, record a requirement the new version does not answer.
func (cl *closure) keepsInstalled() error {
	for _, m := range cl.order {
		e := cl.lock.Skills[m.name]
		if m.c == nil || e == nil || !cl.sameEntry(e, m.c) || e.Pin == m.c.pin {
			continue
		}
		if !m.root && !e.Dependency {
			return fmt.Errorf("skill %q: %w: %s and %s, installed as named (%s); nothing was changed (a requirement never moves a skill the user installed: add it at a version the requirement admits, or make the requirement admit the installed one)",
				m.name, ErrRequirements, describeNode(m), m.name, installedText(e))
		}
		for _, by := range slices.Sorted(maps.Keys(cl.lock.Skills)) {
			if by == m.name {
				continue
			}
			if n := cl.nodes[by]; n != nil && n.c != nil {
				continue // read again: its requirements are the closure's
			}
			for _, r := range cl.lock.Skills[by].Requires {
				if r.Skill != m.name || cl.admits(r.Source, m.c) {
					continue
				}
				return fmt.Errorf("skill %q: %w: no version answers both: %s and %s -> %s (%s, %s); nothing was changed (one version of a skill is installed: make the requirements agree)",
					m.name, ErrRequirements, describeNode(m), by, m.name, r.Source, installedText(e))
			}
		}
	}
	return cl.keepsPolicyRange()
}

// keepsPolicyRange fails when the closure would install or move a skill
// no one named (a dependency) from a source the policy requires to a
// version the policy's entry does not admit (# Required skills, rule 10):
// a requirement between skills never takes a required skill out of the
// policy's range.
func (cl *closure) keepsPolicyRange() error {
	reqs := cl.in.policyRequirements()
	if len(reqs) == 0 {
		return nil
	}
	places := map[string]place{}
	for _, m := range cl.order {
		if m.c == nil || m.root {
			continue
		}
		if e := cl.lock.Skills[m.name]; e != nil && cl.sameEntry(e, m.c) && e.Pin == m.c.pin {
			continue // it stays as it is
		}
		one := &lockFile{Skills: map[string]*lockEntry{m.name: {Source: m.c.source, Subpath: m.c.subpath}}}
		for _, req := range reqs {
			want, ok, err := cl.in.sourcePlace(req.Source)
			if err != nil || !ok || len(cl.in.requiredFrom(one, want, places)) == 0 || req.Admits(m.c.version) {
				continue
			}
			got := "a version the source does not name"
			if m.c.version != "" {
				got = m.c.version
			}
			return fmt.Errorf("skill %q: %w: %s (%s) picks %s, which the policy's required entry %s (%s) does not admit; nothing was changed (make the requirement admit a version the policy requires, or change the policy's entry)",
				m.name, ErrRequirements, chainText(m.chain), m.via, got, where(req.Rule), redact.URL(req.Source))
		}
	}
	return nil
}

// admits reports whether the recorded requirement text admits c, of
// its source: a version range admits the versions in it; a requirement
// without one (a branch, a tag, a folder) any pin of its source, as a
// requirement's source alone is compared (rule 17).
func (cl *closure) admits(text string, c *candidate) bool {
	rng := cl.in.rangeOf(text)
	if rng == "" {
		return true
	}
	if c.version == "" {
		return false
	}
	r, err := version.ParseRange(rng)
	return err == nil && r.Admits(c.version)
}

// installedText says what version of a skill is installed, for a
// message: "installed v1.9.0".
func installedText(e *lockEntry) string {
	switch {
	case e.Version != "":
		return "installed " + e.Version
	case e.Pin != "":
		return "installed at " + e.Pin
	}
	return "installed from " + sourceLabel(e.Source, e.Subpath)
}

// both reads the skill of a and b, two version ranges of one
// repository, at the highest version both admit: their source with
// both ranges as one ("^1,~1.4"), as the SDK's merge of requirements
// picks. It returns nil when either names no range or an alternative
// (||), or no version answers both (merge then says why).
func (cl *closure) both(ctx context.Context, a, b *candidate, chain []string) *candidate {
	if a.rng == "" || b.rng == "" || strings.Contains(a.rng+b.rng, "||") {
		return nil
	}
	parts := strings.Split(a.rng, ",")
	for _, p := range strings.Split(b.rng, ",") {
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	rng := strings.Join(parts, ",")
	if rng == a.rng {
		return nil
	}
	if _, err := version.ParseRange(rng); err != nil {
		return nil
	}
	rs, err := cl.in.parseRemote(b.source)
	if err != nil || rs == nil {
		return nil
	}
	v, ok := rs.(source.Versioned)
	if !ok {
		return nil
	}
	c, err := cl.readReq(ctx, redact.URL(v.WithRange(rng)), chain)
	if err != nil || !sameSkill(cl.in, c, b) || c.version == "" {
		return nil
	}
	return c
}

// sameSkill reports whether a and b are one skill of one source
// (whatever reference each reads it at).
func sameSkill(in *Installer, a, b *candidate) bool {
	return in.sameSource(a.source, b.source) && a.subpath == b.subpath
}

// answersRange reports whether p, of the same skill as c, has a version
// c's range admits.
func answersRange(c, p *candidate) bool {
	if c.rng == "" || p.version == "" {
		return c.pin == p.pin
	}
	r, err := version.ParseRange(c.rng)
	return err == nil && r.Admits(p.version)
}

// readReq reads the source eff of a requirement, which chain (ending
// with the requirement as written) brought in, after the policy's check
// (# Trust, rule 1), and returns its one skill.
func (cl *closure) readReq(ctx context.Context, eff string, chain []string) (*candidate, error) {
	if c := cl.read[eff]; c != nil {
		return c, nil
	}
	in := cl.in
	trusts, err := in.checkSources([]string{eff})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", chainText(chain), err)
	}
	r, err := in.resolve(ctx, eff, false, trusts[0], nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", chainText(chain), err)
	}
	cl.sources = append(cl.sources, r)
	use, skip := pick(r.skills, nil, nil, cl.lenient)
	switch {
	case len(use) == 0:
		return nil, fmt.Errorf("%s: %w\nnothing was changed", chainText(chain), refuseSkipped(skip, in.setting(SettingAddLenient)))
	case len(use) > 1:
		var names []string
		for _, c := range use {
			names = append(names, c.name)
		}
		return nil, fmt.Errorf("%s: %w: %s holds %d skills (%s); a requirement names a source of one skill (its folder: github:OWNER/REPO/PATH, git+URL#path=PATH); nothing was changed",
			chainText(chain), ErrInvalidSource, r.source, len(use), strings.Join(names, ", "))
	}
	c := use[0]
	cl.read[eff] = c
	return c, nil
}

// effective is the source a requirement text of n is read from: a bare
// OWNER/REPO is a GitHub repository (never a folder of the working
// folder); a path is relative to n's folder when n comes from a folder
// on this machine, and refused otherwise; a git+file:// repository, in
// any case, is refused unless n comes from a folder or such a
// repository, and so is a loopback host (localhost, 127.0.0.0/8, ::1);
// a requirement with credentials in its URL is refused (rule 17).
func (cl *closure) effective(text string, n *reqNode) (string, error) {
	spec, err := source.Parse(text)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	if redact.URL(text) != text {
		return "", fmt.Errorf("%s: %w: it holds credentials in its URL, which a requirement (published text, recorded in the lock file) must not: the requiring skill names the source without them, and git's credential helpers, an SSH key or the environment give them", redact.URL(text), ErrInvalidSource)
	}
	local := n.c != nil && (n.c.root != "" || isFileRepo(n.c.source))
	switch {
	case spec.Bare:
		return source.GitHubPrefix + text, nil
	case spec.Kind == source.Git && isFileRepo(text) && !local:
		return "", fmt.Errorf("%s: %w: it names a repository of this machine, and %s is read from %s, not from a folder or repository here: a published skill requires published sources", text, ErrInvalidSource, n.name, n.where())
	case spec.Kind != source.Local && spec.Kind != source.OCI && !local && isLoopback(text):
		return "", fmt.Errorf("%s: %w: it names a server of this machine (a loopback address), and %s is read from %s, not from a folder or repository here: a published skill requires published sources", text, ErrInvalidSource, n.name, n.where())
	case spec.Kind != source.Local:
		return text, nil
	case n.c == nil || n.c.root == "":
		return "", fmt.Errorf("%w: the path %s names a folder of this machine, and %s is read from %s, not from a folder here: a published skill requires published sources", ErrInvalidSource, text, n.name, n.where())
	case filepath.IsAbs(text):
		return filepath.Clean(text), nil
	}
	return filepath.Join(n.c.dir, filepath.FromSlash(text)), nil
}

// where is where n's skill is read from, for a message.
func (n *reqNode) where() string {
	switch {
	case n.c != nil:
		return n.c.where()
	case n.entry != nil:
		return sourceLabel(n.entry.Source, n.entry.Subpath)
	}
	return n.name
}

// isFileRepo reports whether text is a git+file:// source, its scheme
// read as URLs read it (without regard to case).
func isFileRepo(text string) bool {
	rest, ok := strings.CutPrefix(text, "git+")
	if !ok {
		return false
	}
	u, err := url.Parse(rest)
	return err == nil && strings.EqualFold(u.Scheme, "file")
}

// isLoopback reports whether text is a URL (git+URL, https://...) whose
// host is a loopback address: localhost (or a name under it),
// 127.0.0.0/8 or ::1.
func isLoopback(text string) bool {
	u, err := url.Parse(strings.TrimPrefix(text, "git+"))
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// installed returns the name of the installed skill the lock file
// records from the source eff, as an Add of it records it, when exactly
// one is, and is the source's own skill (not one of a folder inside
// it: whether the source holds that one skill alone is known only by
// reading it); else "".
func (cl *closure) installed(eff string) string {
	rec := cl.in.recordedAs(eff)
	found := ""
	for _, name := range slices.Sorted(maps.Keys(cl.lock.Skills)) {
		if e := cl.lock.Skills[name]; e.Source == rec && e.Subpath == "" {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

// named returns, for AddRequest.NoRequires, the skill that answers the
// requirement read from eff without reading it: a skill the request
// names from that source, else an installed one (installed); "" when
// none does.
func (cl *closure) named(eff string) string {
	rec := cl.in.recordedAs(eff)
	found := ""
	for _, m := range cl.order {
		if m.root && m.c.source == rec {
			if found != "" {
				return ""
			}
			found = m.name
		}
	}
	if found != "" {
		return found
	}
	return cl.installed(eff)
}

// recordedAs is how the lock file records the source text.
func (in *Installer) recordedAs(text string) string {
	if spec, err := source.Parse(text); err == nil && spec.Kind == source.Local && filepath.IsAbs(text) {
		return in.recordSource(text)
	}
	return redact.URL(text)
}

// declared returns the requirements c declares (rule 17): its SKILL.md's
// metadata.requires, then an OCI artifact's dev.toolhive.skills.requires
// (each HOST/REPO:TAG read as oci://HOST/REPO:TAG), each once, held to
// skillmd's rules for the list.
func (in *Installer) declared(ctx context.Context, c *candidate) ([]string, error) {
	var reqs []string
	if mayRequire(c.dir) {
		s, err := skillmd.ParseDir(c.dir, skillmd.WithMode(skillmd.Lenient))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		if reqs, err = s.Requires(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
	}
	for _, t := range c.pluginTexts() { // rule 12
		if !slices.Contains(reqs, t) {
			reqs = append(reqs, t)
		}
	}
	if c.pin == "" || !strings.HasPrefix(c.source, "oci://") {
		return reqs, nil
	}
	rs, err := in.parseRemote(c.source)
	if err != nil {
		return nil, err
	}
	q, ok := rs.(requirer)
	if !ok {
		return reqs, nil
	}
	more, err := q.Requires(ctx, c.pin)
	if err != nil {
		return nil, fmt.Errorf("%w: its dev.toolhive.skills.requires annotation: %w", ErrSourceUnavailable, err)
	}
	for _, m := range more {
		if m = "oci://" + m; !slices.Contains(reqs, m) {
			reqs = append(reqs, m)
		}
	}
	if _, err := skillmd.ParseRequires(strings.Join(reqs, " ")); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return reqs, nil
}

// mayRequire reports whether the SKILL.md in dir may list requirements:
// whether it holds the word "requires" or a backslash (a YAML escape
// may spell the key otherwise), or cannot be read here (skillmd then
// says why). Most skills hold neither, and are not parsed again.
func mayRequire(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	return err != nil || bytes.Contains(data, []byte(skillmd.RequiresKey)) || bytes.IndexByte(data, '\\') >= 0
}

// keptPluginReqs returns the requirements its plugins' dependencies
// made of the installed skill c, read again without its marketplace (a
// requirement naming its folder reads that folder only), as the lock
// file records them (recordedPluginReqs), written again at c's source
// (its reference, as an update moved it). Of a skill whose marketplace
// was read, which gives its plugins' dependencies as they are now, it
// returns none (rule 12).
func (cl *closure) keptPluginReqs(ctx context.Context, c *candidate) []string {
	if c.pluginReqs != nil || c.pluginsRead || c.plugins != nil || c.needs != nil || c.needsProblem != "" {
		return nil
	}
	var out []string
	for _, r := range cl.in.recordedPluginReqs(ctx, cl.lock, c) {
		text, err := pluginReqText(c, pluginDepAt(c, c.source, cl.lock.Skills[r.Skill].Subpath))
		if err != nil {
			text = r.Source
		}
		if !slices.Contains(out, text) {
			out = append(out, text)
		}
	}
	return out
}

// pluginsMoved reports whether c, read with its marketplace, requires
// by its plugins' dependencies other skills than the lock file records
// of it (rule 12): the installed skill then does not answer as it is,
// though its content is the same.
func (cl *closure) pluginsMoved(ctx context.Context, c *candidate) bool {
	if c.plugins == nil && !c.pluginsRead {
		return false
	}
	var had []string
	for _, r := range cl.in.recordedPluginReqs(ctx, cl.lock, c) {
		had = append(had, r.Source)
	}
	now := c.pluginTexts()
	slices.Sort(had)
	slices.Sort(now)
	return !slices.Equal(had, now)
}

// recordedPluginReqs returns the requirements the lock file records of
// the installed skill c (the entry of its name, of its source and
// folder) that its plugins' dependencies made (rule 12): each written
// as Add writes one, the skill's recorded source with the folder of
// another installed skill of that source, that the installed content's
// SKILL.md (the skill cache's copy, else the canonical copy) does not
// declare.
func (in *Installer) recordedPluginReqs(ctx context.Context, lock *lockFile, c *candidate) []lockRequirement {
	e := lock.Skills[c.name]
	if e == nil || len(e.Requires) == 0 || !in.sameSource(e.Source, c.source) || e.Subpath != c.subpath {
		return nil
	}
	dir, ok := in.cached(ctx, c.name, e)
	if !ok {
		dir = in.canonicalPath(c.name)
	}
	var own []string // what the installed SKILL.md declares
	if s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient)); err == nil {
		own, _ = s.Requires()
	}
	old := pluginDepAt(c, e.Source, e.Subpath)
	var out []lockRequirement
	for _, r := range e.Requires {
		dep := lock.Skills[r.Skill]
		if dep == nil || r.Skill == c.name || !in.sameSource(dep.Source, e.Source) || slices.Contains(own, r.Source) {
			continue
		}
		if was, err := pluginReqText(old, pluginDepAt(c, e.Source, dep.Subpath)); err == nil && was == r.Source {
			out = append(out, r)
		}
	}
	return out
}

// pluginDepAt is the skill of the folder sub of the source src, which c
// is a skill of, as pluginReqText reads one: of a folder source, its
// folder in c's source folder.
func pluginDepAt(c *candidate, src, sub string) *candidate {
	d := &candidate{source: src, subpath: sub}
	if c.root != "" {
		d.root, d.dir = c.root, filepath.Join(c.root, filepath.FromSlash(sub))
	}
	return d
}

// cycle fails naming the first cycle of requirements in the closure (a
// -> b -> c -> a).
func (cl *closure) cycle() error {
	state := map[string]int{} // 1: on the path, 2: done
	var path []string
	var visit func(name string) []string
	visit = func(name string) []string {
		state[name] = 1
		path = append(path, name)
		if n := cl.nodes[name]; n != nil {
			for _, e := range n.edges {
				switch state[e] {
				case 1:
					i := slices.Index(path, e)
					return append(slices.Clone(path[i:]), e)
				case 0:
					if found := visit(e); found != nil {
						return found
					}
				}
			}
		}
		path = path[:len(path)-1]
		state[name] = 2
		return nil
	}
	for _, n := range cl.order {
		if state[n.name] == 0 {
			if found := visit(n.name); found != nil {
				return fmt.Errorf("%w: the requirements make a cycle, %s; nothing was changed (a skill cannot require itself, also through others)", ErrRequirements, strings.Join(found, " -> "))
			}
		}
	}
	return nil
}

// chainText writes a chain of requirements: release -> changelog.
func chainText(chain []string) string { return strings.Join(chain, " -> ") }

// describeNode says how a skill entered the closure, for a conflict.
func describeNode(m *reqNode) string {
	if m.root {
		return m.name + " (named: " + describe(m.c.source, m.c) + ")"
	}
	return chainText(m.chain) + " (" + describe(m.via, m.c) + ")"
}

// describe is a requirement as written, with the version its range
// picked.
func describe(via string, c *candidate) string {
	if c != nil && c.version != "" {
		return via + ", which picks " + c.version
	}
	return via
}

// updateRequirements re-resolves the requirements of the skills an
// Update moves, wants (rule 17), with those their plugins' dependencies
// make, read from their marketplace again (updatePlugins, rule 12):
// each new version's requirements are read, recorded, and those no
// installed skill answers are installed as an Add installs them
// (checked by the policy, audited, strict), for every agent the moving
// skills are recorded for. It returns wants with them added, and
// cleanup, which removes what reading them extracted.
func (in *Installer) updateRequirements(ctx context.Context, wants []want, lenient bool) (_ []want, added bool, cleanup func(), _ error) {
	if len(wants) == 0 {
		return wants, false, func() {}, nil
	}
	roots := make([]*candidate, len(wants))
	var places []wantPlace
	for i := range wants {
		roots[i] = &wants[i].c
		for _, p := range wants[i].places {
			if !slices.ContainsFunc(places, func(q wantPlace) bool { return q.agent.ID == p.agent.ID }) {
				places = append(places, p)
			}
		}
	}
	lock, err := in.peekLock()
	if err != nil {
		return nil, false, nil, err
	}
	cleanupPlugins, err := in.updatePlugins(ctx, lock, wants, lenient) // rule 12
	if err != nil {
		return nil, false, nil, err
	}
	all, read, cleanupRead, err := in.requirements(ctx, roots, lenient, false, true)
	if err != nil {
		cleanupPlugins()
		return nil, false, nil, err
	}
	cleanup = func() {
		cleanupRead()
		cleanupPlugins()
	}
	// A root the closure replaced by a version every requirement admits
	// was read by it, and is audited as the skills it adds are.
	var replaced []*candidate
	for i := range wants {
		if all[i] != roots[i] {
			replaced = append(replaced, all[i])
		}
	}
	deps := all[len(roots):]
	if len(deps)+len(replaced) == 0 {
		return wants, false, cleanup, nil
	}
	checked, _, _, err := in.auditUse(ctx, append(slices.Clone(replaced), deps...), true)
	if err != nil {
		cleanup()
		return nil, false, nil, err
	}
	digests, err := in.keepPinned(ctx, checked)
	if err != nil {
		cleanup()
		return nil, false, nil, err
	}
	in.rememberSources(read, checked, digests)
	for i := range wants {
		if all[i] != roots[i] {
			wants[i].c = *all[i] // a version every requirement admits
		}
	}
	for _, c := range checked[len(replaced):] {
		wants = append(wants, want{c: *c, places: places})
	}
	return wants, len(checked) > len(replaced), cleanup, nil
}
