// Package conformance is the suite of scenarios that every agent driver
// passes with its real agent CLI and a stand-in model API (see
// internal/modeltest). A driver's test describes the driver ([Agent]):
// how to build it for a cache root, its stand-in model and how that
// answers a [Script], where the user's own skills live, and the values it
// puts on the agent's command line; [Run] supplies the scenarios. A new
// driver is then its command line, its event parser and its facts.
//
// # Scenarios
//
// Each runs the real CLI, so each is a subtest of [Run], with a stand-in
// model, a HOME, a workspace and a cache root of its own. They run in
// parallel (t.Parallel), but for values, which changes the working folder
// and so runs alone, before the others: the test calling [Run] must not
// itself be parallel.
//
//  1. listed: the run's skills, and a skill of the user's, are shown to
//     the model; the result carries the answer, a session and usage
//     (unless [Agent.NoUsage]); the
//     events start with init and end with the result; neither the
//     workspace nor the user's skills (or the user's agent home, where
//     the driver promises that) change, over two runs.
//  2. loaded: the model loads a skill through the agent's tool and is
//     then shown its body; the events hold the tool call, its result and
//     one skill event naming the skill and the call.
//  3. apart: two concurrent runs with different skills each show the
//     model their own skill and not the other's.
//  4. resume: a thread resumes its session, and the model is shown the
//     first turn again; another skill set for the thread is refused
//     before the agent starts, naming the new skill; a session the agent
//     does not know, and an id that is not of the agent's form, are
//     rejected (driver.ErrResumeRejected), the second before the agent
//     starts.
//  5. cancel: cancelling a run while the model stalls ends it with
//     context.Canceled and leaves no process behind.
//  6. clash: a skill of the user's under the name of one of the run's,
//     with other content, refuses the run with a *driver.ShadowError
//     naming the user's folder before the agent starts; the same content
//     is no clash.
//  7. values: every value the driver puts on the command line, given a
//     value that starts like an option the agent would act on, is refused
//     before the start or taken literally, never read as an option
//     (internal/launch, "Arguments"); the suite gives a session id, a
//     model and a cache root named like an option (relative to the
//     working folder, under which the driver's folder must be made and
//     its skill shown to the model), the driver its other fields
//     ([Agent.Values]). No process is left.
//  8. errors: a failing model API is a *driver.AgentError carrying its
//     message; a missing program is driver.ErrProcessFailed saying how to
//     install it.
//  9. lease: while a run runs, collecting the driver's folders and the
//     skill cache removes nothing, and the folder is listed in use; after
//     it, both go, with the sessions the folder held.
//  10. ownership: a folder from the cache root down to the driver's
//     folder that belongs to another user (only as root) or that others
//     may write refuses the run before the agent starts, naming the
//     folder. Not on Windows, where ownership is not checked.
//  11. nested: a workspace holding, in folders below its top, a skill in
//     every project folder of every agent of the agents table
//     (pkg/.claude/skills/review, pkg/.agents/skills/review, ...). When
//     the agent's row ([Agent.Listed]) says it loads some of them as it
//     reads files there (internal/agents, Row.Nested), the run is
//     refused before the agent starts with a *driver.NestedSkillsError
//     naming exactly those folders; with the folder holding them
//     ignored by git, where the row says the agent skips ignored
//     folders, the run goes ahead. Otherwise the run goes ahead and
//     the model is not shown the nested skills.
//
// # Other systems
//
// The suite is for Linux, where the agent CLIs run in CI: it finds a
// run's processes through /proc (modeltest.Processes), so elsewhere the
// cancel scenario fails its check that the run has a process and the
// other scenarios' checks for processes left find none. The ownership
// scenario skips on Windows, where ownership is not checked, and its
// cases that give a folder to another user skip unless run as root.
package conformance

