package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// Materializer is a skill.Materializer that has a [Checker] check every
// skill it materializes with another one (rules 1 to 6). Give it to an
// Agent with adaptor.WithSkillMaterializer. It is safe for concurrent use
// when the materializer it wraps is.
type Materializer struct {
	next    skill.Materializer
	checker *Checker
}

var (
	_ skill.ContentMaterializer = (*Materializer)(nil)
	_ skill.OriginChecker       = (*Materializer)(nil)
)

// NewMaterializer returns a materializer that checks each skill's origin
// with c ([Checker.CheckSource]), verifies its pin (the signers and
// commits rules of the [SourceCheck]), materializes it with next (nil:
// skill.NewDefaultSkillMaterializer()) and audits what next wrote,
// keeping each report under next's skill cache root when c keeps none on
// disk ([Checker.RememberReportsIn]). A nil c is NewChecker(nil): the
// zero policy. A refusal is a *[RefusedError].
func NewMaterializer(next skill.Materializer, c *Checker) *Materializer {
	if next == nil {
		next = skill.NewDefaultSkillMaterializer()
	}
	if c == nil {
		c = NewChecker(nil)
	}
	m := &Materializer{next: next}
	m.checker = c.RememberReportsIn(m.Root())
	return m
}

// Root returns the skill cache root of the materializer it wraps, when
// that one has a Root method (a *skill.Cache), else "": an Agent keeps
// its drivers' mounts under it.
func (m *Materializer) Root() string {
	if r, ok := m.next.(interface{ Root() string }); ok {
		return r.Root()
	}
	return ""
}

// CheckOrigin checks where s comes from against the policy, as
// [Materializer.MaterializeContent] does first, and reads nothing: a
// refusal is a *[RefusedError] naming s. An agent hands it to its
// requirement resolver (skill.Requirement.CheckOrigin), so that a
// required skill from a denied source is refused before the resolver
// contacts that source (rule 2).
//
// Its key need not be a valid runtime name yet (a requirement's key is
// known only as far as its text tells it): the refusal names the key.
func (m *Materializer) CheckOrigin(s skill.Skill) error {
	c := checked{s: s, name: s.Key, origin: source.OriginOf(s.Source)}
	if _, err := m.checker.CheckSource(c.origin); err != nil {
		return c.named(err)
	}
	return nil
}

// Materialize is [Materializer.MaterializeContent] without the digest.
func (m *Materializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	dir, _, err := m.MaterializeContent(ctx, s)
	return dir, err
}

// MaterializeContent checks where s comes from and verifies its pin
// before anything is fetched or written, materializes it and audits the
// folder (a report kept for its content digest is used instead), and
// returns the folder and its content digest.
func (m *Materializer) MaterializeContent(ctx context.Context, s skill.Skill) (dir, digest string, err error) {
	c, err := m.check(s)
	if err == nil {
		err = m.verifyPin(ctx, c)
	}
	if err != nil {
		return "", "", err
	}
	sh := newShown()
	if dir, digest, err = skillcache.MaterializeContent(cache.WithShow(ctx, sh.show()), m.next, s); err != nil {
		return "", "", err
	}
	rep, err := m.report(sh, c.name, dir, digest)
	if err != nil {
		return "", "", c.auditError(dir, err)
	}
	if err := m.judge(c, rep, dir); err != nil {
		return "", "", err
	}
	return dir, digest, nil
}

