package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// jsonRig builds, for an agent run drives, a rig whose stand-in model
// either loads the skill alpha and answers "done" (fail false) or answers
// every request with a 400 (fail true).
type jsonRig struct {
	agent string
	rig   func(t *testing.T, fail bool) *runRig
}

// jsonRigs are the rigs of every agent run drives.
func jsonRigs() []jsonRig {
	return []jsonRig{
		{"claude-code", func(t *testing.T, fail bool) *runRig {
			reply := modeltest.ToolThenText(modeltest.SkillCall("alpha"), "done")
			if fail {
				reply = modeltest.Always(modeltest.APIError(400, "invalid_request_error", "The stand-in refuses."))
			}
			return newRunRig(t, reply)
		}},
		{"codex", func(t *testing.T, fail bool) *runRig {
			reply := func(r *modeltest.ResponsesRequest) modeltest.ResponsesReply {
				if _, ok := r.ToolOutput(); ok {
					return modeltest.ResponsesText("done")
				}
				skills, _ := r.Skills()
				for _, sk := range skills {
					if sk.Name == "alpha" {
						return modeltest.ExecCommand("cat '" + sk.Path + "'")
					}
				}
				return modeltest.ResponsesText("no alpha")
			}
			if fail {
				reply = modeltest.ResponsesAlways(modeltest.ResponsesAPIError(400, "invalid_request_error", "The stand-in refuses."))
			}
			r, _ := newCodexRunRig(t, reply)
			return r
		}},
		{"gemini-cli", func(t *testing.T, fail bool) *runRig {
			reply := modeltest.GeminiToolThenText(modeltest.GeminiSkillCall("alpha"), "done")
			if fail {
				reply = modeltest.GeminiAlways(modeltest.GeminiAPIError(400, "The stand-in refuses."))
			}
			s := modeltest.NewGemini(t, reply)
			env, home := s.GeminiEnv(t)
			r := rigFor(t, modeltest.GeminiCLI(t), env, home)
			writeSkill(t, r.skills, "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\nBody.\n")
			return r
		}},
		{"qwen-code", func(t *testing.T, fail bool) *runRig {
			reply := modeltest.ChatToolThenText(modeltest.ChatSkillCall("alpha"), "done")
			if fail {
				reply = modeltest.ChatAlways(modeltest.ChatAPIError(400, "The stand-in refuses."))
			}
			s := modeltest.NewChat(t, reply)
			env, home := s.QwenEnv(t)
			r := rigFor(t, modeltest.QwenCLI(t), env, home)
			writeSkill(t, r.skills, "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\nBody.\n")
			return r
		}},
	}
}

