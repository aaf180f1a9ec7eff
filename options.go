package adaptor

import (
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// agentConfig collects the options given to New.
type agentConfig struct {
	refs         []skill.Ref
	provider     skill.Provider
	materializer skill.Materializer
	workspace    string
	events       []func(driver.Event)
	threads      ThreadStore
	requires     bool
	resolver     skill.RequirementResolver
}

// callConfig collects the options given to one Run.
type callConfig struct {
	refs      []skill.Ref
	workspace string
	events    []func(driver.Event)
	resume    string
	requires  bool
}

// Option configures an Agent at construction. Options that apply to a
// single run are [CallOption]s; a [SharedOption] is both.
type Option interface {
	applyAgent(*agentConfig)
}

// CallOption configures one call to [Agent.Run], [Thread.Run] or
// [Agent.Inspect].
type CallOption interface {
	applyCall(*callConfig)
}

// SharedOption is accepted both by [New] and by [Agent.Run].
type SharedOption interface {
	Option
	CallOption
}

type agentOption func(*agentConfig)

func (f agentOption) applyAgent(c *agentConfig) { f(c) }

type skillsOption []skill.Ref

func (o skillsOption) applyAgent(c *agentConfig) { c.refs = append(c.refs, o...) }
func (o skillsOption) applyCall(c *callConfig)   { c.refs = append(c.refs, o...) }

// WithSkills declares skills: complete definitions built with skill.Dir,
// skill.FS, skill.Inline or skill.Archive, and catalogue keys built with
// skill.Key for the provider to resolve. Skills append: given to New they
// apply to every run; given to Run they add to the agent's for that run
// only, and can never remove one. Several WithSkills options accumulate.
// Default: no skills beyond those the provider adds.
func WithSkills(refs ...skill.Ref) SharedOption {
	return skillsOption(refs)
}

// WithSkillProvider installs the provider that resolves skill.Key
// references. It is called before every run, even when no key is requested,
// so that it can add required skills. Default: none, and any key fails
// with skill.ErrSkillNotFound.
func WithSkillProvider(p skill.Provider) Option {
	return agentOption(func(c *agentConfig) { c.provider = p })
}

// WithSkillMaterializer installs the materializer that writes skills to
// disk before a run. Default: skill.NewDefaultSkillMaterializer(), created
// once per Agent. A materializer with a method Root() string, as
// *skill.Cache has, keeps its skills under that cache root: the driver
// then keeps what it builds for a run (a skill mount, a managed home)
// under the same root (driver.Request.CacheRoot), so a materializer that
// wraps a *skill.Cache forwards Root to keep them together. Without one,
// the driver uses the root it was configured with.
func WithSkillMaterializer(m skill.Materializer) Option {
	return agentOption(func(c *agentConfig) { c.materializer = m })
}

type workspaceOption string

func (o workspaceOption) applyAgent(c *agentConfig) { c.workspace = string(o) }
func (o workspaceOption) applyCall(c *callConfig)   { c.workspace = string(o) }

// WithWorkspace sets the folder the agent works in, passed to the driver as
// driver.Request.Workspace (made absolute). Given to Run it overrides the
// agent's for that run. Default: empty, the driver's own default.
func WithWorkspace(dir string) SharedOption {
	return workspaceOption(dir)
}

type eventsOption func(driver.Event)

func (o eventsOption) applyAgent(c *agentConfig) {
	if o != nil {
		c.events = append(c.events, o)
	}
}

func (o eventsOption) applyCall(c *callConfig) {
	if o != nil {
		c.events = append(c.events, o)
	}
}

// WithEvents has f receive the run's events as they happen: the driver's
// (text, tool calls, the result, ... see driver.Event) and the agent's own
// ([ThreadRestartedEvent]). f is called from one goroutine at a time, in
// order, and never after Run returns; the agent's output waits while it
// runs, so it should not block. Given to New it applies to every run;
// given to Run it is added for that run. Several accumulate and are called
// in the order given. Default: none, and drivers do not build events
// nobody receives.
func WithEvents(f func(driver.Event)) SharedOption {
	return eventsOption(f)
}

type resumeOption string

func (o resumeOption) applyCall(c *callConfig) { c.resume = string(o) }

// WithResume has the run continue the agent's session id, as returned in
// [Result.SessionID]. Before the driver is called, the run is held to the
// rule of "Thread compatibility" on [Thread]: every run of an Agent (plain
// or in a thread) records its session's skills and workspace in the
// agent's [ThreadStore] under [SessionKey], and a resume of a recorded
// session with other skills or in another workspace fails with a
// *[ThreadChangedError] (errors.Is [ErrThreadChanged]) without starting
// the agent.
//
// A session the store has no record of is NOT checked: one started by
// another program, or by another Agent or process while the store is the
// default, in-memory one. Agents that share sessions should share a store
// (for example a [FileThreadStore] on one folder); a [Thread] keeps its
// own record and starts afresh, or refuses, when a session cannot be
// resumed.
//
// The driver fails with driver.ErrResumeRejected when the agent will not
// resume the session. An id that does not have the form of the agent's
// session ids (a UUID for most agents: the driver's descriptor says)
// never reaches the agent:
// the driver refuses it before the start with an error that wraps both
// driver.ErrResumeRejected and driver.ErrInvalidSessionID, so an id from
// an untrusted client is safe to pass. Default: a new session.
func WithResume(sessionID string) CallOption {
	return resumeOption(sessionID)
}

// WithThreadStore sets where the agent's threads keep their state (see
// [Thread]) and where the agent records each session's skills and
// workspace for [WithResume] (under [SessionKey]). Default: a
// [MemoryThreadStore] of the agent's own.
func WithThreadStore(s ThreadStore) Option {
	return agentOption(func(c *agentConfig) { c.threads = s })
}

type requiresOption struct{}

func (requiresOption) applyAgent(c *agentConfig) { c.requires = true }
func (requiresOption) applyCall(c *callConfig)   { c.requires = true }

// WithRequires has every skill of the agent (given to New) or of one run
// (given to Run) selected with the skills its SKILL.md requires
// (metadata.requires), and theirs: the closure of "Requirements" in the
// package doc. skill.WithRequires does this for one skill. Default: a
// skill's requirements are not followed unless it is marked with
// skill.WithRequires.
func WithRequires() SharedOption {
	return requiresOption{}
}

// WithRequirementResolver installs the resolver that turns a requirement
// naming a published skill (github:, git+, oci://) into a skill; package
// source/requirement has one. Requirements of a folder or an fs.FS tree
// that are relative to it ("./x", "../x") need none. Default: none, and
// a requirement that needs one fails with skill.ErrRequirement.
func WithRequirementResolver(r skill.RequirementResolver) Option {
	return agentOption(func(c *agentConfig) { c.resolver = r })
}
