package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// The tests of this file run `agentskills eval` (and, to check the
// stand-ins first, `agentskills run`) with the real agent CLIs against a
// stand-in model that a skill helps (modeltest.Helped): it loads the
// skill when the request lists it, and knows the answer only from the
// skill's body.

// helpedToken is the answer the skill's body gives; without the skill
// the stand-in answers helpedOtherwise.
const (
	helpedToken     = "ZEPHYR-42"
	helpedOtherwise = "I cannot tell."
	helpedPrompt    = "What is the cipher word?"
)

// judgeMarker begins the judge's prompt (eval's judgePrompt).
const judgeMarker = "You are grading one run of an AI agent"

// helpedExpectation is the string expectation the judge grades.
const helpedExpectation = "The answer is the cipher word the skill gives"

// helpedJudge is the judge of the tests: it passes a run whose
// response.md holds the token, and answers as verdict says.
func helpedJudge(verdict modeltest.JudgeVerdict) modeltest.Judge {
	return modeltest.Judge{Marker: judgeMarker, Expectations: []string{helpedExpectation}, Pass: helpedToken, Verdict: verdict}
}

// helpedRig is a rig for one agent whose stand-in model the skill
// "cipher" helps and which judges as judge says; turns counts the
// model's turns so far (the requests a run of the agent makes).
type helpedRig struct {
	*runRig
	agent string
	turns func() int
}

// helpedAgent builds a helpedRig for one agent.
type helpedAgent struct {
	agent string
	rig   func(t *testing.T, h modeltest.Helped, j modeltest.Judge) *helpedRig
}

// helpedAgents are the agents the eval tests run: Claude Code, Codex
// and Gemini CLI.
func helpedAgents() []helpedAgent {
	return []helpedAgent{
		{"claude-code", func(t *testing.T, h modeltest.Helped, j modeltest.Judge) *helpedRig {
			r := newRunRig(t, modeltest.JudgeReply(j, modeltest.SkillHelped(h)))
			return &helpedRig{r, "claude-code", func() int { return len(r.server.MessageRequests()) }}
		}},
		{"codex", func(t *testing.T, h modeltest.Helped, j modeltest.Judge) *helpedRig {
			r, s := newCodexRunRig(t, modeltest.ResponsesJudgeReply(j, modeltest.ResponsesSkillHelped(h)))
			return &helpedRig{r, "codex", func() int { return len(s.ResponseRequests()) }}
		}},
		{"gemini-cli", func(t *testing.T, h modeltest.Helped, j modeltest.Judge) *helpedRig {
			s := modeltest.NewGemini(t, modeltest.GeminiJudgeReply(j, modeltest.GeminiSkillHelped(h)))
			env, home := s.GeminiEnv(t)
			r := rigFor(t, modeltest.GeminiCLI(t), env, home)
			return &helpedRig{r, "gemini-cli", func() int { return len(s.TurnRequests()) }}
		}},
	}
}

// cipherSkill writes the skill "cipher" into a folder of its own below
// root and returns its folder: its body gives the answer token and, when
// write is set, the file to write it to.
func cipherSkill(t *testing.T, root, token, write string) string {
	t.Helper()
	body := "---\nname: cipher\ndescription: Answers questions about the cipher word.\n---\nWhen asked for the cipher word, answer with the token alone.\n\nANSWER: " + token + "\n"
	if write != "" {
		body += "WRITE: " + write + "\n"
	}
	writeSkill(t, root, "cipher", body)
	return filepath.Join(root, "cipher")
}