// TestRunJSONSchema runs each real agent CLI with --json, once loading a
// skill and once against a model that refuses every request: every line
// validates against the schema run --help documents (checkOutput), the
// skill's load is a skill line, and the failed run ends with one error
// line of code "agent" that names the session, after a result line
// without the run's skills.
func TestRunJSONSchema(t *testing.T) {
	t.Parallel()
	for _, tt := range jsonRigs() {
		t.Run(tt.agent, func(t *testing.T) {
			t.Parallel()
			r := tt.rig(t, false)
			code, out, errs := r.process(t, runCtx(t), "run", "-a", tt.agent, "-s", filepath.Join(r.skills, "alpha"), "--json", "load alpha")
			if code != 0 {
				t.Fatalf("run = %d; stderr %q", code, errs)
			}
			lines := checkOutput(t, out, code)
			if lines[0]["type"] != "init" {
				t.Errorf("first line %v, want init", lines[0])
			}
			// Skills the agent lists, or none: never a placeholder.
			_, present := lines[0]["skills"]
			listed, _ := lines[0]["skills"].([]any)
			if lists := tt.agent == "claude-code" || tt.agent == "qwen-code"; lists != present || lists && !slices.Contains(listed, any("alpha")) {
				t.Errorf("init %v; want the skills the agent lists, alpha among them, only from an agent that lists them", lines[0])
			}
			var skills []any
			for _, l := range lines {
				if l["type"] == "skill" {
					skills = append(skills, l["name"])
				}
			}
			if fmt.Sprint(skills) != "[alpha]" {
				t.Errorf("skill lines name %v, want alpha once", skills)
			}
			last := lines[len(lines)-1]
			if last["text"] != "done" || fmt.Sprint(last["skills"]) != "[alpha]" || last["fingerprint"] == nil || last["workspace"] == nil {
				t.Errorf("result %v, want done with the run's skills, fingerprint and workspace", last)
			}
			// Claude Code reports the session's running cost beside the
			// run's own; the others report no cost.
			if _, ok := last["session_cost_usd"]; ok != (tt.agent == "claude-code") {
				t.Errorf("result %v: session_cost_usd present = %v, want it for claude-code only", last, ok)
			}

			r = tt.rig(t, true)
			code, out, errs = r.process(t, runCtx(t), "run", "-a", tt.agent, "-s", filepath.Join(r.skills, "alpha"), "--json", "refuse")
			if code != 1 {
				t.Fatalf("failed run = %d; stderr %q", code, errs)
			}
			lines = checkOutput(t, out, code)
			last = lines[len(lines)-1]
			session, _ := last["session_id"].(string)
			if last["code"] != codeAgent || session == "" {
				t.Errorf("error line %v, want code agent and the session", last)
			}
			for _, l := range lines {
				if l["type"] != "result" {
					continue
				}
				if l["is_error"] != true || l["session_id"] != session {
					t.Errorf("result of the failed run %v, want is_error and the session %s", l, session)
				}
				for _, placeholder := range []string{"skills", "fingerprint", "workspace"} {
					if _, ok := l[placeholder]; ok {
						t.Errorf("result of the failed run %v has %q", l, placeholder)
					}
				}
			}
		})
	}
}

// TestRunJSONRefusals checks the error line of runs of the real Claude
// Code that a check or a limit ends: a skill shadowed by the user's, a
// resume with other skills (the session named), and --run-timeout (the
// session of the stopped agent named).
func TestRunJSONRefusals(t *testing.T) {
	t.Parallel()
	r := newRunRig(t, modeltest.IfPrompt("stall", modeltest.Always(modeltest.Stall()), modeltest.Always(modeltest.Text("done"))))
	alpha := filepath.Join(r.skills, "alpha")
	code, out, errs := r.process(t, runCtx(t), "run", "-a", "claude-code", "-s", alpha, "--json", "first")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	lines := checkOutput(t, out, code)
	session, _ := lines[len(lines)-1]["session_id"].(string)
	tests := []struct {
		name    string
		args    []string
		shadow  bool // the user has a skill alpha of other content
		code    int
		kind    string
		session string // "any": a session of its own
	}{
		{"resume with other skills", []string{"-s", r.skills, "--resume", session, "again"}, false, 1, codeCheck, session},
		{"shadowed skill", []string{"-s", alpha, "again"}, true, 1, codeCheck, ""},
		{"run timeout", []string{"-s", alpha, "--run-timeout", "15s", "stall"}, false, exitTimedOut, codeTimeout, "any"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.shadow {
				user := filepath.Join(r.home, ".claude", "skills")
				writeSkill(t, user, "alpha", "---\nname: alpha\ndescription: The user's own alpha.\n---\nOther.\n")
				t.Cleanup(func() { os.RemoveAll(user) })
			}
			args := append([]string{"run", "-a", "claude-code", "--json"}, tt.args...)
			code, out, errs := r.process(t, runCtx(t), args...)
			if code != tt.code {
				t.Fatalf("run(%q) = %d, want %d; stderr %q", args, code, tt.code, errs)
			}
			lines := checkOutput(t, out, code)
			last := lines[len(lines)-1]
			got, _ := last["session_id"].(string)
			if last["code"] != tt.kind || tt.session == "any" && got == "" || tt.session != "any" && got != tt.session {
				t.Errorf("error line %v, want code %s and session %q", last, tt.kind, tt.session)
			}
		})
	}
}
