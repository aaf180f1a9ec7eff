// Package driver holds the contracts between the SDK and an agent
// integration: the skill vocabulary shared by every package, the resolved
// skill set a run receives, and the one-method [Driver] interface.
//
// These names are fixed: code outside this module relies on them. Anything
// more a driver can do (streaming, resuming, inspecting skills) belongs in a
// separate optional interface that callers find by type assertion, the way
// io.WriterTo extends io.Writer.
//
// A program uses a driver from package claude, codex, gemini, qwen,
// opencode, cursor or copilot through package adaptor, which resolves
// the skills and calls [Driver.Run] with them. A complete program with a
// driver of its own, which shows what a run receives:
//
//	package main
//
//	import (
//		"context"
//		"fmt"
//		"log"
//
//		adaptor "github.com/agentadaptor/agentadaptor"
//		"github.com/agentadaptor/agentadaptor/driver"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	// lister is a Driver that lists the skills of a run instead of running an agent.
//	type lister struct{}
//
//	func (lister) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
//		for _, s := range req.Skills.Entries { // sorted by key
//			fmt.Println(s.Key, s.RuntimeName, s.Path) // Path is the folder holding SKILL.md
//		}
//		return &driver.Result{Text: "listed " + req.Skills.Fingerprint}, nil
//	}
//
//	func main() {
//		agent := adaptor.New(lister{}, adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text)
//	}
//
// The runnable example is in example_test.go (go doc does not print it;
// pkg.go.dev does): Example_driver, the same driver. Package drivertest
// has a recording Driver for tests.
//
// Each driver package of this module also describes the agent it runs
// in a [Descriptor] (claude.Descriptor, codex.Descriptor, ...): the one
// place of the agent's id and name, its program, the form of its session
// ids, its permission modes and how [Settings] map to its Config. A host
// that offers several agents builds each driver from Settings with
// Descriptor.New, as the agentskills command line does.
package driver

import "context"

// Reserved metadata keys interpreted by the SDK and by drivers.
const (
	// SkillMetadataRuntimeName is the metadata key that overrides the folder
	// name a skill is materialized under and mounted as.
	SkillMetadataRuntimeName = "_runtime_name"
	// SkillMetadataDisplayName is the metadata key for a human-readable label.
	SkillMetadataDisplayName = "_display_name"
)

// SkillSource is the open marker interface for a skill's origin. Any type
// with a SkillSource method qualifies; a materializer that understands it
// must be installed for it to be used.
type SkillSource interface {
	SkillSource()
}

// SkillRef is what a caller passes to declare a skill: either a complete
// [Skill] or a [SkillKey] that a provider resolves. The interface is sealed:
// only those two types implement it.
type SkillRef interface {
	skillRef()
}

// Skill is the full description of one skill: its identity (Key), its
// origin (Source), whether it is mandatory (Required) and why (Reason), and
// optional Metadata such as [SkillMetadataRuntimeName].
type Skill struct {
	Key      string
	Source   SkillSource
	Required bool
	Reason   string
	Metadata map[string]string
}

func (Skill) skillRef() {}

// SkillKey is a reference to a skill by its catalogue key, resolved at run
// time by the host's provider.
type SkillKey string

func (SkillKey) skillRef() {}

// ResolvedSkill is one skill ready on disk for a driver.
type ResolvedSkill struct {
	// Key is the skill's logical key.
	Key string
	// RuntimeName is the folder name the agent sees.
	RuntimeName string
	// Path is the absolute folder that holds SKILL.md.
	Path string
	// Required reports whether the skill is mandatory.
	Required bool
	// Reason says why the skill is present, when known.
	Reason string
	// Metadata is the skill's metadata as declared.
	Metadata map[string]string
	// Digest is the content digest of the folder at Path (see
	// skill.ContentDigest); empty when not known. A driver that mounts a
	// copy of the folder, where it cannot link to it, uses it to check
	// that the copy still holds this content. Shadow checks (a same-named
	// skill of the user's or the project's, identical or not) compare the
	// two folders file by file instead, within limits, as the user's
	// folder has no digest.
	Digest string
}

// ResolvedSkills is the complete skill set of one run.
type ResolvedSkills struct {
	// Entries are sorted by Key.
	Entries []ResolvedSkill
	// Fingerprint identifies the selected content: equal for the same
	// selection on any machine, different when any skill changes.
	Fingerprint string
}

// Request is what a driver receives for one run.
type Request struct {
	// Prompt is the user's instruction.
	Prompt string
	// Skills is the resolved skill set.
	Skills ResolvedSkills
	// Workspace is the folder the agent works in; empty means the driver's
	// default (usually the current folder).
	Workspace string
	// Resume is the id of an earlier session of the agent to continue;
	// empty starts a new one. A driver that cannot resume it returns an
	// error that wraps [ErrResumeRejected].
	Resume string
	// Events, when set, receives the run's events as they happen, one at a
	// time and in order, on a goroutine of the driver's, and never after
	// Run returns. It must not block for long: the agent's output waits
	// while it runs.
	Events func(Event)
	// CacheRoot is the root folder of the skill cache the skills were
	// materialized in. A driver keeps what it builds for a run (a skill
	// mount, a managed home) under it, beside the trees it links to, so
	// it cannot disagree with the materializer. Empty when the skills did
	// not come from a cache: the driver then uses the root it was
	// configured with.
	CacheRoot string
}

// Result is what a driver returns from a run.
type Result struct {
	// Text is the agent's final answer.
	Text string
	// SessionID identifies the agent's session, for [Request.Resume];
	// empty when the agent reports none.
	SessionID string
	// Usage is the token usage the agent reports; nil when it reports none.
	Usage *Usage
	// CostUSD is the cost of this run alone, in US dollars, as the agent
	// reports it: never that of the earlier runs of a resumed session.
	// nil when the agent reports none, or reports only a session's running
	// total that the driver cannot split (see SessionCostUSD).
	CostUSD *float64
	// SessionCostUSD is the cost of the whole session so far, in US
	// dollars, earlier runs of a resumed session included, for an agent
	// that reports such a running total (Claude Code's total_cost_usd);
	// nil otherwise. For a run that starts a session it equals CostUSD.
	SessionCostUSD *float64
	// ExitCode is the agent process's exit status (0 on success).
	ExitCode int
}

// Usage counts the tokens of a run as the agent reports them.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens,omitempty"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens,omitempty"`
}

// Driver runs an agent. Implementations must be safe for concurrent use.
type Driver interface {
	Run(ctx context.Context, req *Request) (*Result, error)
}
