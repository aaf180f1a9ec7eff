// Package adaptor runs coding agents with skills.
//
// An [Agent] pairs a [driver.Driver], one agent integration (package
// claude, codex, gemini or qwen), with the skills it should have, and runs
// it on a prompt. A complete program:
//
//	package main
//
//	import (
//		"context"
//		"fmt"
//		"log"
//
//		adaptor "github.com/agentadaptor/agentadaptor"
//		"github.com/agentadaptor/agentadaptor/claude"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		drv := claude.Driver(claude.Config{}) // or codex.Driver, gemini.Driver, qwen.Driver
//		agent := adaptor.New(drv,
//			adaptor.WithSkills(
//				skill.Dir("./skills/review"), // a folder holding SKILL.md
//				skill.Inline("tone", "---\nname: tone\ndescription: Answer warmly.\n---\nBe warm and brief.\n"),
//			),
//		)
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text)
//	}
//
// Skills also come from io/fs trees such as embed.FS (skill.FS), archives
// (skill.Archive) and a catalogue that resolves keys (skill.Key with
// [WithSkillProvider]): see package skill. Every SKILL.md starts with
// front matter that names the skill and says when to use it; one an agent
// cannot load fails the run before the agent starts ([ErrInvalidSkill]).
//
// # Examples
//
// Runnable examples are in example_test.go. go doc does not print them;
// pkg.go.dev shows them, and go test -run Example -v runs them:
//
//   - ExampleWithEvents: follow the agent's work as it happens.
//   - ExampleAgent_Thread: a conversation that resumes its session from
//     run to run, kept in a file store.
//   - ExampleWithResume: resume a session by its id, and the refusal of
//     a resume with other skills.
//   - ExampleInvalidSkillError: a skill without front matter, refused
//     before the agent starts.
//   - ExampleWithPolicy: a skill the audit of a trust policy refuses
//     before the agent starts.
//
// # Resolution
//
// Before every run, and before the driver is called, the agent resolves its
// skills:
//
//  1. Merge: the agent's references, then the run's. A run adds skills and
//     can never remove one; nothing from one run leaks into the next.
//  2. Check: a blank key (after trimming) fails with
//     skill.ErrSkillKeyMissing, a nil source with
//     skill.ErrSkillSourceMissing.
//  3. Two declarations of one key are the same skill only if key, Required,
//     Reason, Metadata and source all match, sources by the rules of
//     skill.SourceDiff: folder sources by cleaned absolute path, inline
//     sources by exact text, FS sources by the same fs.FS value and root,
//     archives only when format, subpath and a non-empty fingerprint
//     match. Otherwise the run fails with a
//     *skill.SkillKeyConflictError whose Sources label each declaration
//     ("agent", "run", "provider") and whose Detail says what differs.
//     Conflicts are found before anything is materialized.
//  4. The provider's GetSkills is called with the bare keys (skill.Key) that
//     no complete declaration satisfies, even when there are none, and
//     everything it returns is selected. Provider errors come back
//     unchanged. A requested key it does not return, or any such key with
//     no provider, fails with skill.ErrSkillNotFound naming the key.
//  5. Two selected skills with one runtime name fail with
//     skill.ErrRuntimeNameConflict, naming both keys.
//  6. The selected skills are materialized concurrently, at most GOMAXPROCS
//     at a time. Any failure is a *skill.SkillMaterializationError with
//     Key, RuntimeName and Cause, except a refusal of the trust policy,
//     a *[PolicyError] (see "Trust"), and the driver is not called.
//  7. Each selected skill's SKILL.md is read as agents read it (package
//     skillmd, Lenient mode). A skill with an error there (no front
//     matter, front matter that is not closed or not YAML, no
//     description, a blank or malformed name, ...) fails the run with an
//     *[InvalidSkillError] (errors.Is [ErrInvalidSkill]) naming the skill
//     and every problem, and the driver is not called; warnings (a
//     missing name, taken from the folder, or one that differs from it)
//     do not. A verdict is remembered by the skill's content digest, so a
//     warm run reads no SKILL.md again.
//  8. The driver receives [driver.ResolvedSkills]: entries sorted by key,
//     each with its absolute folder, and a Fingerprint that is equal for the
//     same selected content on any machine and changes when the selection
//     or any skill's content changes. Folder paths are not part of it.
//
// # Trust
//
// An agent given [WithPolicy] enforces a trust policy (package policy:
// the user's file and the project's, as policy.Load reads them) on every
// skill a run or [Agent.Inspect] selects, before any driver starts; a
// caller without an Agent wraps its materializer with
// [NewPolicyMaterializer] for the same checks. The rules:
//
//  1. Every skill has an origin ([OriginOf]): its source's own, when the
//     source implements [Origin] (the skills of oci.Artifact.TrustedSkill
//     do: kind "oci", pinned to the manifest digest; and those of git's
//     and github's Client.TrustedSkill: kind "git" or "github", pinned to
//     the commit); else kind "local" for a folder (skill.Dir), by its
//     absolute path with links resolved (its real path, as a local
//     pattern's is: package source, rule 15); a git skill from a file
//     URL is at its repository's real path too; else kind "inline" for a skill with no location
//     (skill.Inline, skill.FS); else kind "unknown": an archive without
//     an origin, as oci.Skill, oci.Artifact.Skill and the Client.Skill
//     of git and github build, or a source of another type. No pattern
//     matches an unknown source, so a policy with sources.allow,
//     sources.pinned or a signers rule refuses it, saying how to give it
//     an origin (rule 5 of package policy). An origin's location is
//     canonical (rule 15 of package policy: oci://ghcr.io:0443/acme/x is
//     ghcr.io/acme/x), and the policy makes it canonical again whoever
//     built it, so every rule applies to every spelling of its sources;
//     one that cannot be made canonical is refused as an unknown source
//     is.
//  2. The policy checks the origin (policy.Policy.Check: the sources it
//     allows, whether they must be pinned) before the skill is
//     materialized, so nothing is fetched or written for a refused one.
//  3. When the policy names signers for the origin
//     (policy.Policy.Signers), the source must implement
//     [SignatureVerifier] and a signature must satisfy every one of the
//     policy's rules; a source that carries no signature is refused with
//     signature.ErrUnsigned. When it names signed commits for the origin
//     (policy.Policy.CommitRules, a git or github source), the source
//     must implement [CommitVerifier] and its pinned commit must be
//     signed by a key of every such rule; a source with no commit to
//     check is refused with source.ErrCommitSignature.
//  4. The materialized tree is audited (audit.Tree). A finding at or
//     above the policy's threshold (policy.Policy.FailOn, high by
//     default) refuses the skill, unless the policy accepts it
//     (policy.Policy.Accepted) or its rule is allowed with [AllowRisk].
//  5. A refusal is a *[PolicyError] (errors.Is [ErrPolicy] and
//     policy.ErrDenied) that names the skill, its source, the rule, the
//     policy files and, for the audit, every refusing finding with its
//     file and line as the audit keeps them (at most 100 of a rule and
//     1,000 in all), counting the rest (PolicyError.Omitted: "and 31,204
//     more"). The run fails with it and no driver starts.
//  6. Audit findings are remembered by the tree's content digest, and
//     verified signers of a pinned source by digest and source, so a warm
//     run neither audits nor verifies again.
//  7. Without WithPolicy nothing of this is done: no audit, no check.
//
// What holds on Linux holds on macOS and Windows: the audit reads the
// tree through an os.Root, and nothing here depends on the system.
//
// # Runs, events and threads
//
// The driver receives the prompt, the resolved skills and the workspace,
// and answers with the final text, the agent's session id, token usage and
// cost when the agent reports them. [WithEvents] delivers what the agent
// does as it happens (driver.Event: text and text deltas, thinking, tool
// calls and results, the skills the agent loaded, the result, errors).
// Errors a caller may act on are typed in package driver (the process
// failed, the agent reported an error, a resume was rejected, a mounted
// skill is not seen or is shadowed); a run stopped by its context returns
// an error for which errors.Is(err, context.Canceled) holds.
//
// [WithResume] continues a session by its id, and an [Agent.Thread] does
// that for a conversation that spans runs. Both resume only while the
// skills and workspace are those the session started with (see
// "Thread compatibility" on [Thread]); WithResume can hold a session to
// that only when the agent's [ThreadStore] has a record of it, as it has
// of every session the agent's runs (or others sharing its store)
// started. [Result.CostUSD] is the run's own cost, also when it resumes a
// session, and [Result.SessionCostUSD] the session's running total, when
// the agent reports one. [Result.Usage] is as the driver reports it: the
// run's own for Claude Code, the whole thread's for a resumed Codex run
// (see package codex).
//
// An Agent is safe for concurrent use.
//
// # Other systems
//
// Resolution, the skill check, threads and their stores behave the same on
// Linux, macOS and Windows; what differs is each driver's (see its
// package doc) and the cache's (see package skill).
package adaptor
