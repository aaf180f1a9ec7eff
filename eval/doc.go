// Package eval runs a skill's evaluations, as the Agent Skills guides
// "Evaluating skill output quality" and "Optimizing descriptions" set
// them out, on one agent or several, each run headless with exactly the
// skills its configuration names: whether a skill helps, before it is
// installed or updated.
//
// # The input
//
// A skill's evaluations are in its folder:
//
//   - evals/evals.json: {"skill_name", "evals": [{"id", "prompt",
//     "expected_output", "files", "expectations"}]} ([Suite]). An id is a
//     number or a string of letters, digits, dots, dashes and
//     underscores (it names the folder eval-ID); a prompt is required; a
//     file is a path inside the skill's folder, relative and
//     slash-separated, to a regular file, copied into every run's fresh
//     workspace: a file below evals/files/ at its path below that folder
//     (evals/files/data/x.csv is data/x.csv), any other at its path in
//     the skill. An expectation is a string, graded by a judge agent, or
//     an object {"text", "command": [ARGV...]}, this package's addition
//     for what code can check: the command runs in the run's workspace
//     after the agent, with SKILL_DIR set to the skill's folder (a
//     program's relative path is taken there) and OUTPUTS_DIR to a copy
//     of the run's outputs; exit status 0 passes, its output (the first
//     4 KiB) is the evidence, and it is stopped after
//     [WithCommandTimeout] (see Grading).
//   - evals/eval_queries.json: [{"query", "should_trigger"}] ([Query]),
//     the trigger evaluations.
//
// [LoadSuite] and [LoadQueries] read and check them; anything malformed
// (a case without a prompt, an expectation of another JSON type, a file
// outside the skill or not a regular file, two cases with one id, an
// unknown field) fails with [ErrInvalidSuite] naming the file, the case
// and the field, before any agent starts, as FILE: evals[I] (id
// ID).FIELD: WHAT (I from 0; [I].FIELD in eval_queries.json). The rules:
//
//  1. Each file is a regular file inside the skill's folder (read
//     through an [os.Root]: no link leads out), of at most 8 MiB, holding
//     one JSON value and nothing after it; no object gives a key twice,
//     and a key the format does not name is refused. A field the format
//     makes optional may be left out, but is never null.
//  2. skill_name is a non-empty string ([Suite.CheckName] compares it
//     with the skill's name, for the caller that knows it); evals holds 1
//     to 1,000 cases.
//  3. An id is a JSON number, kept as written, or a string of 1 to 64
//     letters, digits, dots, dashes and underscores, not ending with a
//     dot; a number has at most 64 characters too. No two ids name one
//     folder, case aside (1 and "1" are one; "a" and "A" are one on some
//     systems).
//  4. A prompt, a query and an expectation's text are strings with more
//     than spaces; no string holds NUL.
//  5. A case has at most 100 files, each a clean relative slash-separated
//     path (no "..", "." or empty element, no backslash, no colon, not
//     absolute) to a regular file in the skill (not a link, a folder or a
//     pipe); no two go to one place of the workspace ([Case.FilePlace]),
//     or one where another needs a folder, case aside.
//  6. A case has at most 100 expectations. An expectation object has text,
//     required, and command, which may be left out (the text is then
//     graded by the judge, as a string is): a non-empty array of strings
//     whose first is not empty.
//  7. eval_queries.json holds 1 to 1,000 queries, each with query and
//     should_trigger (a boolean, required).
//
// # Runs
//
// [Evaluator.Run] runs every case of the suite, [Request.Runs] times,
// on every agent of the request, in two configurations: [WithSkill],
// the skill alone, and the baseline: [WithoutSkill], no skill at all, or
// [OldSkill], [Request.Baseline] alone (an earlier version of the
// skill). Each run gets a fresh workspace holding the case's files and
// nothing else (a folder agentskills-eval-RANDOM of the temporary
// folder, locked through its agentskills-eval-RANDOM.lock beside it and
// removed after the run; a Run or Triggers removes those of this user
// that a killed process left, unlocked and over a day old), and the agent sees exactly the configuration's skills:
// the drivers keep the agent's own user and project skills out, as they
// do for every run of package adaptor.
//
// After the run, the files the agent created or changed in its
// workspace (regular files only: a link, a FIFO or a device is passed
// over, never followed or opened; modes 0644, or 0755 for an
// executable file; at most 10,000 files and folders created or changed,
// none more than 64 folders deep, and 1 GiB, over which the run fails
// with the limit as the reason and keeps no outputs) are copied
// to the run's outputs/ folder, its final answer to response.md, its
// events to transcript.jsonl (one JSON object a line, {"type": KIND,
// ...the event's fields}), and its time and tokens
// to timing.json ({"total_tokens", "duration_ms"}: the tokens as the
// agent reports them, input and output; the duration from the start of
// the agent to its end). A run the agent failed is graded as failing
// every expectation, with the failure as the evidence and as
// grading.json's "run_error" (left out for any other run), and is not
// kept (the next [Evaluator.Run] tries it again). response.md and
// transcript.jsonl hold at most 16 MiB each: an answer over that fails
// the run (response.md is left empty), and events over it are left out
// of the transcript and fail the run, the limit as the reason.
//
// # Grading
//
// A command expectation is graded by its command. ARGV[0] is looked up
// on the PATH, or, holding a slash, taken relative to SKILL_DIR (an
// absolute path as it is): never relative to the workspace, where the
// agent could have written the checker it is graded by. The other
// arguments are passed as they are, unexpanded, and the command runs
// in the run's workspace: an argument naming a file, like a script an
// interpreter reads, names the workspace's file, which the agent may
// have written; a checker of the skill is named through SKILL_DIR, as
// ["evals/check.py"] (an executable of the skill) or ["sh", "-c",
// "python3 \"$SKILL_DIR/evals/check.py\""]. What a tool reads from its
// working folder is the agent's to plant too (pytest's conftest.py,
// node_modules, a .git folder's configuration and hooks): a command
// that must not trust the workspace reads only what it names. The
// command gets this process's environment plus SKILL_DIR, the folder
// of the skill as the Run staged it (a copy in the skill cache, to be
// read and not written), and OUTPUTS_DIR, a fresh copy of the run's
// outputs/ (folders and regular files; links left out), made once for
// the run's commands and removed after them: what a command writes
// there or in the workspace never becomes the agent's output, nor
// changes a kept run. Both are absolute. Its standard input is empty;
// it runs in a process group of its own, killed when it exits or is
// stopped ([WithCommandTimeout]; SIGINT, then SIGKILL a second later),
// so a child it leaves behind holding its output open cannot stall the
// grading. A child that leaves the group (setsid) is killed too on
// Linux, where package process finds the run's descendants by a
// variable of their environment (unless one clears it); on other
// systems it is not stopped. Exit status 0 passes. The evidence is its
// standard output and standard error, line by line as they come (blank
// lines left out), cut at 4 KiB ("… (N more bytes)"), after what went
// wrong: "exit status N: ...", "stopped by signal S: ...", "stopped
// after 2m0s: ...", "not found: ...", "not run: ...".
//
// String expectations are graded by [Request.Judge], one agent run per
// graded run, with no skill, in a fresh workspace holding a copy of that
// run's outputs/ (folders and regular files; links left out) and
// response.md, removed after it whatever the judge did to its
// permissions. Its prompt gives the task, the expected output, the
// names of the files (each a JSON string, one a line, in a <files>
// block: a name, which the agent chose, cannot write a line of the
// prompt), the expectations numbered, and the guide's rule that a pass
// needs concrete evidence, and asks for one JSON object
// {"expectations": [{"text", "passed", "evidence"}]}, one entry per
// expectation, in order. The answer must hold exactly one object with
// an "expectations" field, anywhere in it (alone, in a fenced block, in
// prose; one inside another is its own, and the same object given
// twice is one): two different ones do not parse, since which is the
// judge's, and which one it quotes from the run's response, cannot be
// told. The search reads at most 2 MiB (an answer is at most 256 KiB),
// past which the answer does not parse. The object gives no key twice,
// anywhere, and has one entry per expectation, each "passed" a JSON
// boolean; entry I grades expectation I when its text is empty or the
// expectation's (spaces collapsed, case ignored), and when every text
// names another expectation the entries are matched by text. The
// evidence is a string, or a list of strings (those with more than
// spaces, joined with "; "); anything else is none, and a pass without
// evidence (none, or only spaces) fails. An answer that does not parse,
// or a judge that fails or outlasts [WithJudgeTimeout], fails every
// string expectation of that run with the reason as the evidence ("the
// judge's answer did not parse: WHY (the answer began ...)", "the judge
// failed: ...", "the judge did not answer within 10m0s"): never a pass.
// Without a judge, string expectations are "not graded": they are
// listed with "passed": false and "graded": false, left out of every
// pass rate, and counted in the summary; so are they on a run the agent
// failed, whose other expectations fail with "the run failed: ...".
//
// A grading is kept (see Kept runs) unless it holds a failure that may
// pass another time: a judge that failed, could not start or outlasted
// its timeout, or a command not found, not run, or stopped (by its
// timeout or the caller). Such a grading counts in the Run that made it,
// and the next Run grades the run again, every expectation of it (the
// agent is not run again). An answer that does not parse is the
// judge's verdict, and is kept.
//
// # The output
//
// [Request.Out] is created when missing; it must not be a file, nor lie
// inside the folder of a skill given by its path (the skill, the
// baseline, the others of a trigger evaluation): the output would change
// the skill's content, and so its digest and every kept run's key. Such
// a request, like one without a required field or with two agents of one
// id (compared without case) or an id that cannot name a folder (letters,
// digits, dots, dashes and underscores, not eval-* nor iteration-* nor
// *.json, nor a Windows device name such as NUL, con or COM1.x), or
// with a negative [Request.Jobs] or [Request.Runs] over 1,000, or whose
// skill or baseline has a SKILL.md an agent cannot load (read as package
// adaptor reads it before a run: the error wraps
// [adaptor.ErrInvalidSkill]), fails with [ErrInvalidRequest] naming the
// field, before any agent starts.
//
// In [Request.Out], the layout of the guide: iteration-N/eval-ID/CONFIG/
// with outputs/, response.md, transcript.jsonl, timing.json and
// grading.json ({"expectations": [{"text", "passed", "evidence"}],
// "summary": {"passed", "failed", "total", "pass_rate"}}), and
// iteration-N/benchmark.json ([Benchmark]). With several runs per case,
// CONFIG/run-K/ holds each run's files (K from 1). With several agents,
// iteration-N/AGENT/ holds that layout for each agent, and
// iteration-N/benchmark.json adds "agents": {ID: run_summary}. The
// trigger evaluations are in iteration-N/triggers.json ([Triggers]).
//
// An iteration is one version of the skill: a Run or Triggers of a
// skill whose content digest the newest iteration recorded (in its
// iteration.json) writes that iteration again, replacing what that call
// writes there (Run its eval folders and benchmark.json, Triggers its
// triggers.json); a skill of other content starts iteration-N+1.
//
// # Kept runs
//
// Every finished run is kept in Out/.runs, by a digest of what
// determines it: the configuration's skill (its content digest, and
// its key and metadata, which name it to the agent; none for
// without_skill), the agent's id, version and model, the agent settings
// the request's driver was built with ([Agent.Settings]), the case (its
// prompt and the digest of its files), and the run's index. A Run reuses
// a kept run instead of starting the agent, so that an interrupted Run
// resumes where it stopped and a larger [Request.Runs] costs only the
// new runs; [Request.Fresh] runs everything again. Runs of one key (two
// cases of one prompt and files, or a baseline of the skill's content)
// are one run, made once in a Run and graded for each case. A grading is
// kept likewise, by the run's digest, the expected output, the
// expectations, the judge (its id, version, model and settings), the
// version of the grading's format (a change of how answers or commands
// are graded makes every grading again), and, for a case with a
// command, the digest of the skill whose folder is its SKILL_DIR and the
// command timeout; so a changed expectation is graded again without
// running the agent, in a workspace rebuilt from the case's files, less
// those the agent removed (or replaced by a folder; the kept run lists
// them in deleted.txt), and the run's outputs. A kept run that cannot be
// rebuilt so (a file of it missing or damaged, over 16 MiB) is not a
// kept run: the agent runs again. A
// without_skill run depends on no skill's content, so a new version of
// the skill reuses it. A kept run is written whole or not at all: a
// crash of the process leaves none half written (the files are renamed
// into place, not flushed to the disk: a power loss may leave one
// damaged, and the next Run then makes it again). The files of an
// iteration are hard links to those of the kept runs where the file
// system allows it: edit neither.
//
// Out/.runs is trusted input, as the evals themselves are: its kept
// runs and gradings are read as they are written, and whoever can write
// there can change the results, as whoever can write evals.json can.
// It is a cache of this machine's: Run writes a .gitignore of "*" in it
// (when there is none), so that it is not committed by accident; keep
// it out of what others can change.
//
// # Statistics
//
// A run's pass rate is its passed expectations over its graded ones.
// run_summary gives, per configuration, the mean and (sample) standard
// deviation over every run of every case of the pass rate, the time in
// seconds and the tokens, and delta the skill's mean minus the
// baseline's, as the guide shows. Beside them, [Benchmark] pairs the
// configurations case by case: each case's mean pass rate in both, the
// delta's 95% interval by a bootstrap over the cases (10,000
// resamplings, seeded so that one input gives one interval), pass@k per
// configuration (a run passes when every graded expectation does; the
// unbiased estimator over each case's n runs, for k from 1 to n), and
// flags on cases that tell nothing: passing in every run of every
// configuration, failing in every run, or flaky (passing some runs and
// failing others of one configuration).
//
// A run with no graded expectation (none, or string ones without a
// judge) has no pass rate: it is left out of every pass rate mean, of
// pass@k and of the flags, and a case with no graded run in a
// configuration has no pass rate there, no delta, and no place in the
// interval. A configuration with no graded run has no pass_rate in
// run_summary, and then delta has no pass_rate either
// ([ConfigSummary.PassRate] and [Delta.PassRate] are nil). A run the agent failed counts in the pass rates (failing),
// not in the time and tokens. The interval is the percentile one
// (nearest rank) of the mean of the cases' deltas; with no paired case
// it is [0, 0], and with one, or with every case of one delta d, [d, d].
// pass@k goes from k = 1 to the fewest graded runs of a case, averaged
// over the cases. With several agents, the top-level benchmark pools
// every agent's runs (a case's runs are every agent's).
//
// # Trigger evaluations
//
// [Evaluator.Triggers] runs each query [TriggerRequest.Runs] times with
// the skill among [TriggerRequest.Others], on each agent; the skill was
// triggered when the agent loaded it, as the driver's
// [driver.SkillEvent] reports. A query passes when its trigger rate is
// at least 0.5 and it should trigger, or below 0.5 and it should not;
// precision and recall are per agent, counting a query as triggered
// when its rate is at least 0.5 (precision: the triggered queries that
// should trigger, over the triggered; recall: the triggered queries
// that should trigger, over those that should; 0 when nothing is
// counted). Each run's workspace is empty; a run the agent failed
// counts in [AgentTriggers.Failed] and in no rate, and is not kept.
// Runs are kept as Run keeps them, by the skill's and the others'
// content digests, the agent, the query and the run's index. Each of
// [TriggerRequest.Others] must be a skill (skill.Dir, ...), not a
// provider's key: its content is part of the key.
//
// # Units
//
// An evaluation is a list of units, one run each: [Units] lists them,
// and [Evaluator.RunUnit] makes one, by its index, so that many
// processes (the pods of a Kubernetes Indexed Job, one completion index
// each) make one evaluation together, and [Collect] then writes its
// benchmark.json. The order of the units is a contract (a Job's
// completion index names a unit by it):
//
//  1. The agents in the order of [Request.Agents]; for each agent, the
//     cases in the order of evals.json; for each case, [WithSkill], then
//     the baseline ([WithoutSkill], or [OldSkill] when [Request.Baseline]
//     is set); for each configuration, the runs 1 to [Request.Runs].
//     With A agents, C cases and R runs there are A*C*2*R units, indexed
//     from 0: unit I is of agent I/(C*2*R), case (I/(2*R))%C,
//     configuration (I/R)%2 and run I%R+1. This is the order in which
//     [Evaluator.Run] starts its runs.
//  2. A unit's folder ([Unit.Dir]) is where [Evaluator.Run] writes that
//     run in its iteration: [AGENT/]eval-ID/CONFIG[/run-K], AGENT with
//     several agents, run-K with several runs.
//
// RunUnit checks the request as Run does, and an index outside the
// units fails with [ErrInvalidRequest] saying their count. It makes
// the run (or reuses the kept one, as Run does, under the same key),
// grades it, and writes its folder, with the files Run writes there,
// in the iteration Run would choose; it writes no benchmark.json.
// Units writing one Out at once, from one process or many, are safe:
//
//  3. The iteration is the one of the skill's content digest, chosen as
//     Run chooses it; a new one is created whole, its iteration.json in
//     it, by one rename, so that units of one content racing to create
//     it all take the one that won, and none makes another; a unit
//     that reads its iteration.json as another replaces it (rule 6)
//     reads it again rather than take it for another content's.
//  4. A unit's folder is built in a staging folder of the iteration and
//     renamed into place, replacing what an earlier attempt of the unit
//     left there: it is seen whole or not at all.
//  5. Units share the lock of Out that a Run or Triggers holds alone
//     (Out/.runs/.lock, shared against exclusive): a Run waits for the
//     units writing, and they for it. Units of one kept-run key (two
//     cases of one prompt and files) take turns through
//     Out/.runs/KEY.lock, as the jobs of one Run do. These are advisory
//     file locks (flock): a folder shared by several machines must be
//     on a file system that gives them to each (NFS does through its
//     lock manager).
//  6. The iteration's iteration.json records the units' plan (the
//     agents, the case ids in order, the baseline, the runs), which
//     Collect reads; a Run records it too. A unit of another plan for
//     the same content (another --runs) replaces it.
//
// # Collecting units
//
// [Collect] reads the run folders units wrote (in the Out they shared,
// or a copy of it taken from a volume) and writes each iteration's
// benchmark.json, and with several agents each agent's, with the
// numbers Run would have written for the same runs:
//
//  1. DIR is an Out, whose iteration-N folders are each collected, or
//     one iteration folder (one holding iteration.json).
//  2. An iteration's units are those of the plan its iteration.json
//     records (rule 6); an iteration without a plan and without eval
//     folders (trigger evaluations only) is passed over. A plan is
//     checked as a Request is (agent ids, 1 to 1,000 cases of distinct
//     ids, 1 to 1,000 runs, a baseline of without_skill or old_skill),
//     and of at most 1,000,000 units.
//  3. A unit's folder, and each folder on the way to it, is a folder,
//     not a link: no link in DIR is followed. It holds grading.json
//     and timing.json, regular files of at most 16 MiB and 4 KiB, each
//     one JSON object in the documented shape, with no unknown key and
//     none given twice: grading.json's expectations each with text,
//     passed and evidence (graded only false, or true), and a summary
//     that counts them as [GradingSummary] does (its pass_rate
//     included); timing.json's total_tokens and duration_ms, integers
//     of at least 0. Its other files are not read.
//  4. A unit whose folder is missing or fails rule 3 is not counted,
//     as an interrupted Run does not count its unfinished runs: the
//     benchmark is written from the others, with "incomplete": the
//     units left out, and Collect returns, beside the iterations, an
//     error wrapping [ErrInvalidRun] for each, naming its folder and
//     what is wrong (a missing folder once, at the shallowest missing
//     place, with the number of units below it; the first 20 problems
//     named, the others counted). An iteration with no unit to count
//     gets no benchmark.json.
//  5. An entry of the iteration that no unit of the plan names (other
//     than iteration.json, the benchmarks, triggers.json and the
//     staging folders .new-* and .old-*) is reported the same way, and
//     left out.
//  6. A run folder does not say whether its run was reused: the
//     benchmark's reused_runs is 0. Its other numbers are Run's, to the
//     last bit, for the same run folders ("failed_runs" from
//     grading.json's run_error).
//  7. An expectation with graded false counts as not graded, whatever
//     its passed says, as Run counts it.
//
// Collect checks the run folders against nothing but themselves and the
// plan: whoever can write into DIR (the claim the pods share, or its
// copy) can change the numbers, within their own consistency. Trust
// its benchmark as far as you trust every writer of the claim.
//
// # Concurrency and interruption
//
// [Request.Jobs] runs that many runs at a time, each in its own
// workspace. When the context is done, the agents running are stopped,
// nothing more starts, the runs that finished stay kept, and Run returns
// the context's error (with its cause) and the benchmark of the runs
// that finished, its [Benchmark.Incomplete] counting the runs missing.
// The iteration is written for the runs that finished only when they
// are more than its benchmark.json counts, or, without one (units write
// none), than the run folders of its plan (then benchmark.json says
// "incomplete": N): an interrupted Run never replaces an iteration with
// fewer runs. The next Run reuses the kept runs and makes the others.
// One Run or Triggers at a time writes in an Out: another waits for it.
package eval
