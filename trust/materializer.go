package trust

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentadaptor/agentadaptor/audit"
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

var _ skill.ContentMaterializer = (*Materializer)(nil)

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

// Materialize is [Materializer.MaterializeContent] without the digest.
func (m *Materializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	dir, _, err := m.MaterializeContent(ctx, s)
	return dir, err
}

// MaterializeContent checks where s comes from and verifies its pin
// before anything is fetched or written, materializes it and audits the
// folder, and returns the folder and its content digest.
func (m *Materializer) MaterializeContent(ctx context.Context, s skill.Skill) (dir, digest string, err error) {
	name, err := skill.RuntimeName(s)
	if err != nil {
		return "", "", &skill.SkillMaterializationError{Key: s.Key, Cause: err}
	}
	origin := source.OriginOf(s.Source)
	named := func(err error) error {
		var re *RefusedError
		if errors.As(err, &re) {
			for i := range re.Refusals {
				re.Refusals[i].Key, re.Refusals[i].Skill = s.Key, name
			}
			return re
		}
		return err
	}
	sc, err := m.checker.CheckSource(origin)
	if err != nil {
		return "", "", named(err)
	}
	if err := m.verifyPin(ctx, s, sc); err != nil {
		return "", "", named(err)
	}
	if dir, digest, err = skillcache.MaterializeContent(ctx, m.next, s); err != nil {
		return "", "", err
	}
	rep, err := m.audit(dir, digest)
	if err != nil {
		return "", "", &skill.SkillMaterializationError{Key: s.Key, RuntimeName: name, Cause: fmt.Errorf("audit %s: %w", dir, err)}
	}
	if refusing := m.checker.Refusing(rep, name, origin); len(refusing.Findings) > 0 {
		return "", "", refused(Refusal{Key: s.Key, Skill: name, Origin: origin, Rule: m.checker.policy.FailOnRule(),
			Findings: refusing.Findings, Omitted: refusing.Omitted, Path: dir})
	}
	return dir, digest, nil
}

// verifyPin checks every signers and commits rule of sc, the skill's
// [SourceCheck], against its pin (a [source.PinnedSource]'s; "" for
// another source) before anything of it is fetched or written. A verdict
// on a pin is remembered by the origin and the pin, so a warm run
// verifies nothing again.
func (m *Materializer) verifyPin(ctx context.Context, s skill.Skill, sc *SourceCheck) error {
	if len(sc.SignerRules())+len(sc.CommitRules()) == 0 {
		return nil
	}
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
			return err
		}
	}
	cv, _ := s.Source.(source.CommitVerifier)
	if _, err := verifyCommits(ctx, sc.origin, cv, pin, sc.CommitRules()); err != nil {
		return err
	}
	if pin != "" {
		m.checker.verified.put(key, struct{}{})
	}
	return nil
}

// audit returns the report of the tree in dir, remembered and kept by
// its content digest (rule 6, # Kept reports): a tree whose report is
// kept is not opened.
func (m *Materializer) audit(dir, digest string) (audit.Report, error) {
	if r, ok := m.checker.recall(digest); ok {
		return r, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return audit.Report{}, err
	}
	defer root.Close()
	return m.checker.report(root.FS(), digest)
}
