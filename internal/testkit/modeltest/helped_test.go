package modeltest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

const (
	helpedListing = "The following skills are available for use with the Skill tool:\n\n- other: Another skill.\n- cipher: Answers cipher questions.\n- x (named): A renamed one.\n"
	helpedBody    = "Base directory for this skill: /s/cipher\n\nANSWER: TOKEN-7\n"
	helpedWrite   = "Base directory for this skill: /s/cipher\n\nANSWER: TOKEN-7\nWRITE: out/answer.txt\n"
)

func claudeReq(listing string, extra ...modeltest.Message) *modeltest.Request {
	msgs := []modeltest.Message{
		{Role: "user", Content: []modeltest.Block{{Type: "text", Text: "what is the cipher word?"}}},
		{Role: "system", Content: []modeltest.Block{{Type: "text", Text: listing}}},
	}
	return &modeltest.Request{Messages: append(msgs, extra...)}
}

func skillResult(body string) modeltest.Message {
	return modeltest.Message{Role: "user", Content: []modeltest.Block{
		{Type: "tool_result", ToolUseID: "t1", Text: "Launching skill: cipher"},
		{Type: "text", Text: body},
	}}
}

func replyText(r modeltest.Reply) string {
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		return ""
	}
	return r.Content[0].Text
}

// TestHelpedClaude walks the helped model through a Claude Code
// conversation: it loads a listed skill, answers from its body, writes
// the file the body names before answering, and without the skill (not
// listed, or a prompt off its topic) answers otherwise.
func TestHelpedClaude(t *testing.T) {
	if got := claudeReq(helpedListing).Skills(); strings.Join(got, ",") != "other,cipher,x" {
		t.Errorf("Skills = %q, want other, cipher and x", got)
	}
	h := modeltest.Helped{Skill: "cipher", Otherwise: "no idea"}
	f := modeltest.SkillHelped(h)
	if r := f(claudeReq(helpedListing)); len(r.Content) != 1 || r.Content[0].Name != "Skill" || string(r.Content[0].Input) != `{"skill":"cipher"}` {
		t.Errorf("listed skill: reply %+v, want a Skill call", r)
	}
	if got := replyText(f(claudeReq(helpedListing, skillResult(helpedBody)))); got != "TOKEN-7" {
		t.Errorf("after the body: %q, want TOKEN-7", got)
	}
	// The body read through a tool (a Read of SKILL.md) helps as well.
	read := modeltest.Message{Role: "user", Content: []modeltest.Block{{Type: "tool_result", Text: "ANSWER: TOKEN-8"}}}
	if got := replyText(f(claudeReq(helpedListing, read))); got != "TOKEN-8" {
		t.Errorf("after a read: %q, want TOKEN-8", got)
	}
	r := f(claudeReq(helpedListing, skillResult(helpedWrite)))
	var in struct{ Command string }
	if len(r.Content) != 1 || r.Content[0].Name != "Bash" || json.Unmarshal(r.Content[0].Input, &in) != nil || in.Command != modeltest.WriteCommand("TOKEN-7", "out/answer.txt") {
		t.Errorf("a body that writes: reply %+v, want the Bash call writing the token", r)
	}
	wrote := modeltest.Message{Role: "assistant", Content: r.Content}
	done := modeltest.Message{Role: "user", Content: []modeltest.Block{{Type: "tool_result", Text: ""}}}
	if got := replyText(f(claudeReq(helpedListing, skillResult(helpedWrite), wrote, done))); got != "TOKEN-7" {
		t.Errorf("after the write: %q, want TOKEN-7", got)
	}
	if got := replyText(f(claudeReq("The following skills are available for use with the Skill tool:\n\n- other: x\n"))); got != "no idea" {
		t.Errorf("not listed: %q, want no idea", got)
	}
	if got := replyText(modeltest.SkillHelped(modeltest.Helped{Skill: "cipher"})(claudeReq(""))); got != "I do not know." {
		t.Errorf("no listing, no Otherwise: %q, want the default", got)
	}
	topical := modeltest.SkillHelped(modeltest.Helped{Skill: "cipher", Topic: "CIPHER", Otherwise: "no idea"})
	if r := topical(claudeReq(helpedListing)); len(r.Content) != 1 || r.Content[0].Name != "Skill" {
		t.Errorf("prompt on topic: %+v, want a Skill call", r)
	}
	off := claudeReq(helpedListing)
	off.Messages[0].Content[0].Text = "what is the weather?"
	if got := replyText(topical(off)); got != "no idea" {
		t.Errorf("prompt off topic: %q, want no idea", got)
	}
}

