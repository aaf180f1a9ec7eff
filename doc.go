// Package adaptor runs coding agents with skills.
//
// An [Agent] pairs a [driver.Driver], one agent integration (package
// claude, codex, gemini, qwen, opencode, cursor or copilot), with the
// skills it should have, and runs it on a prompt. A complete program:
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
//		drv := claude.Driver(claude.Config{}) // or the Driver of codex, gemini, qwen, opencode, cursor, copilot
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
//   - ExampleWithRequires: a skill selected with the skills its
//     SKILL.md requires, and theirs.
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
//     at a time. A materializer with a MaterializeSet method, as the
//     default one (a *skill.Cache) has, is given the whole selection at
//     once: a warm run then finds its inline skills' trees and its
//     folders by the record of the set (rule 12 of package skill), a stat
//     of each of their files and folders, and reads and hashes none of
//     them, and it returns what materializing each would. Package trust's
//     checking materializer has one too, and checks the whole set on
//     every run (its origins, pins and audit reports) around the
//     Cache's. Any other materializer is called for each skill. Any failure is a
//     *skill.SkillMaterializationError with
//     Key, RuntimeName and Cause, except a materializer's refusal (an
//     error with a Refused method that reports true, as
//     *trust.RefusedError has; see "Trust"), returned as it is, and the
//     driver is not called.
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
// # Requirements
//
// A skill may need other skills, and say so in its SKILL.md:
// metadata.requires lists them, each a source as agentskills add takes
// it, with a version range where it names one (package skillmd,
// "Requirements"):
//
//	metadata:
//	  requires: "../changelog github:acme/skills/semver@^2 oci://ghcr.io/acme/lint:^1"
//
// An agent selects a skill with the skills it requires, and theirs (the
// closure), when asked:
//
//	agent := adaptor.New(drv,
//		adaptor.WithRequirementResolver(resolver), // package source/requirement: github:, git+, oci://
//		adaptor.WithSkills(skill.WithRequires(skill.Dir("./skills/release"))),
//	)
//
// The closure is found by these rules:
//
//  1. Which skills: one marked with skill.WithRequires; every skill of
//     every run of an agent given [WithRequires] at New, or of one run
//     given it at Run; and every skill selected for a requirement. Other
//     skills' requirements are not read.
//  2. The closure is found breadth first. The named skills (the
//     agent's, the run's, the provider's) are materialized as rule 6 of
//     "Resolution" says; then the SKILL.md of each whose requirements
//     are followed is read and each requirement, in the order listed,
//     resolved; the new skills are materialized, theirs read, and so on.
//     A named skill that a followed skill requires has its requirements
//     followed too.
//  3. A requirement that starts "./" or "../" (or is "." or "..") is a
//     path relative to the requiring skill's folder, with "/" between
//     its elements and no backslash or colon (which fail with
//     skill.ErrRequirement): for a folder of this machine (a source of
//     type skill.PathSource, as skill.Dir makes), skill.Dir of that path,
//     keyed by its base name. A source of another type, even one with a
//     SkillPath method (a published skill held as a folder, whose source
//     says where it was published), has no folder a requirement is
//     relative to: it names its requirements by published source.
//  4. For an fs.FS tree (skill.FS), it is skill.FS of the same fs.FS at
//     the path joined to the root; a path that leaves the fs.FS fails
//     with skill.ErrRequirement.
//  5. Every other requirement, and a relative one of any other kind of
//     skill (inline, archive, published), is given to the resolver of
//     [WithRequirementResolver] as a skill.Requirement (its text, the
//     skill that lists it, the chain that led to it), once per run for
//     each text of each skill. When the agent's materializer is a
//     skill.OriginChecker (package trust's Materializer is), the
//     requirement carries its check (CheckOrigin), so the resolver
//     refuses a source the policy denies before it contacts it; the run
//     fails with that refusal as rule 12 says, the refused skill at the
//     end of the chain. Without a resolver it fails with
//     skill.ErrRequirement. A path is only a requirement
//     when written "./" or "../": OWNER/REPO alone names a GitHub
//     repository (package source, rule 21).
//  6. The resolver's skill must have a key and a source; one without
//     fails with skill.ErrRequirement (and skill.ErrSkillKeyMissing or
//     skill.ErrSkillSourceMissing).
//  7. One skill per key. A requirement that resolves to a key already
//     selected is that skill when the two name the same source
//     (skill.SourceDiff), and the declaration selected first keeps its
//     Required, Reason and Metadata; otherwise
//     the run fails with a *skill.SkillKeyConflictError whose Sources
//     name each declaration: "agent", "run", "provider", or the chain of
//     a requirement ("release -> changelog"). Two requirements of one
//     published skill agree when they resolve to the same pin: a range
//     resolves to the highest version it admits, so ^1 and ^1.2 mostly
//     agree. When they do not (~1.2 and ^1 once 1.3 exists), a resolver
//     that is a skill.RequirementMerger (package source/requirement's
//     is) is asked for the skill at the highest version every
//     requirement of that key admits, and the closure is found again
//     with it (the requirements of the version first picked are not
//     kept); requirements with no version in common, or that the merger
//     fails to resolve, fail with skill.ErrRequirement naming each chain
//     and the merger's error, and requirements the merger cannot join
//     (another repository) are a conflict. A skill the agent, the run or
//     the provider named is never merged: a requirement that disagrees
//     with it is a conflict that names that requirement's chain.
//  8. Two skills of the closure with one runtime name fail with
//     skill.ErrRuntimeNameConflict, naming both keys and the chain.
//  9. skill.MetadataRequires is reserved: "true" (what skill.WithRequires
//     sets) follows a skill's requirements, "" leaves it to
//     [WithRequires], any other value fails with skill.ErrRequirement.
//  10. Requirements that form a cycle (a skill that requires itself,
//     directly or through others, whatever chains the closure was found
//     by) fail with skill.ErrRequirement, naming the cycle
//     ("a -> b -> a") and the requirement that closes it.
//  11. Limits: requirements bring a run to at most 256 skills, those
//     named included, and chains of at most 32 requirements below a
//     named skill. A requirement that crosses either fails with
//     skill.ErrRequirement; the depth is checked before the resolver is
//     asked.
//  12. A failure of a required skill is the error a run returns for a
//     named one (a *skill.SkillMaterializationError, a materializer's
//     refusal such as *trust.RefusedError, an *[InvalidSkillError], a
//     metadata.requires that breaks package skillmd's rules) within a
//     *skill.RequirementError whose Chain names the skills that led to
//     it: "requirement chain release -> changelog: ..." (a requirement's
//     text is shown without the credentials its URL may hold). errors.Is and
//     errors.As reach what it holds (trust.ErrRefused among them). The
//     agent's materializer stages every skill of the closure, so the
//     checks of package trust's Materializer (policy, signatures, audit)
//     apply to each as to a named one, before its requirements are read:
//     a refused skill's requirements are never resolved. The driver is
//     not called.
//  13. Every skill of the closure is an entry of driver.ResolvedSkills
//     as a named one is, sorted by key; a required skill without a
//     Reason has "required by CHAIN" ("required by release ->
//     changelog"); the mark of skill.WithRequires is not in Metadata. The
//     Fingerprint covers the whole closure: a change to any of its
//     skills' content, to a requirements list, or a range that now
//     admits a newer version changes it (and a [Thread] sees that as
//     changed skills).
//  14. The named skills are materialized as one set (rule 6 of
//     "Resolution"), each required skill by itself, at most GOMAXPROCS at
//     a time, so that a failure names its own chain.
//  15. Requirements are resolved on every run: a run holds no memory of
//     an earlier run's pins. A program that wants a fixed closure names
//     pinned sources (a commit, a digest).
//
// # Trust
//
// The root package links no trust code (no policy, signature, audit or
// Sigstore). An agent enforces a trust policy when its materializer
// checks: package trust's Materializer, given with
// [WithSkillMaterializer], checks where each selected skill comes from,
// who signed it and what its audit finds, before any driver starts. The
// rules are in package trust's doc.
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
