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
