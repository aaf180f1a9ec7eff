package eval

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestJudgeRealClaude grades a run with the real Claude Code as the
// judge, against stand-ins that read response.md and then answer the
// grading shape (a pass and a failure, from what they read), garbage,
// or nothing: garbage and silence past the judge timeout are failed
// gradings saying why, and the silent judge's process is stopped.
func TestJudgeRealClaude(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Claude Code")
	}
	t.Parallel()
	const token, text = "ZEPHYR-42", "The answer is the cipher word"
	c := Case{Prompt: "What is the cipher word?", Expectations: []Expectation{{Text: text}, {Text: "ok", Command: []string{"true"}}}}
	for _, tt := range []struct {
		name     string
		verdict  modeltest.JudgeVerdict
		response string
		passed   bool
		evidence string
	}{
		{"passes", modeltest.JudgeGrades, token + "\n", true, `response.md holds "ZEPHYR-42"`},
		{"fails", modeltest.JudgeGrades, "I cannot tell.\n", false, `response.md does not hold "ZEPHYR-42"`},
		{"garbage", modeltest.JudgeGarbage, token + "\n", false, "the judge's answer did not parse"},
		{"silent", modeltest.JudgeStalls, token + "\n", false, "the judge did not answer within 10s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cli := modeltest.ClaudeCLI(t)
			j := modeltest.Judge{Marker: "You are grading one run of an AI agent", Expectations: []string{text}, Pass: token, Verdict: tt.verdict}
			s := modeltest.NewAnthropic(t, modeltest.JudgeReply(j, modeltest.Always(modeltest.Text("not a judge's request"))))
			env, _ := s.ClaudeEnv(t)
			marker := rand.Text()
			env = append(env, "AGENTADAPTOR_TEST_RUN="+marker)
			drv := claude.Driver(claude.Config{Command: cli, Env: env, CacheRoot: t.TempDir(), GracePeriod: time.Second})
			timeout := 2 * time.Minute // a bound on a slow machine, never reached
			if tt.verdict == modeltest.JudgeStalls {
				timeout = 10 * time.Second
			}
			e := New(WithMaterializer(skill.NewCache(skill.WithSkillCacheRoot(t.TempDir()))), WithJudgeTimeout(timeout))
			skillDir, runDir, ws := gradeDirs(t)
			if err := os.WriteFile(filepath.Join(runDir, "response.md"), []byte(tt.response), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			g, settled := e.grade(t.Context(), &Agent{ID: "claude-code", Driver: drv}, skillDir, c, runDir, ws, &adaptor.Result{Text: tt.response})
			took := time.Since(start)
			if want := tt.verdict != modeltest.JudgeStalls; settled != want {
				t.Errorf("grading kept %v, want %v: only a judge that timed out is graded again", settled, want)
			}
			if len(g.Expectations) != 2 || !g.Expectations[1].Passed {
				t.Fatalf("grading %+v, want the judged expectation and the command's pass", g)
			}
			if x := g.Expectations[0]; x.Text != text || x.Passed != tt.passed || !strings.Contains(x.Evidence, tt.evidence) {
				t.Errorf("judged %+v, want passed %v with evidence %q", x, tt.passed, tt.evidence)
			}
			var judged int
			for _, r := range s.MessageRequests() {
				if strings.Contains(r.Prompt(), j.Marker) {
					judged++
				}
			}
			// A judge that answers asks twice: its read, its answer. The
			// silent one may be stopped before its second question on a
			// loaded machine: once is enough to show it ran.
			want := 2
			if tt.verdict == modeltest.JudgeStalls {
				want = 1
			}
			if judged < want {
				t.Errorf("the judge asked the model %d times, want at least %d", judged, want)
			}
			if tt.verdict == modeltest.JudgeStalls && took > 30*time.Second {
				t.Errorf("the silent judge took %v, want it stopped soon after 10s", took)
			}
			if left := modeltest.Processes(marker); len(left) > 0 {
				t.Errorf("processes left: %v", left)
			}
		})
	}
}

// TestRunJudgeTimeoutRealClaude runs a suite through Run on the real
// Claude Code, judged by Claude Code against a stand-in that reads and
// then never answers: past WithJudgeTimeout each run's judged
// expectation fails saying so, the command's is graded as usual, the
// benchmark counts the runs as graded, and no process is left.
func TestRunJudgeTimeoutRealClaude(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Claude Code")
	}
	t.Parallel()
	cli := modeltest.ClaudeCLI(t)
	const text = "The answer is the cipher word"
	j := modeltest.Judge{Marker: "You are grading one run of an AI agent", Expectations: []string{text}, Pass: "ZEPHYR-42", Verdict: modeltest.JudgeStalls}
	s := modeltest.NewAnthropic(t, modeltest.JudgeReply(j, modeltest.SkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: "I cannot tell."})))
	env, _ := s.ClaudeEnv(t)
	marker := rand.Text()
	env = append(env, "AGENTADAPTOR_TEST_RUN="+marker)
	agent := Agent{ID: "claude-code", Driver: claude.Driver(claude.Config{Command: cli, Env: env, CacheRoot: t.TempDir(), GracePeriod: time.Second})}

	dir := filepath.Join(t.TempDir(), "cipher")
	if err := os.MkdirAll(filepath.Join(dir, "evals"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"SKILL.md":         "---\nname: cipher\ndescription: Answers questions about the cipher word.\n---\nANSWER: ZEPHYR-42\n",
		"evals/evals.json": `{"skill_name": "cipher", "evals": [{"id": 1, "prompt": "What is the cipher word?", "expectations": ["` + text + `", {"text": "ran", "command": ["true"]}]}]}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := New(WithMaterializer(skill.NewCache(skill.WithSkillCacheRoot(t.TempDir()))), WithJudgeTimeout(5*time.Second))
	b, err := e.Run(t.Context(), Request{Skill: skill.Dir(dir), Agents: []Agent{agent}, Judge: &agent, Out: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	for _, config := range []Config{WithSkill, WithoutSkill} {
		var g Grading
		data, err := os.ReadFile(filepath.Join(b.Iteration, "eval-1", string(config), "grading.json"))
		if err == nil {
			err = json.Unmarshal(data, &g)
		}
		if err != nil || len(g.Expectations) != 2 {
			t.Fatalf("%s grading.json %s (%v)", config, data, err)
		}
		if x := g.Expectations[0]; x.Passed || x.Evidence != "the judge did not answer within 5s" || !g.Expectations[1].Passed || g.Summary.Total != 2 {
			t.Errorf("%s grading %+v; want the judged expectation failed by the timeout, the command's passed", config, g)
		}
	}
	if b.Failed != 0 || b.NotGraded != 0 || b.RunSummary.WithSkill.PassRate.Mean != 0.5 {
		t.Errorf("benchmark %+v; want every run graded, 0.5 with the skill", b)
	}
	if left := modeltest.Processes(marker); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
}
