// Package copilot drives GitHub Copilot CLI (`@github/copilot`) with a
// run's skills mounted for that run alone.
//
// A complete program:
//
//	package main
//
//	import (
//		"context"
//		"fmt"
//		"log"
//
//		adaptor "github.com/agentadaptor/agentadaptor"
//		"github.com/agentadaptor/agentadaptor/copilot"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		agent := adaptor.New(copilot.Driver(copilot.Config{}), // copilot on PATH, logged in or COPILOT_PROVIDER_*
//			adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text, res.SessionID)
//	}
//
// # The run
//
// A run is one `copilot --output-format=json --no-auto-update`, with the
// prompt on standard input (no -p), the request's workspace as the working
// folder, `--add-dir=MOUNT` when there are skills, `--allow-tool=skill`,
// the flags the [Config] asks for, and `--resume=ID` for
// driver.Request.Resume or else `--session-id=ID` with a new random UUID:
// Copilot CLI reports its session only in its last line, so the driver
// chooses it, and the run knows its session from the start. The driver uses Copilot CLI's -p mode (JSON
// lines on standard output), not its JSON-RPC server mode (--headless
// --stdio): the lines carry every event the RPC notifications do, and a
// run needs no framing, handshake or session calls, so the process runner
// and its cancellation are the same as for every other driver.
//
// The program is Copilot CLI's native executable, never its npm launcher
// (npm-loader.js, a Node.js script that starts the native program as its
// child: a signal to the launcher leaves the native program running). When
// [Config.Command] names the launcher (the `copilot` npm puts on PATH),
// the driver runs the platform package beside it,
// node_modules/@github/copilot-<os>-<arch>/copilot (copilot.exe on
// Windows), as the launcher itself would; any other program is run as it
// is.
//
// The agent's JSON lines become driver events: a driver.InitEvent first
// (Copilot CLI prints no such line; the init carries the session the
// driver chose or resumes, which the result line confirms), text deltas, messages, tool calls and results,
// a driver.SkillEvent for each successful call of the skill tool,
// driver.ErrorEvent for session.error, and the result last. Token usage
// is not on standard output: after the run the driver reads the
// session's events.jsonl ($COPILOT_HOME, else ~/.copilot,
// session-state/ID/events.jsonl) and adds up the session.usage_record
// lines written since the run's session started or resumed.
//
// # Arguments
//
// No value of a request or a Config can become an option of Copilot CLI
// (the rules are those of the driver kit, internal/launch):
//
//  1. driver.Request.Resume must be a UUID, the form of Copilot CLI's
//     session ids (Result.SessionID); anything else is refused before the
//     start with an error wrapping driver.ErrInvalidSessionID and
//     driver.ErrResumeRejected.
//  2. Model, each of AllowedTools and DeniedTools, the mount and the
//     session ids are passed as `--name=value`, one argument each, which
//     Copilot CLI 1.0.102 reads as the option's value whatever it starts
//     with.
//  3. The prompt is on standard input and the workspace is the working
//     folder: neither is an argument.
//  4. [Config.Args] are passed as they are, after the driver's own: they
//     are options by design.
//  5. Arguments from someone else (a command line's user) are checked
//     with [Descriptor]'s CheckArgs before they become Args.
//
// # Mounting skills
//
// Copilot CLI reads the skills of a folder given with --add-dir from its
// .github/skills. The driver gives it one such folder per skill set, and
// writes nowhere else:
//
//  1. The mount is <root>/mounts/copilot/<key>/.github/skills/<runtime-name>,
//     one link per skill to its resolved folder (a copy where links cannot
//     be made), built with internal/agentdir: keyed by the set's
//     fingerprint and folders, staged and renamed into place, never
//     changed after (its skills folder is read-only), rebuilt when found
//     changed, leased by the run while it runs and collected with
//     skill.Cache.CollectDriverFolders.
//  2. Nothing is written to the workspace or ~/.copilot by the driver;
//     Copilot CLI itself keeps its sessions, logs and settings in
//     ~/.copilot ($COPILOT_HOME), which the driver does not move.
//  3. Every folder from the cache root down to the mount must be a real
//     folder of the current user that neither its group nor every user may
//     write (rule 1 of internal/agentdir); otherwise the run fails before
//     the start, naming the folder. On Windows ownership and modes are not
//     checked.
//
// # Checks
//
//  1. Before the start: a skill listed under the name of one of the run's
//     (its front matter's name), with other content, in a folder Copilot
//     CLI reads skills from besides the mount (the workspace's
//     .agents/skills, .github/skills and .claude/skills, the user's
//     ~/.agents/skills and ~/.copilot/skills, as Copilot CLI's row of the
//     agents table says) fails the run with a *driver.ShadowError naming
//     both folders. The workspace's skill would be loaded instead of ours;
//     the user's would lose to ours, silently. Identical content is fine.
//  2. Copilot CLI 1.0.102 does not list its skills on standard output
//     when it is given --add-dir, so the driver cannot check after the
//     start that it sees the mounted ones: InitEvent.Skills is nil.
//  3. The result line decides the outcome: a non-zero exitCode is a
//     *driver.AgentError whose message is the last session.error's; no
//     result at all is driver.ErrNoResult, or a *driver.ProcessError when
//     the process failed. A run asked to resume a session Copilot CLI does
//     not have ("No session, task, or name matched") is
//     driver.ErrResumeRejected. Sessions are not per folder: a resumed
//     session runs in the folder it started in.
//  4. The first result line is the run's; a line that is not JSON is
//     reported as a driver.ErrorEvent and the run goes on.
//  5. Before the start, the provider (errors wrapping
//     driver.ErrProviderSetup, saying what to set): COPILOT_OFFLINE=true
//     without COPILOT_PROVIDER_BASE_URL, and COPILOT_PROVIDER_BASE_URL
//     without a model (no COPILOT_MODEL, Model, --model, or "model" in
//     Copilot CLI's config.json or settings.json), which Copilot CLI
//     1.0.102 would refuse; a loopback COPILOT_PROVIDER_BASE_URL where
//     nothing listens, which it would retry for half a minute.
//
// # Approvals
//
// The skill tool is always allowed (`--allow-tool=skill`), so loading a
// skill never waits for an approval a headless run cannot give.
// [Config.AllowedTools] and [Config.DeniedTools] become --allow-tool and
// --deny-tool (a denial wins), and [Config.AllowAllTools] passes
// --allow-all-tools.
//
// Cancelling the context interrupts the agent (SIGINT to its process
// group, SIGKILL after [Config.GracePeriod]), and the error wraps the
// context's; Copilot CLI aborts its turn at SIGINT and exits within a
// moment. However the run ends no process of it survives, as
// internal/process says: on Linux the group and every descendant that
// left it; on macOS only the group, and a killed host leaves the agent
// running; on Windows the process tree is ended. The mount works the same
// on every system (a copy replaces a link where links cannot be made); on
// Windows the native program is copilot.exe of the win32 package.
package copilot
