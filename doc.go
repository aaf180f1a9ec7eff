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