// cipherSuite is the evals/evals.json of the cipher skill: one case per
// id, each asking for the cipher word, graded by a command (answer.txt,
// which the skill's body has the agent write, holds the token) and, when
// judged, by the judge (the answer is the token).
func cipherSuite(t *testing.T, skillDir string, judged bool, ids ...string) {
	t.Helper()
	var cases []map[string]any
	for _, id := range ids {
		exps := []any{map[string]any{"text": "answer.txt holds the cipher word", "command": []string{"grep", "-qx", helpedToken, "answer.txt"}}}
		if judged {
			exps = append(exps, helpedExpectation)
		}
		cases = append(cases, map[string]any{"id": id, "prompt": helpedPrompt + " (case " + id + ")", "expected_output": "the cipher word", "expectations": exps})
	}
	writeJSONFile(t, filepath.Join(skillDir, "evals", "evals.json"), map[string]any{"skill_name": "cipher", "evals": cases})
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// evalCtx bounds an eval: several runs of an agent.
func evalCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestEvalHelped runs `agentskills eval` on Claude Code, Codex and
// Gemini CLI against the helped stand-in: with_skill passes, without_skill
// fails, benchmark.json says so (delta 1, its interval [1, 1], pass@1),
// and the iteration holds the guide's layout. Claude Code and Codex
// judge their own runs (the judge's expectation passes with the skill
// only); Gemini CLI runs with --judge none, which leaves that
// expectation ungraded, out of the pass rates, and counted.
func TestEvalHelped(t *testing.T) {
	t.Parallel()
	for _, a := range helpedAgents() {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			judged := a.agent != "gemini-cli"
			r := a.rig(t, modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise}, helpedJudge(modeltest.JudgeGrades))
			dir := cipherSkill(t, t.TempDir(), helpedToken, "answer.txt")
			cipherSuite(t, dir, true, "1")
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"eval", dir, "-a", a.agent, "--skip-permissions", "--out", out}
			graded, notGraded := 2, 0
			if !judged {
				args = append(args, "--judge", "none")
				graded, notGraded = 1, 1
			}
			code, stdout, errs := r.process(t, evalCtx(t), args...)
			if code != 0 {
				t.Fatalf("eval = %d; stdout %q, stderr %q", code, stdout, errs)
			}
			it := filepath.Join(out, "iteration-1")
			b := readJSON[eval.Benchmark](t, filepath.Join(it, "benchmark.json"))
			rs := b.RunSummary
			if rs.WithSkill == nil || rs.WithoutSkill == nil || rs.OldSkill != nil || rs.WithSkill.PassRate == nil || rs.WithoutSkill.PassRate == nil ||
				rs.Delta.PassRate == nil || rs.WithSkill.PassRate.Mean != 1 || rs.WithoutSkill.PassRate.Mean != 0 || *rs.Delta.PassRate != 1 {
				t.Errorf("run_summary %+v, want with_skill 1, without_skill 0, delta 1", rs)
			}
			if b.DeltaCI95 != [2]float64{1, 1} || fmt.Sprint(b.PassAtK[eval.WithSkill]) != "[1]" || fmt.Sprint(b.PassAtK[eval.WithoutSkill]) != "[0]" {
				t.Errorf("delta_ci95 %v, pass_at_k %v; want [1 1], 1 with the skill and 0 without", b.DeltaCI95, b.PassAtK)
			}
			if len(b.Cases) != 1 || b.Cases[0].Delta != 1 || len(b.Cases[0].Flags) != 0 || b.NotGraded != 2*notGraded || b.Failed != 0 || b.Reused != 0 {
				t.Errorf("cases %+v, not graded %d, failed %d, reused %d; want one case of delta 1, unflagged, %d not graded, every run new", b.Cases, b.NotGraded, b.Failed, b.Reused, 2*notGraded)
			}
			for _, tt := range []struct {
				config   eval.Config
				passed   int
				response string
			}{{eval.WithSkill, graded, helpedToken}, {eval.WithoutSkill, 0, helpedOtherwise}} {
				run := filepath.Join(it, "eval-1", string(tt.config))
				g := readJSON[eval.Grading](t, filepath.Join(run, "grading.json"))
				if g.Summary.Passed != tt.passed || g.Summary.Total != graded || g.Summary.NotGraded != notGraded || len(g.Expectations) != 2 || g.Expectations[1].Text != helpedExpectation {
					t.Errorf("%s grading %+v, want %d of %d passed, %d not graded", tt.config, g, tt.passed, graded, notGraded)
				}
				if j := g.Expectations[1]; judged && (j.Evidence == "" || j.Graded != nil) || !judged && (j.Passed || j.Graded == nil || *j.Graded) {
					t.Errorf("%s: the judge's expectation %+v; want graded with evidence %v, else marked not graded", tt.config, j, judged)
				}
				if resp, err := os.ReadFile(filepath.Join(run, "response.md")); err != nil || strings.TrimSpace(string(resp)) != tt.response {
					t.Errorf("%s response.md %q (%v), want %q", tt.config, resp, err, tt.response)
				}
				answer, err := os.ReadFile(filepath.Join(run, "outputs", "answer.txt"))
				if tt.config == eval.WithSkill && (err != nil || string(answer) != helpedToken+"\n") || tt.config == eval.WithoutSkill && err == nil {
					t.Errorf("%s outputs/answer.txt %q (%v); want the token with the skill only", tt.config, answer, err)
				}
				tm := readJSON[eval.Timing](t, filepath.Join(run, "timing.json"))
				if tm.TotalTokens <= 0 || tm.DurationMS <= 0 {
					t.Errorf("%s timing %+v, want tokens and a duration", tt.config, tm)
				}
				transcript, err := os.ReadFile(filepath.Join(run, "transcript.jsonl"))
				lines := strings.Split(strings.TrimSpace(string(transcript)), "\n")
				for _, l := range lines {
					var ev struct{ Type string }
					if json.Unmarshal([]byte(l), &ev) != nil || ev.Type == "" {
						t.Errorf("%s transcript line %q is not an event", tt.config, l)
					}
				}
				if loaded := strings.Contains(string(transcript), `"type":"skill"`); err != nil || loaded != (tt.config == eval.WithSkill) {
					t.Errorf("%s transcript (%v): the skill's load %v, want it with the skill only:\n%s", tt.config, err, loaded, transcript)
				}
			}
		})
	}
}

