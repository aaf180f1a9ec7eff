package eval

import (
	"errors"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// ErrInvalidSuite is a skill's evals/evals.json or evals/eval_queries.json
// that cannot be run: missing, not JSON of the documented shape, a case
// without a prompt, a file outside the skill. Its message names the file,
// the case and the field, as FILE: evals[I] (id ID).FIELD: WHAT.
var ErrInvalidSuite = errors.New("invalid evaluation file")

// ErrNoEvals is a skill without evals/evals.json (for [Evaluator.Run]) or
// without evals/eval_queries.json (for [Evaluator.Triggers]).
var ErrNoEvals = errors.New("no evaluations")

// Config is a run's configuration: which skills the agent is given.
type Config string

const (
	// WithSkill is the skill alone.
	WithSkill Config = "with_skill"
	// WithoutSkill is no skill at all: the baseline of a new skill.
	WithoutSkill Config = "without_skill"
	// OldSkill is the baseline skill alone: an earlier version.
	OldSkill Config = "old_skill"
)

// Suite is a skill's evals/evals.json.
type Suite struct {
	SkillName string `json:"skill_name"`
	Evals     []Case `json:"evals"`
}

// Case is one evaluation: a prompt, the files it starts from, and what
// its result must show.
type Case struct {
	// ID is the case's id as the file gives it, a number or a string; the
	// case's folder is "eval-" + ID.
	ID             CaseID        `json:"id"`
	Prompt         string        `json:"prompt"`
	ExpectedOutput string        `json:"expected_output,omitempty"`
	Files          []string      `json:"files,omitempty"`
	Expectations   []Expectation `json:"expectations,omitempty"`
}

// CaseID is a case's id: the text of a JSON number or string. It reads
// either and writes back what it read.
type CaseID struct {
	text   string
	number bool
}

// String returns the id as written, without quotes.
func (id CaseID) String() string { return id.text }

// Expectation is one statement a run's result must make true. A string
// in the file is an Expectation with Text alone, graded by the judge; an
// object gives a Command too.
type Expectation struct {
	Text string `json:"text"`
	// Command, when set, grades the expectation: ARGV run in the run's
	// workspace, passing when it exits 0.
	Command []string `json:"command,omitempty"`
}

// Query is one trigger evaluation of evals/eval_queries.json.
type Query struct {
	Query         string `json:"query"`
	ShouldTrigger bool   `json:"should_trigger"`
}

// Agent is an agent to evaluate on (or to judge with).
type Agent struct {
	// ID is the agent's id ("claude-code"): its folder when a request
	// has several agents, and part of a kept run's key.
	ID string
	// Driver runs it.
	Driver driver.Driver
	// Version is its program's version, Model the model it is asked for
	// ("" for its default), and Settings what its driver was built with:
	// each is part of a kept run's key, so that a run of another version,
	// model or setting is not reused.
	Version, Model string
	Settings       driver.Settings
}

// Request says what [Evaluator.Run] evaluates.
type Request struct {
	// Skill is the skill evaluated; its evals/evals.json is the suite.
	// Required.
	Skill skill.Skill
	// Agents run every case. Required: at least one, with distinct IDs.
	Agents []Agent
	// Runs is the number of runs of each case in each configuration.
	// Default 1.
	Runs int
	// Baseline is the skill of the OldSkill configuration. Default nil:
	// the baseline is WithoutSkill.
	Baseline skill.Skill
	// Judge grades string expectations. Default nil: they are not graded.
	Judge *Agent
	// Out is the folder the iterations are written in. Required.
	Out string
	// Jobs is the number of runs at a time. Default 1.
	Jobs int
	// Fresh runs everything again, reusing no kept run or grading.
	Fresh bool
}

// TriggerRequest says what [Evaluator.Triggers] evaluates.
type TriggerRequest struct {
	// Skill is the skill whose evals/eval_queries.json is run. Required.
	Skill skill.Skill
	// Others are the other skills every run is given beside it. Default
	// none.
	Others []skill.Ref
	// Agents run every query. Required.
	Agents []Agent
	// Runs is the number of runs of each query. Default 3, as the guide
	// suggests.
	Runs int
	// Out is the folder the iterations are written in. Required.
	Out string
	// Jobs is the number of runs at a time. Default 1.
	Jobs int
	// Fresh runs everything again, reusing no kept run.
	Fresh bool
}

// Stat is a mean and a sample standard deviation (0 for fewer than two
// values).
type Stat struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

// ConfigSummary is one configuration's statistics over its runs.
// PassRate is nil (and pass_rate left out) when no run of the
// configuration has a graded expectation: there is no rate to give.
type ConfigSummary struct {
	PassRate    *Stat `json:"pass_rate,omitempty"`
	TimeSeconds Stat  `json:"time_seconds"`
	Tokens      Stat  `json:"tokens"`
}

// Delta is the skill's means minus the baseline's. PassRate is nil (and
// pass_rate left out) when either configuration has no pass rate.
type Delta struct {
	PassRate    *float64 `json:"pass_rate,omitempty"`
	TimeSeconds float64  `json:"time_seconds"`
	Tokens      float64  `json:"tokens"`
}

// RunSummary is benchmark.json's run_summary: the skill's configuration,
// the baseline's (one of WithoutSkill and OldSkill), and the delta.
type RunSummary struct {
	WithSkill    *ConfigSummary `json:"with_skill,omitempty"`
	WithoutSkill *ConfigSummary `json:"without_skill,omitempty"`
	OldSkill     *ConfigSummary `json:"old_skill,omitempty"`
	Delta        Delta          `json:"delta"`
}

// CaseResult is one case's results in both configurations, paired.
type CaseResult struct {
	ID CaseID `json:"id"`
	// PassRate is the case's mean pass rate per configuration, over its
	// runs with a graded expectation; a configuration with none has no
	// entry.
	PassRate map[Config]float64 `json:"pass_rate"`
	// Delta is the skill's pass rate minus the baseline's (0 when either
	// has none).
	Delta float64 `json:"delta"`
	// Runs and Passed count the runs per configuration, and those whose
	// every graded expectation passed.
	Runs   map[Config]int `json:"runs"`
	Passed map[Config]int `json:"passed"`
	// Flags say why the case may tell nothing: "always_passes",
	// "always_fails", "flaky".
	Flags []string `json:"flags,omitempty"`
}

// Benchmark is benchmark.json: the guide's run_summary, and this
// package's additions beside it.
type Benchmark struct {
	RunSummary RunSummary `json:"run_summary"`
	// DeltaCI95 is the 95% bootstrap interval of the pass rate's delta,
	// over the cases.
	DeltaCI95 [2]float64 `json:"delta_ci95"`
	// PassAtK is pass@k per configuration, index k-1.
	PassAtK map[Config][]float64 `json:"pass_at_k"`
	Cases   []CaseResult         `json:"cases"`
	// NotGraded counts the string expectations of the runs left ungraded
	// (no judge).
	NotGraded int `json:"not_graded,omitempty"`
	// Failed counts the runs the agent failed.
	Failed int `json:"failed_runs,omitempty"`
	// Reused counts the runs read from the kept runs.
	Reused int `json:"reused_runs,omitempty"`
	// Incomplete counts the runs of the request missing from the
	// benchmark: those an interrupted Run did not finish.
	Incomplete int `json:"incomplete,omitempty"`
	// Agents is each agent's run_summary, in a request with several
	// agents (the top-level benchmark.json).
	Agents map[string]RunSummary `json:"agents,omitempty"`
	// Iteration is the iteration's folder, Out/iteration-N.
	Iteration string `json:"-"`
	// PerAgent is each agent's own benchmark, in a request with several
	// agents.
	PerAgent map[string]*Benchmark `json:"-"`
}

// QueryResult is one query's trigger rate on one agent.
type QueryResult struct {
	Query         string  `json:"query"`
	ShouldTrigger bool    `json:"should_trigger"`
	Triggers      int     `json:"triggers"`
	Runs          int     `json:"runs"`
	TriggerRate   float64 `json:"trigger_rate"`
	Passed        bool    `json:"passed"`
}

// AgentTriggers is one agent's trigger evaluations.
type AgentTriggers struct {
	Queries   []QueryResult `json:"queries"`
	Precision float64       `json:"precision"`
	Recall    float64       `json:"recall"`
	Failed    int           `json:"failed_runs,omitempty"`
}

// Triggers is triggers.json: every agent's trigger evaluations.
type Triggers struct {
	Agents map[string]AgentTriggers `json:"agents"`
	// Iteration is the iteration's folder, Out/iteration-N.
	Iteration string `json:"-"`
}

// Progress is one step of a Run or Triggers, as it happens.
type Progress struct {
	Agent  string
	Case   CaseID // zero for a trigger query
	Query  int    // the query's index, for a trigger run
	Config Config
	Run    int // from 1
	// State is "started", "passed", "failed", "not graded" (finished,
	// with no graded expectation), "reused" (kept, not run again),
	// "error" (the agent failed; Err says why) or "judging".
	State string
	// Passed and Total count the graded expectations of a finished run.
	Passed, Total int
	Err           error
}

// Evaluator runs evaluations. The zero value is not usable: use New. An
// Evaluator is safe for concurrent use; calls writing in one Out take
// turns.
type Evaluator struct {
	cfg config
}

type config struct {
	materializer   skill.Materializer
	progress       func(Progress)
	commandTimeout time.Duration
	judgeTimeout   time.Duration
	outputs        outputLimits // see workspace.go
}

// Option configures an Evaluator.
type Option func(*config)

// WithMaterializer stages every run's skills. Default:
// skill.NewDefaultSkillMaterializer().
func WithMaterializer(m skill.Materializer) Option {
	return func(c *config) { c.materializer = m }
}

// WithProgress receives each step as it happens, from several
// goroutines one at a time. Default: none.
func WithProgress(f func(Progress)) Option {
	return func(c *config) { c.progress = f }
}

// WithCommandTimeout bounds each command expectation; 0 or less is the
// default. Default: 2 minutes.
func WithCommandTimeout(d time.Duration) Option {
	return func(c *config) { c.commandTimeout = d }
}

// WithJudgeTimeout bounds each judge run; 0 or less is the default.
// Default: 10 minutes.
func WithJudgeTimeout(d time.Duration) Option {
	return func(c *config) { c.judgeTimeout = d }
}

// New returns an Evaluator configured by opts.
func New(opts ...Option) *Evaluator {
	c := config{outputs: outputLimits{maxOutputFiles, maxOutputBytes}}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.commandTimeout <= 0 {
		c.commandTimeout = 2 * time.Minute
	}
	if c.judgeTimeout <= 0 {
		c.judgeTimeout = 10 * time.Minute
	}
	if c.materializer == nil {
		c.materializer = skill.NewDefaultSkillMaterializer()
	}
	return &Evaluator{cfg: c}
}

// Grading is a run's grading.json.
type Grading struct {
	Expectations []GradedExpectation `json:"expectations"`
	Summary      GradingSummary      `json:"summary"`
	// RunError is the agent's failure, for a run the agent failed
	// (graded as failing every expectation); JSON leaves it out for
	// any other run.
	RunError string `json:"run_error,omitempty"`
}

// GradedExpectation is one expectation's verdict. An expectation left
// ungraded (a string one without a judge) has Passed false and Graded
// false, and counts in no pass rate.
type GradedExpectation struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
	// Graded is false only for an expectation left ungraded; JSON leaves
	// it out when true.
	Graded *bool `json:"graded,omitempty"`
}

// GradingSummary counts a run's graded expectations; PassRate is
// Passed/Total, 0 when Total is 0. NotGraded counts those left ungraded.
type GradingSummary struct {
	Passed    int     `json:"passed"`
	Failed    int     `json:"failed"`
	Total     int     `json:"total"`
	PassRate  float64 `json:"pass_rate"`
	NotGraded int     `json:"not_graded,omitempty"`
}

// Timing is a run's timing.json.
type Timing struct {
	TotalTokens int64 `json:"total_tokens"`
	DurationMS  int64 `json:"duration_ms"`
}

// runResult is one finished run, as the statistics read it.
type runResult struct {
	agent   string
	caseID  CaseID
	config  Config
	run     int // from 1
	grading Grading
	timing  Timing
	failed  bool // the agent failed: graded as failing everything
	reused  bool // read from the kept runs
}
