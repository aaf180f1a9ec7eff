package modeltest

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// This file holds the replies of a model that a skill helps, and of a
// judge, for the tests of skill evaluations: the same behaviour for each
// API, so that one test runs on several agents.

// Helped describes a stand-in model that a skill helps: it knows the
// answer only from the skill's body. While the request lists the skill
// Skill (the catalogue each CLI sends: [Request.Skills],
// [ResponsesRequest.Skills], [GeminiRequest.Skills]) and the prompt asks
// for it (holds Topic), the model loads the skill the agent's way
// (Claude Code's Skill tool, a cat of the listed SKILL.md for Codex,
// activate_skill for Gemini CLI). Once a body holding a line "ANSWER:
// TOKEN" is in the conversation, it answers TOKEN; when the body also
// holds "WRITE: FILE", it first runs one shell command writing TOKEN and
// a newline to FILE (relative to the agent's working folder), which needs
// the agent's permission. Without the skill it answers Otherwise.
type Helped struct {
	// Skill is the skill's name, as listed.
	Skill string
	// Topic, when set, is what a prompt must hold (in any case) for the
	// model to load the skill: a prompt without it is answered Otherwise
	// even with the skill listed, as a model leaves alone a skill whose
	// description does not fit. Empty: every prompt.
	Topic string
	// Otherwise is the answer without the skill's body. Default: "I do
	// not know."
	Otherwise string
}

var (
	helpedAnswer = regexp.MustCompile(`ANSWER: (\S+)`)
	helpedWrite  = regexp.MustCompile(`WRITE: (\S+)`)
)

// helpedStep is what the helped model does next.
type helpedStep int

const (
	helpedSay   helpedStep = iota // answer text
	helpedLoad                    // load the skill
	helpedShell                   // run the shell command text (a judge: read the file)
	helpedPass  helpedStep = -1   // not the model's request: pass it on
)

// helpedState is what the helped model sees of a request, whatever the
// API.
type helpedState struct {
	listed bool   // the skill is in the request's catalogue
	prompt string // the user's turn
	tools  string // the outputs of the tools called so far, joined
	wrote  bool   // a shell command writing the answer was called
}

// next decides the model's next step from what it sees.
func (h Helped) next(s helpedState) (helpedStep, string) {
	if m := helpedAnswer.FindStringSubmatch(s.tools); m != nil {
		token := m[1]
		if w := helpedWrite.FindStringSubmatch(s.tools); w != nil && !s.wrote {
			return helpedShell, WriteCommand(token, w[1])
		}
		return helpedSay, token
	}
	if s.listed && (h.Topic == "" || strings.Contains(strings.ToLower(s.prompt), strings.ToLower(h.Topic))) {
		return helpedLoad, ""
	}
	if h.Otherwise == "" {
		return helpedSay, "I do not know."
	}
	return helpedSay, h.Otherwise
}

// WriteCommand is the shell command by which a [Helped] model writes
// token and a newline to file.
func WriteCommand(token, file string) string {
	return fmt.Sprintf("printf '%%s\\n' %s > %s", shellQuote(token), shellQuote(file))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Skills returns the names of the skills Claude Code lists in the
// request (see the package doc, item 1): the lines after "The following
// skills are available for use with the Skill tool:", the folder's name
// for a line "- FOLDER (NAME): DESCRIPTION".
func (r *Request) Skills() []string {
	const header = "The following skills are available for use with the Skill tool:"
	var names []string
	for _, m := range r.Messages {
		_, list, ok := strings.Cut(m.Text(), header)
		if !ok {
			continue
		}
		for line := range strings.Lines(list) {
			item, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "- ")
			if !ok {
				if strings.TrimSpace(line) != "" {
					break // the listing's end
				}
				continue
			}
			name, _, _ := strings.Cut(item, ": ")
			name, _, _ = strings.Cut(name, " (")
			names = append(names, strings.TrimSuffix(name, ":"))
		}
	}
	return names
}

// SkillHelped returns the [ReplyFunc] of the model h describes, for Claude
// Code: the Skill tool loads the skill, whose body comes back as a text
// block beside the tool's result, and the Bash tool writes the file.
func SkillHelped(h Helped) ReplyFunc {
	return func(r *Request) Reply {
		s := helpedState{listed: slices.Contains(r.Skills(), h.Skill), prompt: r.Prompt()}
		var outputs []string
		for _, m := range r.Messages {
			for _, b := range m.Content {
				switch {
				case m.Role == "user" && b.Type == "tool_result":
					outputs = append(outputs, b.Text)
				case m.Role == "user" && b.Type == "text" && strings.HasPrefix(b.Text, "Base directory for this skill: "):
					outputs = append(outputs, b.Text)
				case m.Role == "assistant" && b.Type == "tool_use" && b.Name == "Bash":
					s.wrote = s.wrote || strings.Contains(string(b.Input), "printf")
				}
			}
		}
		s.tools = strings.Join(outputs, "\n")
		switch step, text := h.next(s); step {
		case helpedLoad:
			return SkillCall(h.Skill)
		case helpedShell:
			return ToolUse("Bash", map[string]string{"command": text, "description": "Write the answer"})
		default:
			return Text(text)
		}
	}
}

