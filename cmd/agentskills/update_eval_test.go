package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lockedDigest is the digest the project's lock file records for name.
func (r *evalRig) lockedDigest(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.project, ".agents", "agentskills.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Skills map[string]struct{ Digest string } `json:"skills"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	return lock.Skills[name].Digest
}

// installed adds the skill review, whose SKILL.md says body, from a
// folder it returns.
func (r *evalRig) installed(t *testing.T, body string) string {
	t.Helper()
	src := r.skill(t, filepath.Join(t.TempDir(), "review"), "review", body, helpedEvals)
	if code, _, stderr := r.run(t, "add", src, "--agent", "claude-code"); code != 0 {
		t.Fatalf("add = %d, stderr %q", code, stderr)
	}
	return src
}

// TestUpdateEvalRefusesRegression checks that update --eval refuses new
// content whose pass rate drops (exit 1, both summaries printed, nothing
// changed), with --json too (the document, then the error line), and
// that --min-delta lets a drop within it through.
func TestUpdateEvalRefusesRegression(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "WRITE-ANSWER")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "Nothing helpful.", helpedEvals)
	args := []string{"update", "--eval", "--agent-command", r.agent, "--judge", "none"}

	code, stdout, stderr := r.run(t, args...)
	if code != exitFailed || !strings.Contains(stdout, "review: refused") || !strings.Contains(stdout, "OLD_SKILL") || !strings.Contains(stderr, "update refused") {
		t.Errorf("update --eval of a regression = %d, stdout %q, stderr %q; want 1, refused with both summaries", code, stdout, stderr)
	}
	if got := r.lockedDigest(t, "review"); got != pinned {
		t.Errorf("a refused update --eval moved the pin to %s", got)
	}
	installed, _ := os.ReadFile(filepath.Join(r.project, ".agents", "skills", "review", "SKILL.md"))
	if !bytes.Contains(installed, []byte("WRITE-ANSWER")) {
		t.Errorf("a refused update --eval changed the installed skill: %s", installed)
	}

	code, stdout, _ = r.run(t, append(args, "--json")...)
	dec := json.NewDecoder(strings.NewReader(stdout))
	var doc updateOutput
	var line errorLine
	if err := dec.Decode(&doc); err != nil || dec.Decode(&line) != nil {
		t.Fatalf("update --eval --json = %q: want the document, then the error line", stdout)
	}
	if code != exitFailed || len(doc.Evals) != 1 || doc.Evals[0].Accepted || doc.Evals[0].Delta != -1 || line.Code != codeCheck {
		t.Errorf("update --eval --json of a regression = %d, %+v, %+v; want refused with delta -1, code check", code, doc.Evals, line)
	}

	code, stdout, stderr = r.run(t, append(args, "--min-delta", "1")...)
	if code != 0 || !strings.Contains(stdout, "review: accepted") || r.lockedDigest(t, "review") == pinned {
		t.Errorf("update --eval --min-delta 1 = %d, stdout %q, stderr %q; want the drop accepted, the pin moved", code, stdout, stderr)
	}
}

// TestUpdateEvalAcceptsImprovement checks that update --eval --dry-run
// prints an accepting verdict and changes nothing, and that update
// --eval then installs the content evaluated.
func TestUpdateEvalAcceptsImprovement(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "Nothing helpful.")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "WRITE-ANSWER", helpedEvals)

	code, stdout, stderr := r.run(t, "update", "--eval", "--dry-run", "--agent-command", r.agent, "--judge", "none")
	if code != 0 || !strings.Contains(stdout, "review: accepted (pass-rate delta +1.00)") || !strings.Contains(stdout, "Dry run") {
		t.Errorf("update --eval --dry-run = %d, stdout %q, stderr %q; want accepted, a dry run", code, stdout, stderr)
	}
	if r.lockedDigest(t, "review") != pinned {
		t.Error("update --eval --dry-run moved the pin")
	}
	code, stdout, stderr = r.run(t, "update", "--eval", "--agent-command", r.agent, "--judge", "none")
	if code != 0 || !strings.Contains(stdout, "Updated 1 skill") || !strings.Contains(stderr, "(reused)") {
		t.Errorf("update --eval = %d, stdout %q, stderr %q; want updated, the dry run's runs reused", code, stdout, stderr)
	}
	if r.lockedDigest(t, "review") == pinned {
		t.Error("an accepted update --eval did not move the pin")
	}
	if _, err := os.Stat(filepath.Join(r.project, "review-workspace", "iteration-1", "benchmark.json")); err != nil {
		t.Errorf("update --eval wrote no benchmark in ./review-workspace: %v", err)
	}
}