// processInterrupted runs agentskills as process does, and interrupts
// it (SIGINT, as Ctrl-C does) when stop is closed.
func (r *runRig) processInterrupted(t *testing.T, ctx context.Context, stop <-chan struct{}, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	bin, err := exec.LookPath("agentskills")
	if err != nil {
		t.Fatalf("agentskills is not on PATH (TestMain puts it there): %v", err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	env := append(append(os.Environ(), r.env...), "GORACE=atexit_sleep_ms=0")
	cmd.Env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") })
	cmd.Dir = r.workspace
	cmd.WaitDelay = 10 * time.Second
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			cmd.Process.Signal(os.Interrupt)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("agentskills %q: %v; stderr %q", args, err, errs.String())
	}
	return code, out.String(), errs.String()
}

// countRuns counts the runs of an iteration that finished, by their
// grading.json, per configuration.
func countRuns(t *testing.T, iteration string) map[string]int {
	t.Helper()
	n := map[string]int{}
	matches, err := filepath.Glob(filepath.Join(iteration, "eval-*", "*", "grading.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		n[filepath.Base(filepath.Dir(m))]++
	}
	return n
}

// TestEvalResume interrupts `agentskills eval` on Codex as Ctrl-C does,
// in the middle of its matrix, and runs it again: the runs that finished
// are reused, and the stand-in's count of requests shows that only the
// others ran; then the same command reuses everything, a larger --runs
// runs only the new runs, and --fresh runs everything again.
func TestEvalResume(t *testing.T) {
	t.Parallel()
	var (
		calls, stopAt atomic.Int32
		stop          = make(chan struct{})
		once          sync.Once
	)
	helped := modeltest.ResponsesSkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise})
	r, s := newCodexRunRig(t, func(req *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		if n := calls.Add(1); n == stopAt.Load() {
			once.Do(func() { close(stop) })
			return modeltest.ResponsesStall()
		}
		return helped(req)
	})
	dir := cipherSkill(t, t.TempDir(), helpedToken, "answer.txt")
	cipherSuite(t, dir, false, "1", "2")
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"eval", dir, "-a", "codex", "--skip-permissions", "--judge", "none", "--out", out}
	it := filepath.Join(out, "iteration-1")
	// A run with the skill asks the model three times (it reads the skill,
	// writes the answer, answers), one without it once.
	const withCalls, withoutCalls = 3, 1
	full := 2 * (withCalls + withoutCalls)
	requests := func() int { return len(s.ResponseRequests()) }

	stopAt.Store(5) // the second run's or the third's
	code, _, errs := r.processInterrupted(t, evalCtx(t), stop, args...)
	if code != 130 {
		t.Fatalf("interrupted eval = %d, stderr %q; want 130", code, errs)
	}
	kept := countRuns(t, it)
	total := kept[string(eval.WithSkill)] + kept[string(eval.WithoutSkill)]
	if total == 0 || total >= 4 {
		t.Fatalf("the interrupted eval kept %v; want some of the 4 runs", kept)
	}
	if left := modeltest.Processes(r.marker); len(left) > 0 {
		t.Errorf("processes left after the interruption: %v", left)
	}

	for _, tt := range []struct {
		name    string
		flags   []string
		calls   int // requests the eval makes
		reused  int
		passAtK string
	}{
		{"resumed", nil, full - withCalls*kept[string(eval.WithSkill)] - withoutCalls*kept[string(eval.WithoutSkill)], total, "[1]"},
		{"again", nil, 0, 4, "[1]"},
		{"more runs", []string{"--runs", "2"}, full, 4, "[1 1]"},
		{"fresh", []string{"--fresh"}, full, 0, "[1]"},
	} {
		before := requests()
		code, stdout, errs := r.process(t, evalCtx(t), append(args, tt.flags...)...)
		if code != 0 {
			t.Fatalf("%s: eval = %d; stdout %q, stderr %q", tt.name, code, stdout, errs)
		}
		b := readJSON[eval.Benchmark](t, filepath.Join(it, "benchmark.json"))
		if got := requests() - before; got != tt.calls || b.Reused != tt.reused {
			t.Errorf("%s: %d requests, %d runs reused; want %d and %d", tt.name, got, b.Reused, tt.calls, tt.reused)
		}
		rs := b.RunSummary
		if rs.WithSkill == nil || rs.WithoutSkill == nil || rs.WithSkill.PassRate.Mean != 1 || rs.WithoutSkill.PassRate.Mean != 0 || !isDelta(rs.Delta.PassRate, 1) ||
			fmt.Sprint(b.PassAtK[eval.WithSkill]) != tt.passAtK {
			t.Errorf("%s: run_summary %+v, pass@k %v; want the whole matrix, delta 1, pass@k %s", tt.name, rs, b.PassAtK, tt.passAtK)
		}
	}
}

