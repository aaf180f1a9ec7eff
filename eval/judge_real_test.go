package eval

import (
	"crypto/rand"
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
			e := New(WithMaterializer(skill.NewCache(skill.WithSkillCacheRoot(t.TempDir()))), WithJudgeTimeout(10*time.Second))
			skillDir, runDir, ws := gradeDirs(t)
			if err := os.WriteFile(filepath.Join(runDir, "response.md"), []byte(tt.response), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			g := e.grade(t.Context(), &Agent{ID: "claude-code", Driver: drv}, skillDir, c, runDir, ws, &adaptor.Result{Text: tt.response})
			took := time.Since(start)
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
			if judged < 2 {
				t.Errorf("the judge asked the model %d times, want its read and its answer", judged)
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