// TestHelpedCodex: the helped model reads the listed SKILL.md with cat,
// and answers from its output.
func TestHelpedCodex(t *testing.T) {
	dev := "<skills_instructions>\n### Skill roots\n- `r0` = `/s`\n### Available skills\n- cipher: Answers. (file: r0/cipher/SKILL.md)\n</skills_instructions>"
	req := func(extra ...modeltest.Item) *modeltest.ResponsesRequest {
		in := []modeltest.Item{
			{Type: "message", Role: "developer", Text: dev},
			{Type: "message", Role: "user", Text: "what is the cipher word?"},
		}
		return &modeltest.ResponsesRequest{Input: append(in, extra...)}
	}
	f := modeltest.ResponsesSkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: "no idea"})
	if r := f(req()); len(r.Output) != 1 || r.Output[0].Name != "exec_command" || r.Output[0].Arguments != `{"cmd":"cat '/s/cipher/SKILL.md'"}` {
		t.Errorf("listed skill: %+v, want a cat of its SKILL.md", r)
	}
	call := modeltest.Item{Type: "function_call", Name: "exec_command", Arguments: `{"cmd":"cat '/s/cipher/SKILL.md'"}`}
	if r := f(req(call, modeltest.Item{Type: "function_call_output", Text: "Output:\n---\nname: cipher\n---\nANSWER: TOKEN-7\n"})); len(r.Output) != 1 || r.Output[0].Text != "TOKEN-7" {
		t.Errorf("after the body: %+v, want TOKEN-7", r)
	}
	r := f(req(call, modeltest.Item{Type: "function_call_output", Text: "ANSWER: TOKEN-7\nWRITE: a.txt\n"}))
	if len(r.Output) != 1 || !strings.Contains(r.Output[0].Arguments, "printf") {
		t.Fatalf("a body that writes: %+v, want the write", r)
	}
	write := modeltest.Item{Type: "function_call", Name: "exec_command", Arguments: r.Output[0].Arguments}
	if r := f(req(call, modeltest.Item{Type: "function_call_output", Text: "ANSWER: TOKEN-7\nWRITE: a.txt\n"}, write, modeltest.Item{Type: "function_call_output"})); len(r.Output) != 1 || r.Output[0].Text != "TOKEN-7" {
		t.Errorf("after the write: %+v, want TOKEN-7", r)
	}
	if r := f(&modeltest.ResponsesRequest{Input: []modeltest.Item{{Type: "message", Role: "user", Text: "hi"}}}); len(r.Output) != 1 || r.Output[0].Text != "no idea" {
		t.Errorf("no listing: %+v, want no idea", r)
	}
}

// TestHelpedGemini: the helped model activates the listed skill and
// answers from the function's response.
func TestHelpedGemini(t *testing.T) {
	req := func(extra ...modeltest.GeminiContent) *modeltest.GeminiRequest {
		c := []modeltest.GeminiContent{{Role: "user", Parts: []modeltest.GeminiPart{{Text: "what is the cipher word?"}}}}
		return &modeltest.GeminiRequest{System: "<available_skills><skill><name>cipher</name></skill></available_skills>", Contents: append(c, extra...)}
	}
	f := modeltest.GeminiSkillHelped(modeltest.Helped{Skill: "cipher", Otherwise: "no idea"})
	if r := f(req()); len(r.Parts) != 1 || r.Parts[0].FunctionCall == nil || r.Parts[0].FunctionCall.Name != "activate_skill" {
		t.Errorf("listed skill: %+v, want activate_skill", r)
	}
	body := modeltest.GeminiContent{Role: "user", Parts: []modeltest.GeminiPart{{FunctionResponse: &modeltest.GeminiResponse{
		Name: "activate_skill", Response: map[string]any{"output": "<activated_skill>\nANSWER: TOKEN-7\nWRITE: a.txt\n</activated_skill>"}}}}}
	r := f(req(body))
	if len(r.Parts) != 1 || r.Parts[0].FunctionCall == nil || r.Parts[0].FunctionCall.Name != "run_shell_command" {
		t.Fatalf("a body that writes: %+v, want run_shell_command", r)
	}
	wrote := modeltest.GeminiContent{Role: "model", Parts: r.Parts}
	out := modeltest.GeminiContent{Role: "user", Parts: []modeltest.GeminiPart{{FunctionResponse: &modeltest.GeminiResponse{Name: "run_shell_command", Response: map[string]any{"output": ""}}}}}
	if r := f(req(body, wrote, out)); len(r.Parts) != 1 || r.Parts[0].Text != "TOKEN-7" {
		t.Errorf("after the write: %+v, want TOKEN-7", r)
	}
	if r := f(&modeltest.GeminiRequest{Contents: req().Contents}); len(r.Parts) != 1 || r.Parts[0].Text != "no idea" {
		t.Errorf("no listing: %+v, want no idea", r)
	}
}

// TestWriteCommand runs the command the helped model writes with, on a
// token and a file name that need quoting.
func TestWriteCommand(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", modeltest.WriteCommand("it's $HOME", "a b.txt"))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a b.txt")); err != nil || string(got) != "it's $HOME\n" {
		t.Errorf("file = %q, %v; want the token and a newline", got, err)
	}
}