// TestEvalTriggers runs the trigger evaluations of the cipher skill, in
// the company of another skill, on each agent against the helped
// stand-in, which loads the skill for a prompt about the cipher: a query
// that should trigger does, one that should not does not, and one marked
// should not but about the cipher does, which triggers.json counts
// against the precision.
func TestEvalTriggers(t *testing.T) {
	t.Parallel()
	for _, a := range helpedAgents() {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			r := a.rig(t, modeltest.Helped{Skill: "cipher", Topic: "cipher", Otherwise: helpedOtherwise}, modeltest.Judge{})
			dir := cipherSkill(t, t.TempDir(), helpedToken, "")
			queries := []eval.Query{
				{Query: "What is the cipher word?", ShouldTrigger: true},
				{Query: "What is the weather in Paris today?", ShouldTrigger: false},
				{Query: "Spell the cipher word backwards.", ShouldTrigger: false},
			}
			writeJSONFile(t, filepath.Join(dir, "evals", "eval_queries.json"), queries)
			other := t.TempDir()
			writeSkill(t, other, "weather", "---\nname: weather\ndescription: Forecasts the weather.\n---\nSay it will rain.\n")
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, errs := r.process(t, evalCtx(t), "eval", dir, "-a", a.agent, "-s", filepath.Join(other, "weather"), "--runs", "1", "--out", out)
			if code != 0 {
				t.Fatalf("eval = %d; stdout %q, stderr %q", code, stdout, errs)
			}
			tr := readJSON[eval.Triggers](t, filepath.Join(out, "iteration-1", "triggers.json"))
			got, ok := tr.Agents[a.agent]
			if !ok || len(got.Queries) != 3 || got.Failed != 0 {
				t.Fatalf("triggers.json %+v, want the 3 queries of %s", tr, a.agent)
			}
			for i, want := range []struct {
				triggers int
				passed   bool
			}{{1, true}, {0, true}, {1, false}} {
				if q := got.Queries[i]; q.Query != queries[i].Query || q.Triggers != want.triggers || q.Runs != 1 || q.Passed != want.passed {
					t.Errorf("query %d: %+v, want %d triggers of 1 run, passed %v", i, q, want.triggers, want.passed)
				}
			}
			if got.Precision != 0.5 || got.Recall != 1 {
				t.Errorf("precision %v, recall %v; want 0.5 and 1", got.Precision, got.Recall)
			}
		})
	}
}

