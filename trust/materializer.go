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
// with c, materializes it with next (nil:
// skill.NewDefaultSkillMaterializer()), checks its signers and audits
// what next wrote. A nil c is NewChecker(nil): the zero policy. A refusal
// is a *[RefusedError].
func NewMaterializer(next skill.Materializer, c *Checker) *Materializer {
	if next == nil {
		next = skill.NewDefaultSkillMaterializer()
	}
	if c == nil {
		c = NewChecker(nil)
	}
	return &Materializer{next: next, checker: c}
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

// MaterializeContent checks where s comes from before anything is
// fetched or written, materializes it, checks its signers and audits the
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
	if err := m.checker.Check(origin); err != nil {
		return "", "", named(err)
	}
	if dir, digest, err = skillcache.MaterializeContent(ctx, m.next, s); err != nil {
		return "", "", err
	}
	if err := m.checkSigners(ctx, s, origin, digest); err != nil {
		return "", "", named(err)
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

// checkSigners checks every signers and commits rule the policy has for
// the skill's origin against its pin. A verdict is remembered by the
// content digest and the origin, so a warm run verifies nothing again.
func (m *Materializer) checkSigners(ctx context.Context, s skill.Skill, origin source.Origin, digest string) error {
	p := m.checker.policy
	rules, err := p.SignerRules(origin)
	if err == nil && len(rules)+len(p.CommitRules(origin)) == 0 {
		return nil
	}
	key := digest + "\x00" + string(origin.Kind) + "\x00" + origin.Location + "\x00" + origin.Display
	if _, ok := m.checker.signers.get(key); ok && err == nil && origin.Pinned {
		return nil
	}
	var pin string
	if p, ok := s.Source.(source.PinnedSource); ok {
		pin = p.Pin()
	}
	sv := signatureVerifier(s.Source)
	if err := m.checker.verifySignatures(ctx, origin, sv, pin); err != nil {
		return err
	}
	cv, _ := s.Source.(source.CommitVerifier)
	if _, err := verifyCommits(ctx, origin, cv, pin, p.CommitRules(origin)); err != nil {
		return err
	}
	if origin.Pinned {
		m.checker.signers.put(key, struct{}{})
	}
	return nil
}

// audit returns the report of the tree in dir, remembered by its
// content digest.
func (m *Materializer) audit(dir, digest string) (audit.Report, error) {
	if r, ok := m.checker.reports.get(digest); ok {
		return r, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return audit.Report{}, err
	}
	defer root.Close()
	return m.checker.report(root.FS(), digest)
}