// TestJudge checks the stand-in judge: it reads response.md first, then
// answers the grading shape with verdicts from what it read (never from
// its prompt), garbage, or a stall; the agent's requests go on.
func TestJudge(t *testing.T) {
	j := modeltest.Judge{Marker: "GRADE-THIS", Expectations: []string{"says TOKEN-7", "is short"}, Pass: "TOKEN-7"}
	next := modeltest.Always(modeltest.Text("agent"))
	prompt := "GRADE-THIS: the task: say TOKEN-7. Expectations: says TOKEN-7; is short."
	req := func(prompt string, read ...string) *modeltest.Request {
		r := &modeltest.Request{Messages: []modeltest.Message{
			{Role: "user", Content: []modeltest.Block{{Type: "text", Text: prompt}}},
			{Role: "system", Content: []modeltest.Block{{Type: "text", Text: "# Environment\n - Primary working directory: /ws/judge\n"}}},
		}}
		for _, text := range read {
			r.Messages = append(r.Messages,
				modeltest.Message{Role: "assistant", Content: modeltest.ToolUse("Read", map[string]string{"file_path": "/ws/judge/response.md"}).Content},
				modeltest.Message{Role: "user", Content: []modeltest.Block{{Type: "tool_result", Text: text}}})
		}
		return r
	}
	if r := modeltest.JudgeReply(j, next)(req(prompt)); len(r.Content) != 1 || r.Content[0].Name != "Read" || string(r.Content[0].Input) != `{"file_path":"/ws/judge/response.md"}` {
		t.Errorf("first reply %+v, want a Read of response.md in the working folder", r)
	}
	type grading struct {
		Expectations []struct {
			Text     string
			Passed   bool
			Evidence string
		}
		Summary struct {
			Passed, Failed, Total int
			PassRate              float64 `json:"pass_rate"`
		}
	}
	for _, tt := range []struct {
		read string
		pass bool
	}{
		{"     1\tTOKEN-7\n", true},
		{"     1\tI cannot tell.\n", false},
	} {
		var g grading
		text := replyText(modeltest.JudgeReply(j, next)(req(prompt, tt.read)))
		if err := json.Unmarshal([]byte(text), &g); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		want := 0.0
		if tt.pass {
			want = 1
		}
		if len(g.Expectations) != 2 || g.Expectations[1].Text != "is short" || g.Expectations[0].Passed != tt.pass || g.Expectations[1].Passed != tt.pass ||
			g.Expectations[0].Evidence == "" || g.Summary.Total != 2 || g.Summary.PassRate != want {
			t.Errorf("read %q: grading %+v, want both %v", tt.read, g, tt.pass)
		}
	}
	if got := replyText(modeltest.JudgeReply(j, next)(req("plain prompt"))); got != "agent" {
		t.Errorf("agent request answered %q", got)
	}
	if got := replyText(modeltest.JudgeReply(modeltest.Judge{}, next)(req(prompt))); got != "agent" {
		t.Errorf("a judge without a marker took %q", got)
	}
	j.Verdict = modeltest.JudgeGarbage
	if got := replyText(modeltest.JudgeReply(j, next)(req(prompt, "TOKEN-7"))); got != modeltest.JudgeGarbageText || json.Valid([]byte(got)) {
		t.Errorf("garbage judge answered %q", got)
	}
	j.Verdict = modeltest.JudgeStalls
	if r := modeltest.JudgeReply(j, next)(req(prompt, "TOKEN-7")); !r.Stall {
		t.Errorf("stalling judge answered %+v", r)
	}

	j.Verdict = modeltest.JudgeGrades
	codex := func(extra ...modeltest.Item) *modeltest.ResponsesRequest {
		return &modeltest.ResponsesRequest{Input: append([]modeltest.Item{{Type: "message", Role: "user", Text: prompt}}, extra...)}
	}
	if r := modeltest.ResponsesJudgeReply(j, nil)(codex()); len(r.Output) != 1 || r.Output[0].Arguments != `{"cmd":"cat response.md"}` {
		t.Errorf("Codex judge's first reply %+v, want cat response.md", r)
	}
	if r := modeltest.ResponsesJudgeReply(j, nil)(codex(modeltest.Item{Type: "function_call_output", Text: "TOKEN-7"})); len(r.Output) != 1 || !strings.Contains(r.Output[0].Text, `"passed":true`) {
		t.Errorf("Codex judge's grading %+v, want passes", r)
	}
	gemini := func(extra ...modeltest.GeminiContent) *modeltest.GeminiRequest {
		return &modeltest.GeminiRequest{Contents: append([]modeltest.GeminiContent{{Role: "user", Parts: []modeltest.GeminiPart{{Text: prompt}}}}, extra...)}
	}
	if r := modeltest.GeminiJudgeReply(j, nil)(gemini()); len(r.Parts) != 1 || r.Parts[0].FunctionCall == nil || r.Parts[0].FunctionCall.Name != "read_file" {
		t.Errorf("Gemini judge's first reply %+v, want read_file", r)
	}
	read := modeltest.GeminiContent{Role: "user", Parts: []modeltest.GeminiPart{{FunctionResponse: &modeltest.GeminiResponse{Name: "read_file", Response: map[string]any{"output": "I cannot tell."}}}}}
	if r := modeltest.GeminiJudgeReply(j, nil)(gemini(read)); len(r.Parts) != 1 || !strings.Contains(r.Parts[0].Text, `"passed":false`) {
		t.Errorf("Gemini judge's grading %+v, want fails", r)
	}
}