// MaterializeSet is [Materializer.MaterializeContent] of every skill of
// skills at once, as an Agent's run materializes its selection, and
// returns their folders and content digests in the order of skills.
// Every skill's origin is checked and its pin verified first (rules 2
// and 3), so nothing of a set that holds a refused skill is fetched or
// written; then the set is materialized by the materializer it wraps,
// with its MaterializeSet method when it has one (a *skill.Cache finds a
// warm set's inline skills and folders by the record of the set, rule 12
// of package skill), else skill by skill; then each skill's report is
// recalled by its content digest, or its tree audited, and the policy
// applied to it (rule 4), unless every tree of the set was audited clean
// before (# Kept reports, rule 8), when no report is needed. So every
// check runs on every call, as skill by skill, and a warm call audits
// and verifies nothing. Work that may wait
// (a pin's signatures, a materialization, an audit) is done at most
// GOMAXPROCS at a time. The first failure in the order of skills is
// returned: a *[RefusedError] naming its skill, or a
// *skill.SkillMaterializationError.
func (m *Materializer) MaterializeSet(ctx context.Context, skills []skill.Skill) (dirs, digests []string, err error) {
	checks := make([]checked, len(skills))
	errs := make([]error, len(skills))
	g := new(errgroup.Group)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, s := range skills {
		if checks[i], errs[i] = m.check(s); errs[i] != nil || !checks[i].pinned() {
			continue
		}
		g.Go(func() error {
			errs[i] = m.verifyPin(ctx, checks[i])
			return nil
		})
	}
	g.Wait()
	if err := first(errs); err != nil {
		return nil, nil, err
	}
	sh := newShown()
	if dirs, digests, err = m.materializeSet(cache.WithShow(ctx, sh.show()), skills); err != nil {
		return nil, nil, err
	}
	// A set whose every tree was audited clean before needs no report:
	// an empty one refuses under no policy (# Kept reports, rule 8).
	cs, whole := cleanSetOf(digests)
	if whole && m.checker.isClean(cs) {
		return dirs, digests, nil
	}
	// The reports remembered in memory are looked up at once (a warm
	// run finds them all there); report looks for the others.
	reps, remembered := m.checker.reports.getEach(digests)
	g = new(errgroup.Group)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range skills {
		if remembered[i] && digests[i] != "" {
			continue
		}
		g.Go(func() error {
			var err error
			if reps[i], err = m.report(sh, checks[i].name, dirs[i], digests[i]); err != nil {
				errs[i] = checks[i].auditError(dirs[i], err)
			}
			return nil
		})
	}
	g.Wait()
	for i := range skills {
		if errs[i] == nil {
			errs[i] = m.judge(checks[i], reps[i], dirs[i])
		}
	}
	if err := first(errs); err != nil {
		return nil, nil, err
	}
	if whole && clean(reps) {
		m.checker.keepClean(cs)
	}
	m.checker.Flush()
	return dirs, digests, nil
}

// setMaterializer is a materializer that materializes a whole set at
// once, as *skill.Cache does (rule 12 of package skill).
type setMaterializer interface {
	MaterializeSet(ctx context.Context, skills []skill.Skill) (dirs, digests []string, err error)
}

// materializeSet materializes skills with the materializer m wraps: at
// once when it is a setMaterializer, else one by one, GOMAXPROCS at a
// time, and returns absolute folders and their content digests, as
// skillcache.MaterializeContent does for one.
func (m *Materializer) materializeSet(ctx context.Context, skills []skill.Skill) (dirs, digests []string, err error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	sm, ok := m.next.(setMaterializer)
	if !ok {
		dirs, digests = make([]string, len(skills)), make([]string, len(skills))
		for i, s := range skills {
			g.Go(func() error {
				var err error
				dirs[i], digests[i], err = skillcache.MaterializeContent(gctx, m.next, s)
				return err
			})
		}
		return dirs, digests, g.Wait()
	}
	if dirs, digests, err = sm.MaterializeSet(ctx, skills); err != nil {
		return nil, nil, err
	}
	if len(dirs) != len(skills) || len(digests) != len(skills) {
		return nil, nil, fmt.Errorf("the materializer returned %d folders and %d digests for %d skills", len(dirs), len(digests), len(skills))
	}
	// A folder that is not absolute, or a missing digest, is made as
	// skillcache.MaterializeContent makes them.
	for i, s := range skills {
		if dirs[i] != "" && filepath.IsAbs(dirs[i]) && digests[i] != "" {
			continue
		}
		g.Go(func() error {
			var err error
			if dirs[i], digests[i], err = skillcache.MaterializeContent(gctx, fixed{dirs[i], digests[i]}, s); err != nil {
				return &skill.SkillMaterializationError{Key: s.Key, Cause: err}
			}
			return nil
		})
	}
	return dirs, digests, g.Wait()
}

// fixed is a materializer that returns one folder and digest.
type fixed struct{ dir, digest string }

func (f fixed) Materialize(context.Context, skill.Skill) (string, error) { return f.dir, nil }

func (f fixed) MaterializeContent(context.Context, skill.Skill) (string, string, error) {
	return f.dir, f.digest, nil
}