import (
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Agent describes a driver and its agent CLI to the suite.
type Agent struct {
	// Name names the driver in failures ("claude").
	Name string
	// Listed is how the driver's folders are listed by the skill cache:
	// the agent ("claude-code") and kind ("mount") of a
	// skill.DriverFolder.
	Listed, Kind string
	// Folder is where the driver keeps its folders under a cache root,
	// slash-separated ("mounts/claude").
	Folder string
	// Sessions is the number of agent sessions one run leaves in the
	// driver's folder (a managed home keeps them; a mount none).
	Sessions int
	// Start starts the stand-in model, which answers every request as
	// the script says, and returns it with the agent's environment. It
	// finds the CLI (and fails or skips as modeltest does when it is
	// missing).
	Start func(t *testing.T, s Script) (Model, Env)
	// New returns the driver for a setup.
	New func(Setup) driver.Driver
	// Inject returns values that the agent would act on if it read them
	// as options, under dir, and the files that appear if it does.
	Inject func(dir string) Injection
	// Values are the cases of scenario 7 for the driver's own fields.
	Values []Value
	// Install is what the error for a missing program says to run
	// ("npm install").
	Install string
	// NoUsage says the agent reports no token usage (Cursor's CLI
	// documents none), so scenario 1 does not ask the result for it.
	NoUsage bool
	// SessionForm is what the refusal of an odd session id says a valid
	// one is. Default "UUID".
	SessionForm string
	// UnknownSession is a session id of the agent's form that the agent
	// does not know. Default a UUID.
	UnknownSession string
}

// Env is the environment of an agent's runs.
type Env struct {
	// CLI is the path of the agent's program.
	CLI string
	// Vars is the agent's environment: a HOME of its own, the stand-in's
	// address and a key.
	Vars []string
	// UserSkills is the folder where the user keeps skills for the agent
	// (~/.claude/skills), which the agent reads and the driver must not
	// change.
	UserSkills string
	// Unchanged is a folder of the user's that a run must leave as it
	// was: UserSkills, or the whole agent home where the driver promises
	// that.
	Unchanged string
}

// Setup is what a driver is built from.
type Setup struct {
	// Env is the agent's environment, CacheRoot the skill cache root.
	Env       []string
	CacheRoot string
	// Grace is the time between interrupting and killing the agent.
	Grace time.Duration
	// Model is the model to ask for; "" is the agent's default.
	Model string
	// Values are the driver's own fields by the names of its
	// [Agent.Values].
	Values map[string]string
}

// Script says how the stand-in model answers every request.
type Script struct {
	// Text is the answer.
	Text string
	// Load, when set, has the model first load the skill of that name
	// through the agent's tool, then answer Text once the tool's result
	// comes back.
	Load string
	// Stall holds every response open until the client goes away.
	Stall bool
	// Fail makes the API fail with this message, in a way the agent
	// does not retry.
	Fail string
}

// Model is a stand-in model API as the suite sees it.
type Model interface {
	// Requests returns the number of requests the stand-in got, to any
	// endpoint.
	Requests() int
	// Turns returns the requests to the model's endpoint, in order.
	Turns() []Turn
}

// Turn is one request to the model.
type Turn struct {
	// Model is the model asked for.
	Model string
	// Prompt is the text the user typed for the turn.
	Prompt string
	// Shown is all the text the model was shown: system prompt,
	// instructions, the skill listing, messages and tool results.
	Shown string
}

// Injection is a set of values that an agent would act on if it read them
// as options.
type Injection struct {
	// Values holds the values; the suite's own cases use Values[0].
	Values []string
	// Markers are the files that appear if one is read as an option.
	Markers []string
}

// Value is a case of scenario 7: a field of the driver's that goes on
// the command line.
type Value struct {
	// Name names the case.
	Name string
	// Set gives the field one of the injection's values.
	Set func(t *testing.T, s *Setup, in Injection)
	// Check checks the run's outcome: refused before the start, or taken
	// literally.
	Check func(t *testing.T, m Model, in Injection, err error)
}

// Run runs every scenario (see the package doc) for the agent a.
func Run(t *testing.T, a Agent) {
	for _, sc := range []struct {
		name string
		run  func(*testing.T, Agent)
	}{
		{"listed", listed},
		{"loaded", loaded},
		{"apart", apart},
		{"resume", resume},
		{"cancel", cancel},
		{"clash", clash},
		{"values", values},
		{"errors", errs},
		{"lease", lease},
		{"ownership", ownership},
		{"nested", nested},
	} {
		t.Run(sc.name, func(t *testing.T) {
			if sc.name != "values" {
				t.Parallel()
			}
			sc.run(t, a)
		})
	}
}