// ResponsesSkillHelped returns the [ResponsesReplyFunc] of the model h
// describes, for Codex: exec_command "cat PATH" reads the listed
// SKILL.md, and exec_command writes the file.
func ResponsesSkillHelped(h Helped) ResponsesReplyFunc {
	return func(r *ResponsesRequest) ResponsesReply {
		listed, _ := r.Skills()
		i := slices.IndexFunc(listed, func(l ListedSkill) bool { return l.Name == h.Skill })
		s := helpedState{listed: i >= 0, prompt: r.Prompt()}
		var outputs []string
		for _, it := range r.Input {
			switch it.Type {
			case "function_call_output", "custom_tool_call_output":
				outputs = append(outputs, it.Text)
			case "function_call", "custom_tool_call":
				s.wrote = s.wrote || strings.Contains(it.Arguments, "printf")
			}
		}
		s.tools = strings.Join(outputs, "\n")
		switch step, text := h.next(s); step {
		case helpedLoad:
			return ExecCommand("cat " + shellQuote(listed[i].Path))
		case helpedShell:
			return ExecCommand(text)
		default:
			return ResponsesText(text)
		}
	}
}

// GeminiSkillHelped returns the [GeminiReplyFunc] of the model h
// describes, for Gemini CLI: activate_skill loads the skill, and
// run_shell_command writes the file.
func GeminiSkillHelped(h Helped) GeminiReplyFunc {
	return func(r *GeminiRequest) GeminiReply {
		s := helpedState{listed: slices.Contains(r.Skills(), h.Skill), prompt: r.Prompt()}
		var outputs []string
		for _, c := range r.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					outputs = append(outputs, stringsIn(p.FunctionResponse.Response)...)
				}
				if p.FunctionCall != nil && p.FunctionCall.Name == "run_shell_command" {
					cmd, _ := p.FunctionCall.Args["command"].(string)
					s.wrote = s.wrote || strings.Contains(cmd, "printf")
				}
			}
		}
		s.tools = strings.Join(outputs, "\n")
		switch step, text := h.next(s); step {
		case helpedLoad:
			return GeminiSkillCall(h.Skill)
		case helpedShell:
			return GeminiFunctionCall("run_shell_command", map[string]string{"command": text})
		default:
			return GeminiText(text)
		}
	}
}

// stringsIn returns the strings of a decoded JSON value, depth first.
func stringsIn(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case map[string]any:
		var out []string
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, stringsIn(v[k])...)
		}
		return out
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, stringsIn(e)...)
		}
		return out
	}
	return nil
}

// Judge describes a stand-in judge: a request whose prompt holds Marker
// (a text of the judge's instructions) is asked to grade a run whose
// result is in the working folder. The judge first reads the folder's
// response.md with a tool (Claude Code's Read, Codex's exec_command
// "cat", Gemini CLI's read_file), then answers as Verdict says; any other
// request goes to the model behind it.
type Judge struct {
	// Marker tells a judge's request from the agent's: a text the judge's
	// prompt holds and an evaluated prompt does not. Empty: no request is
	// a judge's.
	Marker string
	// Expectations are the texts graded, in order, as the answer lists
	// them.
	Expectations []string
	// Pass is what the graded run must show: every expectation passes when
	// what the judge read holds Pass, and fails otherwise.
	Pass string
	// Verdict is how the judge answers once it has read: JudgeGrades (the
	// grading.json shape), JudgeGarbage (text that is no grading) or
	// JudgeStalls (no answer, until the client goes away).
	Verdict JudgeVerdict
}

// JudgeVerdict is how a stand-in [Judge] answers.
type JudgeVerdict int

const (
	// JudgeGrades answers with the grading.json shape.
	JudgeGrades JudgeVerdict = iota
	// JudgeGarbage answers with text that is not JSON.
	JudgeGarbage
	// JudgeStalls never answers.
	JudgeStalls
)

// JudgeGarbageText is the answer of a judge that answers garbage.
const JudgeGarbageText = "Looks fine to me, all good! (no JSON here)"

// JudgeFile is the file a stand-in [Judge] reads before it answers.
const JudgeFile = "response.md"

