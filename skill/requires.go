package skill

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
)

// MetadataRequires is the Metadata key that [WithRequires] sets to
// "true": the skill's requirements, and theirs, are selected with it
// (see "Requirements" in the package doc). Like [MetadataRuntimeName]
// it is reserved; a value other than "true" or "" fails the run with
// [ErrRequirement].
const MetadataRequires = "_requires"

// ErrRequirement identifies a requirement of a skill that cannot be met:
// one that cannot be resolved, a cycle, or a closure over its limits.
// The error is a *[RequirementError] naming the chain of skills that
// asked for it.
var ErrRequirement = errors.New("agentadaptor: skill requirement cannot be met")

// WithRequires returns s marked so that an agent selects, with it, the
// skills its SKILL.md requires (metadata.requires), and theirs, as
// context.WithValue returns a derived context:
//
//	adaptor.WithSkills(skill.WithRequires(skill.Dir("./skills/release")))
//
// It sets Metadata[MetadataRequires] to "true" on a copy of the
// Metadata; s itself is not changed. adaptor.WithRequires does the same
// for every skill of an agent or of a run.
func WithRequires(s Skill) Skill {
	md := maps.Clone(s.Metadata)
	if md == nil {
		md = make(map[string]string, 1)
	}
	md[MetadataRequires] = "true"
	s.Metadata = md
	return s
}

// Requirement is one entry of a skill's metadata.requires, as a
// [RequirementResolver] is asked to resolve it.
type Requirement struct {
	// Text is the entry as written: a source as agentskills add takes
	// it, with a version range where it names one
	// ("github:acme/skills/changelog@^1", "oci://ghcr.io/acme/semver:^2").
	Text string
	// By is the skill whose SKILL.md lists it, as it was declared or
	// resolved (its Source says where it came from).
	By Skill
	// Chain is the keys of the skills that led to it, from a skill the
	// agent or the run named (or its provider returned) to By.
	Chain []string
	// CheckOrigin, when not nil, checks where a skill comes from before
	// anything of it is read, as the agent's materializer would when it
	// is an [OriginChecker] (package trust's Materializer is one; the
	// agent sets it then). A resolver that reads the network calls it
	// first, with a skill whose source says where the requirement leads
	// (a source.OriginSource, pinned when the resolver pins what it
	// returns), and returns its error, a refusal, as it is: a source the
	// policy denies is never contacted.
	CheckOrigin func(Skill) error
}

// OriginChecker is an optional interface for a [Materializer] that checks
// where a skill comes from (its source's origin, package source) before it
// reads anything of it, as package trust's Materializer does. An agent
// that resolves requirements hands its CheckOrigin to the resolver
// ([Requirement].CheckOrigin), so a required skill from a denied source
// is refused before the resolver contacts that source.
type OriginChecker interface {
	// CheckOrigin returns nil when s's origin may be read, else the
	// refusal the materializer would return for s.
	CheckOrigin(s Skill) error
}

// RequirementResolver turns a requirement that names a published skill
// into a skill, as adaptor.WithRequirementResolver installs one. The
// returned skill needs a key (the requirement's name, which one skill of
// a run has) and a source; a source that says where it comes from and
// what pins it (as the skills of packages source/git, source/github and
// source/oci do) lets a trust policy check it as it checks any other.
// Package source/requirement has one for GitHub, git and OCI sources.
type RequirementResolver interface {
	// ResolveRequirement returns the skill r names. Its errors are
	// returned to the run, which names the chain that asked for it.
	ResolveRequirement(ctx context.Context, r Requirement) (Skill, error)
}

// RequirementMerger is implemented by a [RequirementResolver] that can
// resolve several requirements of one skill at once, at a version every
// one of them admits: ^1 and ~1.2 at the highest 1.2.x when 1.3 exists,
// where each alone picks another. An agent asks it when two requirements
// resolve to one key at different versions (package adaptor,
// "Requirements").
type RequirementMerger interface {
	// MergeRequirements returns the one skill that all of rs name, at
	// the highest version all of their ranges admit. ok is false when
	// they do not all name one skill by a version range (other
	// repositories or folders, a branch or a commit among them): the
	// agent then reports the conflict. An error (no version all of them
	// admit, a refusal of CheckOrigin, a source that cannot be read)
	// fails the run, naming each requirement's chain. An agent does not
	// ask it to merge requirements with a skill it was given by name.
	MergeRequirements(ctx context.Context, rs []Requirement) (s Skill, ok bool, err error)
}

// RequirementResolverFunc is a function that is a [RequirementResolver].
type RequirementResolverFunc func(ctx context.Context, r Requirement) (Skill, error)

// ResolveRequirement calls f.
func (f RequirementResolverFunc) ResolveRequirement(ctx context.Context, r Requirement) (Skill, error) {
	return f(ctx, r)
}

// RequirementError is a requirement that cannot be met, or a skill
// selected for a requirement that failed (was refused by the trust
// checks, could not be materialized, cannot be loaded), with the chain
// of skills that asked for it.
type RequirementError struct {
	// Chain is the keys of the skills that led to the failure, from a
	// skill the agent or the run named to the one whose requirement
	// failed or, when it was resolved, the one it resolved to.
	Chain []string
	// Requirement is the entry of metadata.requires that failed, as
	// written; "" when the failure is the skill at the end of Chain.
	Requirement string
	// Err is what failed: for a requirement (Requirement set), an error
	// wrapping [ErrRequirement], and the resolver's error when it failed;
	// for a skill, the error of its materialization, trust check or
	// SKILL.md check, as a run returns it for a skill named directly.
	Err error
}

// ChainText is the chain as messages show it: "release -> changelog".
func (e *RequirementError) ChainText() string { return strings.Join(e.Chain, " -> ") }

// Error reads "requirement chain CHAIN: ERR", with the requirement
// after the chain when there is one, shown without the credentials a
// URL in it may hold:
//
//	requirement chain release -> changelog: agentadaptor: skill "changelog" from ... refused by the trust policy, ...
//	requirement chain release, requirement "../x": agentadaptor: skill requirement cannot be met: ...
func (e *RequirementError) Error() string {
	if e.Requirement == "" {
		return fmt.Sprintf("requirement chain %s: %v", e.ChainText(), e.Err)
	}
	return fmt.Sprintf("requirement chain %s, requirement %q: %v", e.ChainText(), sourceloc.Redact(e.Requirement), e.Err)
}

// Unwrap returns Err.
func (e *RequirementError) Unwrap() error { return e.Err }

// Refused reports whether Err is a trust refusal (an error with a
// Refused method that reports true), so an agent returns the error as
// the refusal it holds.
func (e *RequirementError) Refused() bool {
	var r interface{ Refused() bool }
	return errors.As(e.Err, &r) && r.Refused()
}