// TestUpdateEvalWithoutEvals checks that new content without
// evals/evals.json cannot be judged and is refused, changing nothing.
func TestUpdateEvalWithoutEvals(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "WRITE-ANSWER")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "WRITE-ANSWER again", "")
	os.Remove(filepath.Join(src, "evals", "evals.json"))
	code, stdout, _ := r.run(t, "update", "--eval", "--agent-command", r.agent, "--judge", "none")
	if code != exitFailed || !strings.Contains(stdout, "no evals/evals.json") || r.lockedDigest(t, "review") != pinned {
		t.Errorf("update --eval of content without evals = %d, stdout %q; want 1, refused, nothing changed", code, stdout)
	}
	if r.agentRan() {
		t.Error("update --eval of content without evals ran the agent")
	}
}

// TestUpdateEvalFlagsNeedEval checks that a flag of --eval given
// without it is bad usage, and changes nothing.
func TestUpdateEvalFlagsNeedEval(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "WRITE-ANSWER")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "Nothing helpful.", helpedEvals)
	for _, flag := range [][]string{{"--min-delta", "0.1"}, {"--agent", "codex"}, {"--judge", "none"}, {"--runs", "2"}, {"--agent-command", r.agent}} {
		code, _, stderr := r.run(t, append([]string{"update"}, flag...)...)
		if code != exitUsage || !strings.Contains(stderr, flag[0]+" is for --eval") || r.lockedDigest(t, "review") != pinned {
			t.Errorf("update %s without --eval = %d, stderr %q; want 2, nothing changed", flag, code, stderr)
		}
	}
}

// TestUpdateEvalInterrupted checks that Ctrl-C during update --eval
// exits 130, changes nothing, keeps the finished run and says how to
// resume.
func TestUpdateEvalInterrupted(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "WRITE-ANSWER")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "BLOCK", helpedEvals)
	block := filepath.Join(t.TempDir(), "blocked")
	t.Setenv("FAKE_BLOCK", block)
	args := []string{"update", "--eval", "--agent-command", r.agent, "--judge", "none", "--jobs", "2"}
	code, stderr := r.interrupt(t, args, filepath.Join(r.project, "review-workspace"), block)
	if code != exitInterrupted || !strings.Contains(stderr, "agentskills update: stopped; 1 finished run is kept") {
		t.Errorf("an interrupted update --eval = %d, stderr %q; want 130, the run kept", code, stderr)
	}
	if r.lockedDigest(t, "review") != pinned {
		t.Error("an interrupted update --eval moved the pin")
	}
}

// A skill whose content did not move at the dry run is pinned to its
// digest too: its source moves while the other skill is evaluated (the
// stand-in agent edits it), and the update must not install it
// unevaluated.
func TestUpdateEvalUnevaluatedSkillMoves(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "Nothing helpful.")
	lint := r.skill(t, filepath.Join(t.TempDir(), "lint"), "lint", "LINT-V1", strings.Replace(helpedEvals, "review", "lint", 1))
	if code, _, stderr := r.run(t, "add", lint, "--agent", "claude-code"); code != 0 {
		t.Fatalf("add lint = %d, %s", code, stderr)
	}
	lintPinned := r.lockedDigest(t, "lint")
	r.skill(t, src, "review", "WRITE-ANSWER", helpedEvals)
	// A stand-in that, on its first run, rewrites lint's source folder.
	wrapper := filepath.Join(t.TempDir(), "claude")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nif [ \"$1\" != --version ]; then sed -i s/LINT-V1/LINT-V2-UNEVALUATED/ '"+filepath.Join(lint, "SKILL.md")+"'; fi\nexec '"+r.agent+"' \"$@\"\n"), 0o755)
	code, stdout, stderr := r.run(t, "update", "--eval", "--agent-command", wrapper, "--judge", "none")
	b, _ := os.ReadFile(filepath.Join(r.project, ".agents", "skills", "lint", "SKILL.md"))
	t.Logf("code %d stdout %q stderr %q", code, stdout, stderr)
	if strings.Contains(string(b), "UNEVALUATED") || r.lockedDigest(t, "lint") != lintPinned {
		t.Errorf("update --eval installed lint's content that moved during the evaluation, never evaluated: %s", b)
	}
}

// Every run fails (the agent cannot finish): both pass rates 0, delta 0;
// the update is refused, nothing changes.
func TestUpdateEvalAllRunsFailed(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "WRITE-ANSWER")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "Nothing helpful.", helpedEvals)
	t.Setenv("FAKE_FAIL", "1")
	code, stdout, stderr := r.run(t, "update", "--eval", "--agent-command", r.agent, "--judge", "none")
	t.Logf("code %d stdout %q stderr %q", code, stdout, stderr)
	if r.lockedDigest(t, "review") != pinned {
		t.Errorf("update --eval moved the pin though no run finished (code %d)", code)
	}
	if code != exitFailed || !strings.Contains(stdout, "evaluation incomplete: 2 runs failed; run again") ||
		!strings.Contains(stderr, "review: claude-code eval-1 with_skill run 1: failed") ||
		!strings.Contains(stderr, "agentskills update: review: update refused: ") {
		t.Errorf("update --eval with every run failed = %d, stdout %q, stderr %q; want 1, the reason, the refusal", code, stdout, stderr)
	}
}

