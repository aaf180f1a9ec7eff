package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// TestRunSkillHelped checks the helped stand-in through `agentskills run`
// on each agent, as the eval tests rely on it: with the skill the agent
// loads it and answers its token (and writes it to the file the body
// names, when the run may), without the skill it answers otherwise, and
// a prompt off the skill's topic leaves it unloaded.
func TestRunSkillHelped(t *testing.T) {
	t.Parallel()
	for _, a := range helpedAgents() {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			r := a.rig(t, modeltest.Helped{Skill: "cipher", Topic: "cipher", Otherwise: helpedOtherwise}, helpedJudge(modeltest.JudgeGrades))
			with := cipherSkill(t, t.TempDir(), helpedToken, "")
			code, out, errs := r.process(t, runCtx(t), "run", "-a", a.agent, "-s", with, "-q", helpedPrompt)
			if code != 0 || strings.TrimSpace(out) != helpedToken {
				t.Errorf("with the skill: %d, %q (stderr %q); want %s", code, out, errs, helpedToken)
			}
			turns := r.turns()
			if turns < 2 {
				t.Errorf("with the skill: %d turns, want the skill's load and the answer", turns)
			}
			code, out, errs = r.process(t, runCtx(t), "run", "-a", a.agent, "-q", helpedPrompt)
			if code != 0 || strings.TrimSpace(out) != helpedOtherwise {
				t.Errorf("without the skill: %d, %q (stderr %q); want %q", code, out, errs, helpedOtherwise)
			}
			code, out, errs = r.process(t, runCtx(t), "run", "-a", a.agent, "-s", with, "-q", "What is the weather?")
			if code != 0 || strings.TrimSpace(out) != helpedOtherwise {
				t.Errorf("off topic: %d, %q (stderr %q); want %q", code, out, errs, helpedOtherwise)
			}

			writes := cipherSkill(t, t.TempDir(), helpedToken, "answer.txt")
			code, out, errs = r.process(t, runCtx(t), "run", "-a", a.agent, "-s", writes, "--skip-permissions", "-q", helpedPrompt)
			got, err := os.ReadFile(filepath.Join(r.workspace, "answer.txt"))
			if code != 0 || strings.TrimSpace(out) != helpedToken || err != nil || string(got) != helpedToken+"\n" {
				t.Errorf("a body that writes: %d, %q (stderr %q), answer.txt %q (%v); want the token in both", code, out, errs, got, err)
			}
			// The judge reads response.md in its working folder.
			for _, tt := range []struct {
				response string
				passed   bool
			}{{helpedToken + "\n", true}, {helpedOtherwise + "\n", false}} {
				if err := os.WriteFile(filepath.Join(r.workspace, modeltest.JudgeFile), []byte(tt.response), 0o644); err != nil {
					t.Fatal(err)
				}
				code, out, errs = r.process(t, runCtx(t), "run", "-a", a.agent, "-q", judgeMarker+" Grade response.md.")
				var g struct{ Expectations []struct{ Passed bool } }
				if err := json.Unmarshal([]byte(out), &g); code != 0 || err != nil || len(g.Expectations) != 1 || g.Expectations[0].Passed != tt.passed {
					t.Errorf("judge of %q: %d, %q (stderr %q); want a grading, passed %v", tt.response, code, out, errs, tt.passed)
				}
			}
			if t.Failed() {
				fmt.Fprintf(os.Stderr, "%s: %d turns\n", a.agent, r.turns())
			}
		})
	}
}