// TestEvalJudgeAnswers runs `agentskills eval` on Claude Code judged by
// a stand-in that answers garbage: the judge's expectation is a failed
// grading saying why, never a pass, in both configurations, while the
// command's expectation is graded as before.
func TestEvalJudgeAnswers(t *testing.T) {
	t.Parallel()
	r := helpedAgents()[0].rig(t, modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise}, helpedJudge(modeltest.JudgeGarbage))
	dir := cipherSkill(t, t.TempDir(), helpedToken, "answer.txt")
	cipherSuite(t, dir, true, "1")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errs := r.process(t, evalCtx(t), "eval", dir, "-a", "claude-code", "--skip-permissions", "--out", out)
	if code != 0 {
		t.Fatalf("eval = %d; stdout %q, stderr %q", code, stdout, errs)
	}
	it := filepath.Join(out, "iteration-1")
	for config, passed := range map[eval.Config]int{eval.WithSkill: 1, eval.WithoutSkill: 0} {
		g := readJSON[eval.Grading](t, filepath.Join(it, "eval-1", string(config), "grading.json"))
		if len(g.Expectations) != 2 || g.Summary.Passed != passed || g.Summary.Total != 2 {
			t.Fatalf("%s grading %+v, want %d of 2", config, g, passed)
		}
		if j := g.Expectations[1]; j.Passed || !strings.Contains(j.Evidence, "did not parse") || !strings.Contains(j.Evidence, "Looks fine to me") {
			t.Errorf("%s: the judge's expectation %+v; want a failure saying the answer did not parse, quoting it", config, j)
		}
	}
	b := readJSON[eval.Benchmark](t, filepath.Join(it, "benchmark.json"))
	if rs := b.RunSummary; rs.WithSkill.PassRate.Mean != 0.5 || rs.WithoutSkill.PassRate.Mean != 0 {
		t.Errorf("run_summary %+v, want 0.5 with the skill (the command's pass alone) and 0 without", rs)
	}
}