// Grading returns the judge's answer for a run whose files read holds
// read: the grading.json shape, {"expectations": [{"text", "passed",
// "evidence"}], "summary": {"passed", "failed", "total", "pass_rate"}}.
func (j Judge) Grading(read string) string {
	passed := j.Pass != "" && strings.Contains(read, j.Pass)
	type exp struct {
		Text     string `json:"text"`
		Passed   bool   `json:"passed"`
		Evidence string `json:"evidence"`
	}
	out := struct {
		Expectations []exp `json:"expectations"`
		Summary      struct {
			Passed   int     `json:"passed"`
			Failed   int     `json:"failed"`
			Total    int     `json:"total"`
			PassRate float64 `json:"pass_rate"`
		} `json:"summary"`
	}{Expectations: []exp{}}
	for _, e := range j.Expectations {
		ev := fmt.Sprintf("%s does not hold %q", JudgeFile, j.Pass)
		if passed {
			ev = fmt.Sprintf("%s holds %q", JudgeFile, j.Pass)
			out.Summary.Passed++
		} else {
			out.Summary.Failed++
		}
		out.Expectations = append(out.Expectations, exp{Text: e, Passed: passed, Evidence: ev})
	}
	out.Summary.Total = len(j.Expectations)
	if out.Summary.Total > 0 {
		out.Summary.PassRate = float64(out.Summary.Passed) / float64(out.Summary.Total)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// judgeStep is what the judge does with a request: pass it on (not a
// judge's), read the file (nothing read yet), stall, or answer text.
func (j Judge) step(prompt string, outputs []string) (step helpedStep, text string, stall bool) {
	switch {
	case j.Marker == "" || !strings.Contains(prompt, j.Marker):
		return helpedPass, "", false
	case len(outputs) == 0:
		return helpedShell, "", false
	case j.Verdict == JudgeGarbage:
		return helpedSay, JudgeGarbageText, false
	case j.Verdict == JudgeStalls:
		return helpedSay, "", true
	}
	return helpedSay, j.Grading(strings.Join(outputs, "\n")), false
}

var workingDir = regexp.MustCompile(`Primary working directory: (\S+)`)

// JudgeReply returns a [ReplyFunc] that answers a judge's request (its
// prompt holds j.Marker) as j says, for Claude Code, and any other with
// next. The judge reads response.md with the Read tool, at its path in
// the working folder the request names.
func JudgeReply(j Judge, next ReplyFunc) ReplyFunc {
	return func(r *Request) Reply {
		var outputs []string
		dir := "."
		for _, m := range r.Messages {
			if w := workingDir.FindStringSubmatch(m.Text()); w != nil {
				dir = w[1]
			}
			for _, b := range m.Content {
				if b.Type == "tool_result" {
					outputs = append(outputs, b.Text)
				}
			}
		}
		if w := workingDir.FindStringSubmatch(r.System); w != nil {
			dir = w[1]
		}
		switch step, text, stall := j.step(r.Prompt(), outputs); {
		case step == helpedPass:
			return next(r)
		case step == helpedShell:
			return ToolUse("Read", map[string]string{"file_path": path.Join(dir, JudgeFile)})
		case stall:
			return Stall()
		default:
			return Text(text)
		}
	}
}

// ResponsesJudgeReply is [JudgeReply] for Codex, which reads with
// exec_command "cat response.md".
func ResponsesJudgeReply(j Judge, next ResponsesReplyFunc) ResponsesReplyFunc {
	return func(r *ResponsesRequest) ResponsesReply {
		var outputs []string
		for _, it := range r.Input {
			if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
				outputs = append(outputs, it.Text)
			}
		}
		switch step, text, stall := j.step(r.Prompt(), outputs); {
		case step == helpedPass:
			return next(r)
		case step == helpedShell:
			return ExecCommand("cat " + JudgeFile)
		case stall:
			return ResponsesStall()
		default:
			return ResponsesText(text)
		}
	}
}

// GeminiJudgeReply is [JudgeReply] for Gemini CLI, which reads with
// read_file.
func GeminiJudgeReply(j Judge, next GeminiReplyFunc) GeminiReplyFunc {
	return func(r *GeminiRequest) GeminiReply {
		var outputs []string
		for _, c := range r.Contents {
			for _, part := range c.Parts {
				if part.FunctionResponse != nil {
					outputs = append(outputs, stringsIn(part.FunctionResponse.Response)...)
				}
			}
		}
		switch step, text, stall := j.step(r.Prompt(), outputs); {
		case step == helpedPass:
			return next(r)
		case step == helpedShell:
			return GeminiFunctionCall("read_file", map[string]string{"file_path": JudgeFile})
		case stall:
			return GeminiStall()
		default:
			return GeminiText(text)
		}
	}
}