// first returns the first error of errs that is not nil.
func first(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checked is a skill whose origin the policy allowed: its runtime name,
// its origin and the check of its source.
type checked struct {
	s      skill.Skill
	name   string
	origin source.Origin
	sc     *SourceCheck
}

// check checks where s comes from (rules 1 and 2), before anything of it
// is fetched or written.
func (m *Materializer) check(s skill.Skill) (checked, error) {
	name, err := skill.RuntimeName(s)
	if err != nil {
		return checked{}, &skill.SkillMaterializationError{Key: s.Key, Cause: err}
	}
	c := checked{s: s, name: name, origin: source.OriginOf(s.Source)}
	if c.sc, err = m.checker.CheckSource(c.origin); err != nil {
		return checked{}, c.named(err)
	}
	return c, nil
}

// pinned reports whether the policy has rules for the skill's pin (rule
// 3): signers or commits.
func (c checked) pinned() bool { return len(c.sc.SignerRules())+len(c.sc.CommitRules()) > 0 }

// named returns err, a refusal, naming the skill c.
func (c checked) named(err error) error {
	var re *RefusedError
	if errors.As(err, &re) {
		for i := range re.Refusals {
			re.Refusals[i].Key, re.Refusals[i].Skill = c.s.Key, c.name
		}
		return re
	}
	return err
}

// auditError is the error of the audit of the skill c's folder dir.
func (c checked) auditError(dir string, err error) error {
	return &skill.SkillMaterializationError{Key: c.s.Key, RuntimeName: c.name, Cause: fmt.Errorf("audit %s: %w", dir, err)}
}

// judge applies the policy to rep, the audit of the skill c's folder
// dir (rule 4): a *RefusedError when findings refuse it. A clean set's
// skills are not judged: an empty report refuses under no policy (see
// Checker.Refusing).
func (m *Materializer) judge(c checked, rep audit.Report, dir string) error {
	if refusing := m.checker.Refusing(rep, c.name, c.origin); len(refusing.Findings) > 0 {
		return refused(Refusal{Key: c.s.Key, Skill: c.name, Origin: c.origin, Rule: m.checker.policy.FailOnRule(),
			Findings: refusing.Findings, Omitted: refusing.Omitted, Path: dir, names: m.checker.names})
	}
	return nil
}

// verifyPin checks every signers and commits rule of sc, the skill's
// [SourceCheck], against its pin (a [source.PinnedSource]'s; "" for
// another source) before anything of it is fetched or written. A verdict
// on a pin is remembered by the origin and the pin, so a warm run
// verifies nothing again.
func (m *Materializer) verifyPin(ctx context.Context, c checked) error {
	if !c.pinned() {
		return nil
	}
	s, sc := c.s, c.sc
	var pin string
	if p, ok := s.Source.(source.PinnedSource); ok {
		pin = p.Pin()
	}
	key := string(sc.origin.Kind) + "\x00" + sc.origin.Location + "\x00" + pin
	if _, ok := m.checker.verified.get(key); ok && pin != "" {
		return nil
	}
	if len(sc.SignerRules()) > 0 {
		if _, err := sc.verifySignatures(ctx, signatureVerifier(s.Source), pin); err != nil {
			return c.named(err)
		}
	}
	cv, _ := s.Source.(source.CommitVerifier)
	if _, err := verifyCommits(ctx, sc.origin, cv, pin, sc.CommitRules()); err != nil {
		return c.named(err)
	}
	if pin != "" {
		m.checker.verified.put(key, struct{}{})
	}
	return nil
}

// report returns the report of the tree of the skill name in dir, whose
// content digest is digest: the one remembered or kept by the digest
// (rule 6, # Kept reports), else the audit of the bytes the skill cache
// wrote for this call (sh), else the audit of the tree in dir; a new one
// is remembered and kept.
func (m *Materializer) report(sh *shown, name, dir, digest string) (audit.Report, error) {
	if r, ok := m.checker.recall(digest); ok {
		return r, nil
	}
	if r, ok := sh.report(name, digest); ok {
		m.checker.keep(digest, r)
		return r, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return audit.Report{}, err
	}
	defer root.Close()
	return m.checker.report(root.FS(), digest)
}