// TestUpdateEvalGate installs the cipher skill for Codex from a folder
// source and changes the source twice: update --eval accepts content
// that the helped stand-in answers right (an improvement over the pinned
// content, which it answers wrong), and refuses a planted regression,
// leaving the pin and the installed copy as they were; a dry run gives
// the refusal again from the kept runs.
func TestUpdateEvalGate(t *testing.T) {
	t.Parallel()
	r, s := newCodexRunRig(t, modeltest.ResponsesSkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise}))
	src := t.TempDir()
	version := func(token string) {
		cipherSkill(t, src, token, "answer.txt")
		cipherSuite(t, filepath.Join(src, "cipher"), false, "1")
	}
	lockPath := filepath.Join(r.workspace, ".agents", "agentskills.lock")
	installed := filepath.Join(r.workspace, ".agents", "skills", "cipher", "SKILL.md")
	version("WRONG-1")
	if code, _, errs := r.process(t, runCtx(t), "add", src, "-a", "codex"); code != 0 {
		t.Fatalf("add = %d: %s", code, errs)
	}
	update := []string{"update", "cipher", "--eval", "--skip-permissions", "--judge", "none"}

	version(helpedToken)
	code, out, errs := r.process(t, evalCtx(t), update...)
	body, _ := os.ReadFile(installed)
	if code != 0 || !strings.Contains(string(body), "ANSWER: "+helpedToken) || !strings.Contains(out, "+1.00") {
		t.Fatalf("update --eval of an improvement = %d (stdout %q, stderr %q), installed %q; want 0, the delta +1.00 and the new content", code, out, errs, body)
	}
	lock, _ := os.ReadFile(lockPath)

	version("WRONG-2")
	code, out, errs = r.process(t, evalCtx(t), update...)
	if code != 1 || !strings.Contains(out, "-1.00") || !strings.Contains(errs, "refused") {
		t.Errorf("update --eval of a regression = %d (stdout %q, stderr %q); want 1, the delta -1.00 and the refusal", code, out, errs)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(lock) {
		t.Errorf("the refused update changed the lock file:\n%s\nwas\n%s", after, lock)
	}
	if body, _ := os.ReadFile(installed); !strings.Contains(string(body), "ANSWER: "+helpedToken) {
		t.Errorf("the refused update installed %q", body)
	}

	// --dry-run --json gives the same verdict from the kept runs, asking
	// the model nothing, and changes nothing either.
	before := len(s.ResponseRequests())
	code, out, errs = r.process(t, evalCtx(t), append(update, "--dry-run", "--json")...)
	var got updateOutput
	var last errorLine
	dec := json.NewDecoder(strings.NewReader(out)) // the document, then the error line
	err := dec.Decode(&got)
	if err == nil {
		err = dec.Decode(&last)
	}
	if code != 1 || err != nil || last.Code != codeCheck || len(got.Evals) != 1 || got.Evals[0].Accepted || got.Evals[0].Delta != -1 ||
		got.Evals[0].Benchmark == nil || got.Evals[0].Benchmark.Reused != 2 {
		t.Errorf("update --eval --dry-run --json = %d, %q (%v), stderr %q; want 1, the refusal, delta -1, both runs reused, and an error line", code, out, err, errs)
	}
	if n := len(s.ResponseRequests()) - before; n != 0 {
		t.Errorf("the dry run asked the model %d times, want none", n)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(lock) {
		t.Errorf("the dry run changed the lock file")
	}
}

// TestEvalAgents runs one `agentskills eval` on Claude Code and Codex
// together, Claude Code judging both: each agent's layout is in its own
// folder of the iteration, and the top-level benchmark.json pools the
// runs and gives each agent's run_summary.
func TestEvalAgents(t *testing.T) {
	t.Parallel()
	claude := modeltest.NewAnthropic(t, modeltest.JudgeReply(helpedJudge(modeltest.JudgeGrades), modeltest.SkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise})))
	r, _ := newCodexRunRig(t, modeltest.ResponsesSkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise}))
	claudeEnv, _ := claude.ClaudeEnv(t)
	for _, kv := range claudeEnv {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "PATH" && k != "TMPDIR" {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "PATH="+filepath.Dir(modeltest.ClaudeCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := cipherSkill(t, t.TempDir(), helpedToken, "answer.txt")
	cipherSuite(t, dir, true, "1")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errs := r.process(t, evalCtx(t), "eval", dir, "-a", "claude-code,codex", "--skip-permissions", "--out", out)
	if code != 0 {
		t.Fatalf("eval = %d; stdout %q, stderr %q", code, stdout, errs)
	}
	it := filepath.Join(out, "iteration-1")
	b := readJSON[eval.Benchmark](t, filepath.Join(it, "benchmark.json"))
	if rs := b.RunSummary; rs.WithSkill == nil || rs.WithSkill.PassRate.Mean != 1 || rs.WithoutSkill == nil || rs.WithoutSkill.PassRate.Mean != 0 || len(b.Agents) != 2 {
		t.Errorf("benchmark.json %+v, want both agents' runs pooled and each agent's summary", b)
	}
	for _, agent := range []string{"claude-code", "codex"} {
		if rs, ok := b.Agents[agent]; !ok || !isDelta(rs.Delta.PassRate, 1) {
			t.Errorf("agents[%s] = %+v, want delta 1", agent, rs)
		}
		for config, passed := range map[eval.Config]int{eval.WithSkill: 2, eval.WithoutSkill: 0} {
			g := readJSON[eval.Grading](t, filepath.Join(it, agent, "eval-1", string(config), "grading.json"))
			if g.Summary.Passed != passed || g.Summary.Total != 2 {
				t.Errorf("%s %s grading %+v, want %d of 2 (the judge's included)", agent, config, g, passed)
			}
		}
	}
	if claudeRuns := len(claude.MessageRequests()); claudeRuns == 0 {
		t.Error("Claude Code was never asked")
	}
}

// isDelta reports whether the pass rate's delta d is there and is want.
func isDelta(d *float64, want float64) bool { return d != nil && *d == want }

// TestUpdateEvalGlobalClaude installs the cipher skill for Claude Code
// with --global (so the user's ~/.claude/skills holds the pinned
// content) and changes its source: update --global --eval runs Claude
// Code without the user's skills folder, so the installed copy neither
// refuses the runs as a shadow nor stands in for the new content. The
// helped stand-in answers right only from the new content: the delta
// +1.00 shows the with_skill runs read it, not the user's copy.
func TestUpdateEvalGlobalClaude(t *testing.T) {
	t.Parallel()
	r := newRunRig(t, modeltest.SkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise}))
	src := t.TempDir()
	version := func(token string) {
		cipherSkill(t, src, token, "answer.txt")
		cipherSuite(t, filepath.Join(src, "cipher"), false, "1")
	}
	installed := filepath.Join(r.home, ".claude", "skills", "cipher", "SKILL.md")
	version("WRONG-1")
	if code, _, errs := r.process(t, runCtx(t), "add", "--global", src, "-a", "claude-code"); code != 0 {
		t.Fatalf("add --global = %d: %s", code, errs)
	}
	if body, err := os.ReadFile(installed); err != nil || !strings.Contains(string(body), "WRONG-1") {
		t.Fatalf("add --global installed %q, %v; want the skill in the user's ~/.claude/skills", body, err)
	}
	version(helpedToken)
	code, out, errs := r.process(t, evalCtx(t), "update", "--global", "cipher", "--eval", "--skip-permissions", "--judge", "none")
	body, _ := os.ReadFile(installed)
	if code != 0 || strings.Contains(errs, "shadow") || !strings.Contains(out, "+1.00") || !strings.Contains(string(body), "ANSWER: "+helpedToken) {
		t.Fatalf("update --global --eval of an improvement = %d (stdout %q, stderr %q), installed %q; want 0, the delta +1.00 and the new content", code, out, errs, body)
	}
}