// Only string expectations and --judge none: nothing graded, delta 0:
// no verdict, the update is refused and the summary says why.
func TestUpdateEvalNothingGraded(t *testing.T) {
	r := newEvalRig(t)
	only := `{"skill_name": "review", "evals": [{"id": 1, "prompt": "Review the change", "expectations": ["The review is polite"]}]}`
	src := r.skill(t, filepath.Join(t.TempDir(), "review"), "review", "WRITE-ANSWER", only)
	if code, _, stderr := r.run(t, "add", src, "--agent", "claude-code"); code != 0 {
		t.Fatalf("add = %d, %s", code, stderr)
	}
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "Nothing helpful.", only)
	code, stdout, stderr := r.run(t, "update", "--eval", "--agent-command", r.agent, "--judge", "none")
	t.Logf("code %d stdout %q stderr %q", code, stdout, stderr)
	if code == 0 && r.lockedDigest(t, "review") != pinned {
		t.Errorf("update --eval accepted an update no expectation was graded for")
	}
	if code != exitFailed || !strings.Contains(stdout, "no expectation was graded") || !strings.Contains(stdout, "--judge none") {
		t.Errorf("update --eval with nothing graded = %d, stdout %q; want 1 and the reason", code, stdout)
	}
	if row := lineWith(stdout, "claude-code"); !strings.Contains(row, "-  ") || strings.Contains(row, "0.00") {
		t.Errorf("the summary row of nothing graded = %q; want - for the pass rates and the delta", row)
	}
}

// update --global --eval takes its default agents from the user's lock
// file it updates, not the project's; the user's installed copy of the
// skill (in ~/.claude/skills, the old content) is left out of the runs
// (--setting-sources project,local) rather than refusing them as a
// shadow, so the update is judged and goes through.
func TestUpdateEvalGlobalAgents(t *testing.T) {
	r := newEvalRig(t)
	src := r.skill(t, filepath.Join(t.TempDir(), "review"), "review", "Nothing helpful.", helpedEvals)
	if code, _, stderr := r.run(t, "add", "--global", src, "--agent", "claude-code"); code != 0 {
		t.Fatalf("add -g = %d, %s", code, stderr)
	}
	r.skill(t, src, "review", "WRITE-ANSWER", helpedEvals)
	code, stdout, stderr := r.run(t, "update", "--global", "--eval", "--agent-command", r.agent, "--judge", "none")
	t.Logf("code %d stdout %q stderr %q", code, stdout, stderr)
	// The agent is the user's lock file's: the evaluation runs on it.
	if strings.Contains(stderr, "missing --agent") || !strings.Contains(stdout, "\nclaude-code ") {
		t.Errorf("update --global --eval = %d; the user's lock records claude-code", code)
	}
	if code != 0 || strings.Contains(stderr, "shadow") || !strings.Contains(stdout, "review: accepted (pass-rate delta +1.00)") {
		t.Errorf("update --global --eval = %d; want the improvement accepted, no run refused for the user's installed copy", code)
	}
	if log, _ := os.ReadFile(r.log); !strings.Contains(string(log), "--setting-sources=project,local") {
		t.Errorf("the runs of update --eval were given %q; want --setting-sources project,local", log)
	}
}

// --min-delta NaN or Inf would accept any regression: bad usage.
func TestUpdateEvalMinDeltaNaN(t *testing.T) {
	r := newEvalRig(t)
	src := r.installed(t, "WRITE-ANSWER")
	pinned := r.lockedDigest(t, "review")
	r.skill(t, src, "review", "Nothing helpful.", helpedEvals)
	code, stdout, stderr := r.run(t, "update", "--eval", "--agent-command", r.agent, "--judge", "none", "--min-delta", "NaN")
	t.Logf("%d %q %q", code, stdout, stderr)
	if code != exitUsage && r.lockedDigest(t, "review") != pinned {
		t.Errorf("update --eval --min-delta NaN installed a regression (delta -1)")
	}
	if code, _, stderr := r.run(t, "update", "--eval", "--agent-command", r.agent, "--runs", "5000"); code != exitUsage || !strings.Contains(stderr, "--runs 5000") {
		t.Errorf("update --eval --runs 5000 = %d, %q; want bad usage", code, stderr)
	}
	for _, v := range []string{"NaN", "Inf", "-Inf"} {
		if code, _, stderr := r.run(t, "update", "--eval", "--agent-command", r.agent, "--min-delta", v); code != exitUsage || !strings.Contains(stderr, "--min-delta") {
			t.Errorf("--min-delta %s = %d, %q; want bad usage", v, code, stderr)
		}
	}
	if r.agentRan() {
		t.Error("an agent ran before the usage error")
	}
}

// lineWith is the first line of s that holds sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