// TestUpdateEvalGlobalOthers does what TestUpdateEvalGlobalClaude does
// for Gemini CLI, whose overlay home then links no skill of the user's,
// so the update is judged (+1.00) and goes through; and for Codex, which
// reads ~/.agents/skills (where --global installs for it) whatever it
// is given: there each run fails as a shadow naming the user's copy,
// and the update is refused, changing nothing.
func TestUpdateEvalGlobalOthers(t *testing.T) {
	t.Parallel()
	for _, a := range helpedAgents()[1:] {
		t.Run(a.agent, func(t *testing.T) {
			r := a.rig(t, modeltest.Helped{Skill: "cipher", Otherwise: helpedOtherwise}, helpedJudge(modeltest.JudgeGrades))
			src := t.TempDir()
			version := func(token string) {
				cipherSkill(t, src, token, "answer.txt")
				cipherSuite(t, filepath.Join(src, "cipher"), false, "1")
			}
			installed := filepath.Join(r.home, ".agents", "skills", "cipher", "SKILL.md")
			version("WRONG-1")
			if code, _, errs := r.process(t, runCtx(t), "add", "--global", src, "-a", a.agent); code != 0 {
				t.Fatalf("add --global = %d: %s", code, errs)
			}
			version(helpedToken)
			code, out, errs := r.process(t, evalCtx(t), "update", "--global", "cipher", "--eval", "--skip-permissions", "--judge", "none")
			body, _ := os.ReadFile(installed)
			if a.agent == "codex" {
				if code != 1 || !strings.Contains(errs, "would shadow it") || !strings.Contains(errs, filepath.Dir(installed)) || !strings.Contains(string(body), "WRONG-1") {
					t.Errorf("update --global --eval on Codex = %d (stdout %q, stderr %q), installed %q; want 1, the user's copy named as a shadow, nothing changed", code, out, errs, body)
				}
				return
			}
			if code != 0 || strings.Contains(errs, "shadow") || !strings.Contains(out, "+1.00") || !strings.Contains(string(body), "ANSWER: "+helpedToken) {
				t.Errorf("update --global --eval of an improvement = %d (stdout %q, stderr %q), installed %q; want 0, the delta +1.00 and the new content", code, out, errs, body)
			}
		})
	}
}
