package modeltest_test

// Tests that run the real Codex CLI against the Responses stand-in.
// TestCodex checks the package end to end; the others check the items of
// "What Codex 0.169.0 does" in the package doc (run them all with
// -run TestCodex, they skip in -short mode) and, with -record, write the
// CLI's output to codex/testdata as fixtures.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// codexTestdata is where -record writes the Codex fixtures, from this
// package's folder.
const codexTestdata = "../../codex/testdata"

// execArgs returns the arguments of a headless run, "codex exec --json
// --skip-git-repo-check ARGS... -", the prompt read from stdin.
func execArgs(args ...string) []string {
	return append(append([]string{"exec", "--json", "--skip-git-repo-check"}, args...), "-")
}

// codexRun is the outcome of one run of the CLI.
type codexRun struct{ *cliRun }

// types returns "type" for each stdout line, "type/ITEM-TYPE" for item
// events.
func (r codexRun) types() []string {
	var out []string
	for _, l := range r.Lines {
		s, _ := l["type"].(string)
		if it, ok := get(l, "item", "type").(string); ok {
			s += "/" + it
		}
		out = append(out, s)
	}
	return out
}

// line returns the first stdout line of type typ ("item.completed/TYPE"
// names an item event by its item's type).
func (r codexRun) line(typ string) map[string]any {
	for i, t := range r.types() {
		if t == typ {
			return r.Lines[i]
		}
	}
	return nil
}

// thread returns the thread.started line's thread_id.
func (r codexRun) thread() string {
	id, _ := r.line("thread.started")["thread_id"].(string)
	return id
}

// runCodex runs the CLI in dir with env, args and the prompt on stdin,
// for at most a minute.
func runCodex(t *testing.T, env []string, dir, prompt string, args ...string) codexRun {
	t.Helper()
	return codexRun{runCLI(t, modeltest.CodexCLI(t), env, dir, prompt, args...)}
}

// saveCodex writes data to codex/testdata/name when -record is given,
// with each folder in paths (real, placeholder, ...) replaced by its
// placeholder.
func saveCodex(t *testing.T, name, data string, paths ...string) {
	t.Helper()
	if !*record {
		return
	}
	data = strings.NewReplacer(paths...).Replace(data)
	if err := os.MkdirAll(codexTestdata, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexTestdata, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// placeholders returns the pairs for saveCodex: the working folder,
// CODEX_HOME, HOME and TMPDIR of a run, CODEX_HOME first, since the
// others never hold it.
func placeholders(env []string, cwd string) []string {
	return []string{
		envVar(env, "CODEX_HOME"), "/home/user/.codex",
		cwd, "/work/project",
		envVar(env, "HOME"), "/home/user",
		envVar(env, "TMPDIR"), "/tmp",
	}
}

// TestCodex runs the real CLI once against the stand-in and checks that
// the answer comes back and what the CLI sent; it records plain.jsonl.
func TestCodex(t *testing.T) {
	t.Parallel()
	s := modeltest.NewResponses(t, modeltest.ResponsesIfPrompt("Say hello",
		modeltest.ResponsesAlways(modeltest.ResponsesText("Hello from the stand-in.")),
		modeltest.ResponsesAlways(modeltest.ResponsesAPIError(400, "invalid_request_error", "unexpected prompt"))))
	env, _, _ := s.CodexEnv(t)
	cwd := t.TempDir()
	r := runCodex(t, env, cwd, "Say hello", execArgs()...)
	saveCodex(t, "plain.jsonl", r.Stdout, placeholders(env, cwd)...)

	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("exit code %d, stderr %q; want 0 and nothing", r.Code, r.Stderr)
	}
	want := []string{"thread.started", "turn.started", "item.completed/agent_message", "turn.completed"}
	if !slices.Equal(r.types(), want) {
		t.Errorf("stdout lines %v, want %v", r.types(), want)
	}
	if got := get(r.line("item.completed/agent_message"), "item", "text"); got != "Hello from the stand-in." {
		t.Errorf("agent_message text %v, want the stand-in's answer", got)
	}
	usage := r.line("turn.completed")["usage"]
	if get(usage, "input_tokens") != 100.0 || get(usage, "output_tokens") != 10.0 {
		t.Errorf("turn.completed usage %v, want 100 input and 10 output tokens", usage)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(r.thread()) {
		t.Errorf("thread_id %q, want a UUID", r.thread())
	}

	reqs := s.Requests()
	if len(reqs) != 1 || len(s.ResponseRequests()) != 1 {
		for _, r := range reqs {
			t.Logf("request %s %s", r.Method, r.Path)
		}
		t.Fatalf("%d requests, want one POST /v1/responses", len(reqs))
	}
	req := reqs[0]
	if !req.Stream || req.Model != "gpt-6.1-sol" || req.Prompt() != "Say hello" {
		t.Errorf("request: stream %v, model %q, prompt %q; want a stream for gpt-6.1-sol with the prompt", req.Stream, req.Model, req.Prompt())
	}
	if got := req.Header.Get("Authorization"); got != "Bearer "+envVar(env, "OPENAI_API_KEY") {
		t.Errorf("Authorization %q, want the environment's key", got)
	}
	if _, err := req.Skills(); err != nil {
		t.Errorf("skill listing: %v", err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want = []string{"client_metadata", "include", "input", "model", "parallel_tool_calls", "prompt_cache_key", "reasoning", "store", "stream", "text", "tool_choice"}
	if !slices.Equal(keys, want) {
		t.Errorf("request body keys %v, want %v", keys, want)
	}
}

// TestCodexEvents checks item 1 of the package doc on the JSONL stream
// and records command.jsonl, failed-command.jsonl and unknown-model.jsonl.
func TestCodexEvents(t *testing.T) {
	slow(t)
	t.Parallel()
	type check func(t *testing.T, r codexRun, reqs []*modeltest.ResponsesRequest)
	tests := []struct {
		name   string
		reply  modeltest.ResponsesReplyFunc
		args   []string
		record string
		lines  []string
		check  check
	}{
		{"command", modeltest.ResponsesToolThenText(modeltest.ExecCommand("cat notes.txt"), "Read it."), nil, "command.jsonl",
			[]string{"thread.started", "turn.started", "item.started/command_execution", "item.completed/command_execution", "item.completed/agent_message", "turn.completed"},
			func(t *testing.T, r codexRun, reqs []*modeltest.ResponsesRequest) {
				started, done := r.line("item.started/command_execution")["item"], r.line("item.completed/command_execution")["item"]
				if get(started, "status") != "in_progress" || get(started, "exit_code") != nil || get(started, "aggregated_output") != "" || get(started, "id") != get(done, "id") {
					t.Errorf("item.started %v", started)
				}
				want := map[string]any{"command": "/bin/bash -lc 'cat notes.txt'", "aggregated_output": "NOTES\n", "exit_code": 0.0, "status": "completed"}
				for k, v := range want {
					if get(done, k) != v {
						t.Errorf("command_execution %s = %v, want %v", k, get(done, k), v)
					}
				}
				out, ok := reqs[1].ToolOutput()
				if !ok || out.Type != "function_call_output" || !strings.Contains(out.Text, "Process exited with code 0\n") || !strings.HasSuffix(out.Text, "Output:\nNOTES\n") {
					t.Errorf("tool output %+v, %v; want the command's output", out, ok)
				}
				if u := r.line("turn.completed")["usage"]; get(u, "input_tokens") != 200.0 || get(u, "output_tokens") != 20.0 {
					t.Errorf("usage %v, want the two calls' sum, 200 and 20", u)
				}
			}},
		{"failed command", modeltest.ResponsesToolThenText(modeltest.ExecCommand("cat missing.txt"), "No file."), nil, "failed-command.jsonl",
			[]string{"thread.started", "turn.started", "item.started/command_execution", "item.completed/command_execution", "item.completed/agent_message", "turn.completed"},
			func(t *testing.T, r codexRun, _ []*modeltest.ResponsesRequest) {
				done := r.line("item.completed/command_execution")["item"]
				if get(done, "status") != "failed" || get(done, "exit_code") != 1.0 || !strings.Contains(fmt.Sprint(get(done, "aggregated_output")), "No such file") {
					t.Errorf("command_execution %v, want status failed and exit code 1", done)
				}
			}},
		{"code mode", modeltest.ResponsesToolThenText(modeltest.CustomToolCall("exec", `const r = await tools.exec_command({cmd: "cat notes.txt"}); text(r.output);`), "Read it."), nil, "",
			[]string{"thread.started", "turn.started", "item.started/command_execution", "item.completed/command_execution", "item.completed/agent_message", "turn.completed"},
			func(t *testing.T, r codexRun, reqs []*modeltest.ResponsesRequest) {
				out, ok := reqs[1].ToolOutput()
				if !ok || out.Type != "custom_tool_call_output" || !strings.HasPrefix(out.Text, "Script completed\n") || !strings.HasSuffix(out.Text, "\nNOTES\n") {
					t.Errorf("tool output %+v, %v; want the script's output", out, ok)
				}
			}},
		{"shell is not a tool", modeltest.ResponsesToolThenText(modeltest.FunctionCall("shell", map[string]any{"command": []string{"cat", "notes.txt"}}), "No shell."), nil, "",
			[]string{"thread.started", "turn.started", "item.completed/agent_message", "turn.completed"},
			func(t *testing.T, r codexRun, reqs []*modeltest.ResponsesRequest) {
				if out, ok := reqs[1].ToolOutput(); !ok || out.Text != "unsupported call: shell" {
					t.Errorf("tool output %+v, %v; want \"unsupported call: shell\"", out, ok)
				}
				if !strings.Contains(r.Stderr, "ERROR codex_core::tools::router: error=unsupported call: shell") {
					t.Errorf("stderr %q, want the router's error", r.Stderr)
				}
			}},
		{"unknown model", modeltest.ResponsesAlways(modeltest.ResponsesText("Hi.")), []string{"-m", "made-up-model"}, "unknown-model.jsonl",
			[]string{"thread.started", "item.completed/error", "turn.started", "item.completed/agent_message", "turn.completed"},
			func(t *testing.T, r codexRun, reqs []*modeltest.ResponsesRequest) {
				want := "Model metadata for `made-up-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."
				if got := get(r.line("item.completed/error"), "item", "message"); got != want || reqs[0].Model != "made-up-model" {
					t.Errorf("error item %q, model %q; want %q and made-up-model", got, reqs[0].Model, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewResponses(t, tt.reply)
			env, _, _ := s.CodexEnv(t)
			cwd := t.TempDir()
			if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("NOTES\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runCodex(t, env, cwd, "Read the notes.", execArgs(tt.args...)...)
			if tt.record != "" {
				saveCodex(t, tt.record, r.Stdout, placeholders(env, cwd)...)
			}
			if r.Code != 0 || !slices.Equal(r.types(), tt.lines) {
				t.Fatalf("exit code %d, lines %v; want 0 and %v\nstderr: %s", r.Code, r.types(), tt.lines, r.Stderr)
			}
			tt.check(t, r, s.ResponseRequests())
		})
	}
}

// realPath returns path with every link resolved, failing the test on
// error.
func realPath(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// listed runs the CLI once in cwd and returns the skills its request
// lists, by name (several for a name listed more than once), and the
// request.
func listed(t *testing.T, s *modeltest.ResponsesServer, env []string, cwd string) (map[string][]modeltest.ListedSkill, []modeltest.ListedSkill, *modeltest.ResponsesRequest) {
	t.Helper()
	n := len(s.ResponseRequests())
	r := runCodex(t, env, cwd, "list", execArgs()...)
	reqs := s.ResponseRequests()[n:]
	if r.Code != 0 || len(reqs) != 1 {
		t.Fatalf("exit code %d and %d requests, want 0 and 1; stderr: %s", r.Code, len(reqs), r.Stderr)
	}
	skills, err := reqs[0].Skills()
	if err != nil {
		t.Fatalf("skill listing: %v", err)
	}
	byName := map[string][]modeltest.ListedSkill{}
	for _, sk := range skills {
		byName[sk.Name] = append(byName[sk.Name], sk)
	}
	return byName, skills, reqs[0]
}

var systemSkills = []string{"imagegen", "openai-docs", "skill-creator", "skill-installer"}

// TestCodexSkills checks item 2 of the package doc.
func TestCodexSkills(t *testing.T) {
	slow(t)
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	// A reply that reads, with exec_command, the SKILL.md that the first
	// request lists for the skill named in the prompt "read NAME".
	s := modeltest.NewResponses(t, func(r *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		if _, ok := r.ToolOutput(); ok {
			return modeltest.ResponsesText("done")
		}
		name, ok := strings.CutPrefix(strings.TrimSpace(r.Prompt()), "read ")
		if !ok {
			return modeltest.ResponsesText("listed")
		}
		skills, _ := r.Skills()
		for _, sk := range skills {
			if sk.Name == name {
				return modeltest.ExecCommand("cat '" + sk.Path + "'")
			}
		}
		return modeltest.ResponsesText("no such skill")
	})
	env, home, codexHome := s.CodexEnv(t)
	user := filepath.Join(codexHome, "skills")
	store, root := t.TempDir(), t.TempDir()
	grand := filepath.Join(root, "grand")
	parent := filepath.Join(grand, "parent")
	cwd := filepath.Join(parent, "cwd")
	project := filepath.Join(cwd, ".agents", "skills")

	writeSkill(t, filepath.Join(user, "plain"), "plain", "PLAIN-DESC", "PLAIN-BODY")
	writeSkill(t, filepath.Join(user, "folder-name"), "front-name", "FN-DESC", "FN-BODY")
	writeSkill(t, filepath.Join(user, "a", "b", "c", "d", "e", "deep"), "deep", "DEEP-DESC", "DEEP-BODY")
	writeSkill(t, filepath.Join(user, "a", "b", "c", "d", "e", "f", "too-deep"), "too-deep", "TOO-DEEP-DESC", "X")
	writeSkill(t, filepath.Join(user, ".hidden", "hidden"), "hidden", "HIDDEN-DESC", "X")
	writeSkill(t, filepath.Join(store, "linked"), "linked", "LINKED-DESC", "LINKED-BODY")
	symlink(t, filepath.Join(store, "linked"), filepath.Join(user, "linked"))
	writeSkill(t, filepath.Join(codexHome, "elsewhere", "rel"), "rel", "REL-DESC", "REL-BODY")
	symlink(t, filepath.Join("..", "elsewhere", "rel"), filepath.Join(user, "rel"))
	writeSkill(t, filepath.Join(user, "dup"), "dup", "DUP-USER", "DUP-USER-BODY")
	writeSkill(t, filepath.Join(home, ".agents", "skills", "home-skill"), "home-skill", "HOME-DESC", "HOME-BODY")
	writeSkill(t, filepath.Join(home, ".codex", "skills", "dot-codex"), "dot-codex", "DOT-CODEX-DESC", "X")
	writeSkill(t, filepath.Join(project, "repo-skill"), "repo-skill", "REPO-DESC", "REPO-BODY")
	writeSkill(t, filepath.Join(project, "dup"), "dup", "DUP-REPO", "DUP-REPO-BODY")
	writeSkill(t, filepath.Join(project, "shared"), "shared", "SHARED-DESC", "SHARED-BODY")
	symlink(t, filepath.Join(project, "shared"), filepath.Join(user, "shared"))
	writeSkill(t, filepath.Join(parent, ".agents", "skills", "parent-skill"), "parent-skill", "PARENT-DESC", "PARENT-BODY")
	writeSkill(t, filepath.Join(parent, ".codex", "skills", "parent-codex"), "parent-codex", "PARENT-CODEX-DESC", "PARENT-CODEX-BODY")
	writeSkill(t, filepath.Join(grand, ".agents", "skills", "grand-skill"), "grand-skill", "GRAND-DESC", "X")
	writeSkill(t, filepath.Join(cwd, ".claude", "skills", "claude-skill"), "claude-skill", "CLAUDE-DESC", "X")
	if out, err := exec.Command("git", "init", "-q", parent).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}

	byName, skills, req := listed(t, s, env, cwd)
	t.Run("listing", func(t *testing.T) {
		dev := req.Developer()
		head := "<skills_instructions>\n## Skills\nA skill is a set of local instructions to follow that is stored in a `SKILL.md` file. " +
			"Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded " +
			"into an absolute path using the skill roots table.\n### Skill roots\n- `r0` = `"
		if !strings.Contains(dev, head) {
			t.Errorf("developer messages lack the listing's head %q:\n%s", head, dev)
		}
		var devs []string
		for _, it := range req.Input {
			if it.Type == "message" && it.Role == "developer" {
				devs = append(devs, it.Text)
			}
		}
		if len(devs) < 2 || !strings.HasPrefix(devs[1], head) {
			t.Errorf("the second of %d developer messages does not start with the listing", len(devs))
		}
		for _, sk := range skills {
			line := fmt.Sprintf("\n- %s: %s (file: %s)\n", sk.Name, sk.Description, sk.File)
			if !regexp.MustCompile(`^r\d+/`).MatchString(sk.File) || !strings.Contains(dev, line) {
				t.Errorf("skill %s: no line %q", sk.Name, line)
			}
		}
		var order []string
		for _, sk := range skills {
			order = append(order, sk.Name)
		}
		want := append(slices.Clone(systemSkills),
			"dup", "parent-codex", "parent-skill", "repo-skill", // repository skills
			"deep", "dup", "front-name", "home-skill", "linked", "plain", "rel", "shared") // user skills
		if !slices.Equal(order, want) {
			t.Errorf("listed %v, want %v", order, want)
		}
	})
	t.Run("paths", func(t *testing.T) {
		want := map[string]string{
			"plain":        filepath.Join(user, "plain"),
			"front-name":   filepath.Join(user, "folder-name"),
			"deep":         filepath.Join(user, "a", "b", "c", "d", "e", "deep"),
			"linked":       filepath.Join(user, "linked"),
			"rel":          filepath.Join(user, "rel"),
			"shared":       filepath.Join(user, "shared"),
			"home-skill":   filepath.Join(home, ".agents", "skills", "home-skill"),
			"repo-skill":   filepath.Join(project, "repo-skill"),
			"parent-skill": filepath.Join(parent, ".agents", "skills", "parent-skill"),
			"parent-codex": filepath.Join(parent, ".codex", "skills", "parent-codex"),
			"imagegen":     filepath.Join(user, ".system", "imagegen"),
		}
		for name, dir := range want {
			got := byName[name]
			// The roots are listed with their links resolved.
			if len(got) != 1 || got[0].Path != filepath.Join(realPath(t, filepath.Dir(dir)), filepath.Base(dir), "SKILL.md") {
				t.Errorf("%s listed as %+v, want %s/SKILL.md", name, got, dir)
			}
		}
		for _, sk := range skills {
			b, err := os.ReadFile(sk.Path)
			if err != nil {
				t.Errorf("%s: %v", sk.Name, err)
				continue
			}
			if !slices.Contains(systemSkills, sk.Name) && !bytes.Contains(b, []byte(sk.Description)) {
				t.Errorf("%s: %s does not hold its description %q", sk.Name, sk.Path, sk.Description)
			}
		}
	})
	t.Run("not listed", func(t *testing.T) {
		for _, name := range []string{"too-deep", "hidden", "grand-skill", "claude-skill", "dot-codex"} {
			if _, ok := byName[name]; ok {
				t.Errorf("%s is listed", name)
			}
		}
	})
	t.Run("name clash", func(t *testing.T) {
		dups := byName["dup"]
		if len(dups) != 2 || dups[0].Description != "DUP-REPO" || dups[1].Description != "DUP-USER" {
			t.Errorf("dup listed as %+v, want the repository's, then the user's", dups)
		}
	})
	t.Run("read by the model", func(t *testing.T) {
		for name, body := range map[string]string{"linked": "LINKED-BODY", "rel": "REL-BODY", "repo-skill": "REPO-BODY", "parent-codex": "PARENT-CODEX-BODY"} {
			n := len(s.ResponseRequests())
			r := runCodex(t, env, cwd, "read "+name, execArgs()...)
			reqs := s.ResponseRequests()[n:]
			if r.Code != 0 || len(reqs) != 2 {
				t.Fatalf("read %s: exit code %d, %d requests; want 0 and 2", name, r.Code, len(reqs))
			}
			if out, _ := reqs[1].ToolOutput(); !strings.HasSuffix(out.Text, "\n"+body+"\n") {
				t.Errorf("read %s: tool output %q, want the body %s", name, out.Text, body)
			}
		}
	})
	t.Run("without git only the working folder", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "parent", "cwd")
		writeSkill(t, filepath.Join(other, ".agents", "skills", "here"), "here", "HERE-DESC", "X")
		writeSkill(t, filepath.Join(filepath.Dir(other), ".agents", "skills", "above"), "above", "ABOVE-DESC", "X")
		byName, _, _ := listed(t, s, env, other)
		if _, ok := byName["here"]; !ok {
			t.Error("the working folder's skill is not listed")
		}
		if _, ok := byName["above"]; ok {
			t.Error("the skill of the folder above is listed")
		}
	})
	t.Run("linked skills folder", func(t *testing.T) {
		env, _, codexHome := s.CodexEnv(t)
		target := filepath.Join(t.TempDir(), "skills")
		writeSkill(t, filepath.Join(target, "via-link"), "via-link", "VIA-LINK-DESC", "X")
		symlink(t, target, filepath.Join(codexHome, "skills"))
		byName, _, _ := listed(t, s, env, t.TempDir())
		if got := byName["via-link"]; len(got) != 1 || got[0].Path != filepath.Join(realPath(t, target), "via-link", "SKILL.md") {
			t.Errorf("via-link listed as %+v, want it under the link's target", got)
		}
		if _, err := os.Stat(filepath.Join(target, ".system", ".codex-system-skills.marker")); err != nil {
			t.Errorf("system skills not installed in the link's target: %v", err)
		}
		if fi, err := os.Lstat(filepath.Join(codexHome, "skills")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the skills link was replaced: %v", err)
		}
	})
	t.Run("default CODEX_HOME", func(t *testing.T) {
		env, home, _ := s.CodexEnv(t)
		s.WriteCodexConfig(t, filepath.Join(home, ".codex"))
		writeSkill(t, filepath.Join(home, ".codex", "skills", "dot-codex"), "dot-codex", "DOT-CODEX-DESC", "X")
		byName, _, _ := listed(t, s, append(env, "CODEX_HOME="), t.TempDir())
		if got := byName["dot-codex"]; len(got) != 1 || got[0].Path != filepath.Join(realPath(t, home), ".codex", "skills", "dot-codex", "SKILL.md") {
			t.Errorf("with CODEX_HOME empty, dot-codex listed as %+v, want it in ~/.codex/skills", got)
		}
	})
	t.Run("system skills", func(t *testing.T) {
		env, _, codexHome := s.CodexEnv(t)
		system := filepath.Join(codexHome, "skills", ".system")
		marker := filepath.Join(system, ".codex-system-skills.marker")
		skill := filepath.Join(system, "imagegen", "SKILL.md")
		byName, _, _ := listed(t, s, env, t.TempDir())
		installed, err := os.ReadFile(marker)
		if err != nil {
			t.Fatalf("no marker after the first run: %v", err)
		}
		for _, name := range append(slices.Clone(systemSkills), "review-agent") {
			if _, err := os.Stat(filepath.Join(system, name, "SKILL.md")); err != nil {
				t.Errorf("system skill %s: %v", name, err)
			}
		}
		if len(byName["review-agent"]) != 0 {
			t.Error("review-agent is listed")
		}
		orig, err := os.ReadFile(skill)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(skill, []byte("CHANGED"), 0o644)
		listed(t, s, env, t.TempDir())
		if b, _ := os.ReadFile(skill); string(b) != "CHANGED" {
			t.Errorf("a changed system skill was rewritten although the marker matched")
		}
		os.WriteFile(marker, []byte("other"), 0o644)
		listed(t, s, env, t.TempDir())
		if b, _ := os.ReadFile(skill); !bytes.Equal(b, orig) {
			t.Errorf("a changed system skill was not rewritten after the marker changed")
		}
		if b, _ := os.ReadFile(marker); !bytes.Equal(b, installed) {
			t.Errorf("marker %q after reinstalling, want %q", b, installed)
		}
		// A missing system skill is not restored while the marker matches.
		if err := os.RemoveAll(filepath.Dir(skill)); err != nil {
			t.Fatal(err)
		}
		if byName, _, _ := listed(t, s, env, t.TempDir()); len(byName["imagegen"]) != 0 {
			t.Errorf("a removed system skill is listed: %+v", byName["imagegen"])
		}
		if _, err := os.Stat(skill); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a removed system skill was restored although the marker matched: %v", err)
		}
		t.Logf("system skills marker: %s", installed)
	})
}

// tree returns the files and folders under dir, as slash paths relative
// to it, folders with a trailing slash.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCodexFiles checks item 3 of the package doc.
func TestCodexFiles(t *testing.T) {
	slow(t)
	t.Parallel()
	// Each phase's runs overlap: the stand-in answers none of a phase
	// until every run of it has asked.
	var together atomic.Pointer[barrier]
	s := modeltest.NewResponses(t, func(*modeltest.ResponsesRequest) modeltest.ResponsesReply {
		if b := together.Load(); b != nil {
			b.wait()
		}
		return modeltest.ResponsesText("ok")
	})
	env, home, codexHome := s.CodexEnv(t)
	config, err := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	cli := modeltest.CodexCLI(t)
	// concurrently starts runs runs sharing CODEX_HOME and the working
	// folder and returns their outcomes.
	concurrently := func(runs int) []codexRun {
		together.Store(newBarrier(t.Context(), runs))
		var out []codexRun
		for _, r := range runAtOnce(t, runs, cli, env, cwd, "hi", execArgs()...) {
			out = append(out, codexRun{r})
		}
		return out
	}
	const runs = 4
	ids := map[string]bool{}
	// Overlapping runs get in each other's way, say so on stderr and go
	// on: the first runs on a new CODEX_HOME race to install the system
	// skills, a run may remove another's shell snapshot while that one
	// checks it, and runs race to make their PATH aliases.
	races := map[string]*regexp.Regexp{
		"system skills":  regexp.MustCompile(`(?m)^\S+ ERROR codex_skills_extension::host_service: failed to install system skills: io error while .*\n`),
		"shell snapshot": regexp.MustCompile(`(?m)^\S+ ERROR codex_core::shell_snapshot: Shell snapshot validation failed: .*shell_snapshots/.*: No such file or directory\n+`),
		// Each run also makes its helper links in CODEX_HOME/tmp, and
		// overlapping runs trip over each other's.
		"path aliases": regexp.MustCompile(`(?m)^WARNING: proceeding, even though we could not create PATH aliases: .*\n`),
	}
	lost := map[string]int{}
	check := func(phase string, r codexRun) {
		t.Helper()
		rest := r.Stderr
		for name, re := range races {
			if re.MatchString(rest) {
				lost[phase+" "+name]++
				rest = re.ReplaceAllString(rest, "")
			}
		}
		if r.Code != 0 || r.line("turn.completed") == nil || rest != "" {
			t.Errorf("%s concurrent run: exit code %d, lines %v, stderr %q", phase, r.Code, r.types(), r.Stderr)
		}
		ids[r.thread()] = true
	}
	for _, r := range concurrently(runs) {
		check("first", r)
	}
	// The race may leave the marker with some system skills missing, and
	// no later run restores them (see TestCodexSkills).
	var missing []string
	for _, name := range systemSkills {
		if _, err := os.Stat(filepath.Join(codexHome, "skills", ".system", name, "SKILL.md")); err != nil {
			missing = append(missing, name)
		}
	}
	if _, err := os.Stat(filepath.Join(codexHome, "skills", ".system", ".codex-system-skills.marker")); err != nil {
		t.Errorf("no system skills marker after the race: %v", err)
	}
	for _, r := range concurrently(runs) {
		check("later", r)
	}
	if lost["later system skills"] != 0 {
		t.Errorf("%d later runs raced to install the system skills, want none", lost["later system skills"])
	}
	t.Logf("races lost, of %d runs a phase: %v; system skills missing after the first runs: %v", runs, lost, missing)
	if len(ids) != 2*runs {
		t.Errorf("%d thread ids for %d runs", len(ids), 2*runs)
	}

	if ents, _ := os.ReadDir(cwd); len(ents) != 0 {
		t.Errorf("the working folder holds %d entries, want none", len(ents))
	}
	if got := tree(t, home); len(got) != 0 {
		t.Errorf("HOME holds %v, want nothing", got)
	}
	if got := tree(t, envVar(env, "TMPDIR")); len(got) != 0 {
		t.Errorf("TMPDIR holds %v, want nothing", got)
	}
	if b, err := os.ReadFile(filepath.Join(codexHome, "config.toml")); err != nil || !bytes.Equal(b, config) {
		t.Errorf("config.toml changed (%v):\n%s", err, b)
	}
	files := tree(t, codexHome)
	patterns := map[string]int{ // -1: at least one
		`^\.sandbox_migration$`: 1,
		`^\.tmp/`:               0, // plugins.sync.lock, when plugins are on
		`^installation_id$`:     1,
		`^(goals|logs|memories|queue|state|thread_history)_\d+\.sqlite$`:                         6,
		`^sessions/\d{4}/\d\d/\d\d/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[0-9a-f-]{36}\.jsonl$`: 2 * runs,
		`^shell_snapshots/$`:                              1,
		`^shell_snapshots/.`:                              0, // removed at exit
		`^skills/\.system/\.codex-system-skills\.marker$`: 1,
		`^thread-writer-locks/\.coordination\.lock$`:      1,
		`^tmp/arg0-linux/$`:                               1,
	}
	countMatches(t, files, patterns)
	for id := range ids {
		if m, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl")); len(m) != 1 {
			t.Errorf("thread %s: session files %v, want one", id, m)
		}
	}
	for _, f := range []string{"auth.json", "version.json", "AGENTS.md"} {
		if _, err := os.Lstat(filepath.Join(codexHome, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want none", f, err)
		}
	}
	var top []string
	for _, f := range files {
		if !strings.Contains(strings.TrimSuffix(f, "/"), "/") {
			top = append(top, f)
		}
	}
	t.Logf("CODEX_HOME after %d runs: %v", 2*runs, top)
}

// TestCodexResume checks item 4 of the package doc and records
// resume.jsonl, unknown-resume.jsonl and unknown-resume.stderr.
func TestCodexResume(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewResponses(t, func(r *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		return modeltest.ResponsesText(fmt.Sprintf("Answer to %d input items.", len(r.Input)))
	})
	env, _, codexHome := s.CodexEnv(t)
	cwd := t.TempDir()

	first := runCodex(t, env, cwd, "FIRST-TURN", execArgs()...)
	id := first.thread()
	if first.Code != 0 || id == "" {
		t.Fatalf("first run: exit code %d, thread %q; stderr: %s", first.Code, id, first.Stderr)
	}
	sessions, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("session files %v, want one", sessions)
	}
	size := func() int64 {
		fi, err := os.Stat(sessions[0])
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()

	n := len(s.ResponseRequests())
	r := runCodex(t, env, cwd, "SECOND-TURN", execArgs("resume", id)...)
	saveCodex(t, "resume.jsonl", r.Stdout, placeholders(env, cwd)...)
	want := []string{"thread.started", "turn.started", "item.completed/agent_message", "turn.completed"}
	if r.Code != 0 || r.thread() != id || !slices.Equal(r.types(), want) {
		t.Errorf("resume: exit code %d, thread %q, lines %v; want 0, %s, %v", r.Code, r.thread(), r.types(), id, want)
	}
	if u := r.line("turn.completed")["usage"]; get(u, "input_tokens") != 200.0 || get(u, "output_tokens") != 20.0 {
		t.Errorf("resume: usage %v, want the thread's total over both runs, 200 and 20", u)
	}
	reqs := s.ResponseRequests()[n:]
	if len(reqs) != 1 {
		t.Fatalf("resume sent %d requests, want 1", len(reqs))
	}
	var users []string
	for _, it := range reqs[0].Input {
		if it.Type == "message" && it.Role != "developer" {
			users = append(users, it.Role+": "+strings.SplitN(it.Text, "\n", 2)[0])
		}
	}
	wantUsers := []string{"user: <environment_context>", "user: FIRST-TURN", "assistant: " + get(first.line("item.completed/agent_message"), "item", "text").(string), "user: SECOND-TURN"}
	if !slices.Equal(users, wantUsers) {
		t.Errorf("resumed request's messages %q, want the first turn replayed before the second, %q", users, wantUsers)
	}
	if size() <= before {
		t.Error("the resumed turn was not appended to the session file")
	}

	unknown := "3f1e5b2a-7c4d-4e8f-9a6b-1c2d3e4f5a6b"
	n = len(s.Requests())
	r = runCodex(t, env, cwd, "THIRD-TURN", execArgs("resume", unknown)...)
	saveCodex(t, "unknown-resume.jsonl", r.Stdout, placeholders(env, cwd)...)
	saveCodex(t, "unknown-resume.stderr", r.Stderr, placeholders(env, cwd)...)
	msg := "Error: thread/resume: thread/resume failed: no rollout found for thread id " + unknown + " (code -32600)\n"
	if r.Code != 1 || r.Stdout != "" || r.Stderr != msg || len(s.Requests()) != n {
		t.Errorf("unknown thread: exit code %d, stdout %q, stderr %q, %d requests; want 1, nothing, %q, none", r.Code, r.Stdout, r.Stderr, len(s.Requests())-n, msg)
	}

	t.Run("another CODEX_HOME", func(t *testing.T) {
		other, _, _ := s.CodexEnv(t)
		r := runCodex(t, other, cwd, "TURN", execArgs("resume", id)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "no rollout found for thread id "+id) {
			t.Errorf("exit code %d, stderr %q; want 1 and no rollout found", r.Code, r.Stderr)
		}
	})
	t.Run("another working folder", func(t *testing.T) {
		other := t.TempDir()
		n := len(s.ResponseRequests())
		r := runCodex(t, env, other, "FOURTH-TURN", execArgs("resume", id)...)
		if r.Code != 0 || r.thread() != id {
			t.Fatalf("exit code %d, thread %q; want 0 and %s", r.Code, r.thread(), id)
		}
		reqs := s.ResponseRequests()[n:]
		var envs []string
		for _, it := range reqs[0].Input {
			if strings.HasPrefix(it.Text, "<environment_context>") {
				envs = append(envs, it.Text)
			}
		}
		if len(envs) != 2 || !strings.Contains(envs[0], "<cwd>"+cwd+"</cwd>") || !strings.Contains(envs[1], "<cwd>"+other+"</cwd>") {
			t.Errorf("environment contexts %q, want the first folder's, then the new one's", envs)
		}
		if m, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl")); len(m) != 1 {
			t.Errorf("session files %v, want still one", m)
		}
	})
	t.Run("not a UUID", func(t *testing.T) {
		n := len(s.ResponseRequests())
		r := runCodex(t, env, cwd, "FIFTH-TURN", execArgs("resume", "no-such-name")...)
		reqs := s.ResponseRequests()[n:]
		if r.Code != 0 || r.thread() == "" || r.thread() == id || len(reqs) != 1 || reqs[0].Prompt() != "FIFTH-TURN" {
			t.Errorf("exit code %d, thread %q, %d requests; want 0, a new thread and one request with the prompt", r.Code, r.thread(), len(reqs))
		}
		for _, it := range reqs[0].Input {
			if strings.Contains(it.Text, "FIRST-TURN") {
				t.Error("the new thread replays the first turn")
			}
		}
	})
}

// unsignedJWT returns a JWT with the claims and no signature that counts:
// Codex reads a ChatGPT login's tokens without checking them.
func unsignedJWT(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + ".c2ln"
}

func chatgptClaims(exp time.Time) map[string]any {
	return map[string]any{
		"exp":   exp.Unix(),
		"email": "user@example.com",
		"https://api.openai.com/auth": map[string]any{
			"chatgpt_plan_type": "plus", "chatgpt_account_id": "acct_modeltest", "chatgpt_user_id": "user_modeltest",
		},
	}
}

// TestCodexAuth checks item 5 of the package doc: a ChatGPT login whose
// tokens are due is refreshed through a CODEX_HOME/auth.json that is a
// link to the user's file.
func TestCodexAuth(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewResponses(t, nil)
	fresh := unsignedJWT(chatgptClaims(time.Now().Add(time.Hour)))
	var mu sync.Mutex
	var refreshes []string
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		refreshes = append(refreshes, r.Method+" "+r.URL.Path+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id_token": fresh, "access_token": fresh, "refresh_token": "rt-NEW"})
	}))
	defer tokens.Close()

	// user makes the user's Codex home, holding a ChatGPT login due for a
	// refresh, and returns its auth.json.
	user := func(t *testing.T) string {
		stale := unsignedJWT(chatgptClaims(time.Now().Add(-24 * time.Hour)))
		auth, _ := json.MarshalIndent(map[string]any{
			"auth_mode":      "chatgpt",
			"OPENAI_API_KEY": nil,
			"tokens":         map[string]any{"id_token": stale, "access_token": stale, "refresh_token": "rt-OLD", "account_id": "acct_modeltest"},
			"last_refresh":   time.Now().Add(-30 * 24 * time.Hour).UTC().Format(time.RFC3339),
		}, "", "  ")
		name := filepath.Join(t.TempDir(), "auth.json")
		if err := os.WriteFile(name, auth, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	chatgpt := fmt.Sprintf(`model_provider = "fake"
analytics.enabled = false

[features]
plugins = false
apps = false

[model_providers.fake]
name = "fake"
base_url = %q
requires_openai_auth = true
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, s.URL+"/v1")

	t.Run("API key run only reads", func(t *testing.T) {
		userAuth := user(t)
		before, _ := os.Stat(userAuth)
		env, _, codexHome := s.CodexEnv(t)
		symlink(t, userAuth, filepath.Join(codexHome, "auth.json"))
		if r := runCodex(t, env, t.TempDir(), "hi", execArgs()...); r.Code != 0 {
			t.Fatalf("exit code %d; stderr: %s", r.Code, r.Stderr)
		}
		after, _ := os.Stat(userAuth)
		if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
			t.Error("the user's auth.json changed")
		}
		if got := tree(t, filepath.Dir(userAuth)); !slices.Equal(got, []string{"auth.json"}) {
			t.Errorf("the user's folder holds %v, want only auth.json", got)
		}
		if _, err := os.Lstat(filepath.Join(codexHome, "auth.lock")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("auth.lock: %v, want none", err)
		}
	})

	for _, relative := range []bool{false, true} {
		t.Run(fmt.Sprintf("refresh writes through the link (relative %v)", relative), func(t *testing.T) {
			userAuth := user(t)
			before, _ := os.Stat(userAuth)
			env, _, codexHome := s.CodexEnv(t)
			if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(chatgpt), 0o644); err != nil {
				t.Fatal(err)
			}
			target := userAuth
			if relative {
				var err error
				if target, err = filepath.Rel(codexHome, userAuth); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(codexHome, "auth.json")
			symlink(t, target, link)
			env = append(without(env, "OPENAI_API_KEY"), "CODEX_REFRESH_TOKEN_URL_OVERRIDE="+tokens.URL+"/oauth/token")
			mu.Lock()
			m := len(refreshes)
			mu.Unlock()
			n := len(s.Requests())
			r := runCodex(t, env, t.TempDir(), "hi", execArgs()...)
			if r.Code != 0 {
				t.Fatalf("exit code %d; stderr: %s", r.Code, r.Stderr)
			}
			mu.Lock()
			got := slices.Clone(refreshes[m:])
			mu.Unlock()
			if len(got) != 1 || !strings.HasPrefix(got[0], "POST /oauth/token ") ||
				!strings.Contains(got[0], `"grant_type":"refresh_token"`) || !strings.Contains(got[0], `"refresh_token":"rt-OLD"`) ||
				!strings.Contains(got[0], `"refresh_reason":"proactive_expiry"`) {
				t.Errorf("token requests %q, want one refresh of rt-OLD", got)
			}
			var calls []string
			for _, req := range s.Requests()[n:] {
				calls = append(calls, req.Method+" "+req.Path)
				if req.Path == "/v1/responses" && req.Header.Get("Authorization") != "Bearer "+fresh {
					t.Errorf("Authorization %q, want the refreshed access token", req.Header.Get("Authorization"))
				}
			}
			if !slices.Contains(calls, "GET /v1/models") || !slices.Contains(calls, "POST /v1/responses") {
				t.Errorf("calls %v, want GET /v1/models and POST /v1/responses", calls)
			}

			if got, err := os.Readlink(link); err != nil || got != target {
				t.Errorf("CODEX_HOME/auth.json: link to %q (%v), want the link kept", got, err)
			}
			after, err := os.Stat(userAuth)
			if err != nil {
				t.Fatal(err)
			}
			if os.SameFile(before, after) || after.Mode().Perm() != 0o600 {
				t.Errorf("the user's auth.json: same file %v, mode %v; want a new file (renamed into place) with mode 0600", os.SameFile(before, after), after.Mode().Perm())
			}
			b, _ := os.ReadFile(userAuth)
			var saved struct {
				Tokens      map[string]string `json:"tokens"`
				LastRefresh time.Time         `json:"last_refresh"`
			}
			if err := json.Unmarshal(b, &saved); err != nil || saved.Tokens["refresh_token"] != "rt-NEW" || saved.Tokens["access_token"] != fresh || time.Since(saved.LastRefresh) > time.Minute {
				t.Errorf("the user's auth.json after the refresh (%v):\n%s", err, b)
			}
			if got := tree(t, filepath.Dir(userAuth)); !slices.Equal(got, []string{"auth.json", "auth.json.lock"}) {
				t.Errorf("the user's folder holds %v, want auth.json and auth.json.lock", got)
			}
			if _, err := os.Stat(filepath.Join(codexHome, "auth.lock")); err != nil {
				t.Errorf("CODEX_HOME/auth.lock: %v", err)
			}
		})
	}
}

// cmdline returns the command line of process pid, its arguments joined
// with spaces.
func cmdline(pid string) string {
	b, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// TestCodexSignals checks item 6 of the package doc and records
// interrupt.jsonl.
func TestCodexSignals(t *testing.T) {
	slow(t)
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	// Node.js 22.15 and 23.11 added process.execve; the wrapper uses it
	// to become the native binary instead of starting it as a child.
	out, err := exec.Command("node", "-e", "process.stdout.write(typeof process.execve)").Output()
	if err != nil {
		t.Skipf("node: %v", err)
	}
	execve := string(out) == "function"
	t.Logf("node has process.execve: %v", execve)
	tests := []struct {
		name  string
		sig   syscall.Signal
		state string // the wrapper's, as os.ProcessState.String reports it
	}{
		{"interrupt", syscall.SIGINT, "exit status 1"},
		{"terminate", syscall.SIGTERM, "signal: terminated"},
		{"kill", syscall.SIGKILL, "signal: killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			asked := make(chan struct{}, 1)
			s := modeltest.NewResponses(t, func(*modeltest.ResponsesRequest) modeltest.ResponsesReply {
				asked <- struct{}{}
				return modeltest.ResponsesStall()
			})
			env, _, _ := s.CodexEnv(t)
			marker := fmt.Sprintf("codex-signals-%s-%d", tt.name, time.Now().UnixNano())
			env = append(env, "AGENTADAPTOR_TEST_RUN="+marker)
			cwd := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := newCLICmd(ctx, modeltest.CodexCLI(t), env, cwd, "wait for it", execArgs()...)
			// After a SIGKILL of the wrapper the native binary holds the
			// pipes open: do not wait for it.
			cmd.WaitDelay = time.Second
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { // whatever happens, leave nothing running
				for _, pid := range modeltest.Processes(marker) {
					if p, err := os.FindProcess(pid); err == nil {
						p.Kill()
					}
				}
			}()
			select {
			case <-asked:
			case <-ctx.Done():
				t.Fatal("no request")
			}
			// The native binary: the wrapper's only child, or the wrapper
			// itself when Node.js replaced itself with it.
			native := fmt.Sprint(cmd.Process.Pid)
			kids := children(cmd.Process.Pid)
			if !execve {
				if len(kids) != 1 {
					t.Fatalf("wrapper %s: children %v, want one", cmdline(native), kids)
				}
				native = kids[0]
			} else if len(kids) != 0 {
				t.Fatalf("native binary %s: children %v, want none", cmdline(native), kids)
			}
			if args := strings.Fields(cmdline(native)); len(args) == 0 || !strings.Contains(args[0], "/vendor/") || !strings.HasSuffix(args[0], "/codex") {
				t.Fatalf("native binary %s: command line %q", native, cmdline(native))
			}
			r := codexRun{cmd.signal(t, tt.sig)}
			if tt.sig == syscall.SIGINT {
				saveCodex(t, "interrupt.jsonl", r.Stdout, placeholders(env, cwd)...)
			}
			want := []string{"thread.started", "turn.started"}
			if state := cmd.ProcessState.String(); r.Took > 5*time.Second || state != tt.state || !slices.Equal(r.types(), want) || r.Stderr != "" {
				t.Errorf("after %v: %s in %v, stdout %v, stderr %q; want %s, %v, nothing", tt.sig, state, r.Took, r.types(), r.Stderr, tt.state, want)
			}
			// The wrapper has been waited for: it waits for its child, so
			// what is left now is left for good (a SIGKILLed wrapper does
			// not pass the signal on).
			left := modeltest.Processes(marker)
			if tt.sig == syscall.SIGKILL && !execve {
				// The wrapper dies at once; the native binary lives on.
				if !slices.Contains(left, mustAtoi(t, native)) {
					t.Errorf("after SIGKILL of the wrapper: processes %v, want the native binary %s left", left, native)
				}
				return
			}
			if len(left) != 0 {
				t.Errorf("after %v: processes %v left", tt.sig, left)
			}
		})
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// permissions returns the <permissions instructions> text of a request.
func permissions(r *modeltest.ResponsesRequest) string {
	dev := r.Developer()
	_, after, _ := strings.Cut(dev, "<permissions instructions>\n")
	text, _, _ := strings.Cut(after, "</permissions instructions>")
	return text
}

// turnMetadata returns a field of the request's x-codex-turn-metadata
// header.
func turnMetadata(r *modeltest.ResponsesRequest, key string) any {
	var m map[string]any
	json.Unmarshal([]byte(r.Header.Get("X-Codex-Turn-Metadata")), &m)
	return m[key]
}

// TestCodexFlags checks item 7 of the package doc.
func TestCodexFlags(t *testing.T) {
	slow(t)
	t.Parallel()
	t.Run("sandbox and approvals", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			args []string
			mode string // sandbox_mode in the permissions text
			meta string // the sandbox field of x-codex-turn-metadata
		}{
			{nil, "read-only", "seccomp"},
			{[]string{"-s", "read-only"}, "read-only", "seccomp"},
			{[]string{"-s", "workspace-write"}, "workspace-write", "seccomp"},
			{[]string{"-s", "danger-full-access"}, "danger-full-access", "none"},
			{[]string{"--dangerously-bypass-approvals-and-sandbox"}, "danger-full-access", "none"},
			{[]string{"-c", `sandbox_mode="workspace-write"`}, "workspace-write", "seccomp"},
			{[]string{"-c", `approval_policy="on-request"`}, "read-only", "seccomp"},
			{[]string{"-c", `approval_policy="on-failure"`, "-s", "workspace-write"}, "workspace-write", "seccomp"},
		}
		for _, tt := range tests {
			t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
				t.Parallel()
				s := modeltest.NewResponses(t, nil)
				env, _, _ := s.CodexEnv(t)
				r := runCodex(t, env, t.TempDir(), "hi", execArgs(tt.args...)...)
				reqs := s.ResponseRequests()
				if r.Code != 0 || len(reqs) != 1 {
					t.Fatalf("exit code %d, %d requests; stderr: %s", r.Code, len(reqs), r.Stderr)
				}
				perm := permissions(reqs[0])
				if !strings.Contains(perm, "`sandbox_mode` is `"+tt.mode+"`") || !strings.Contains(perm, "Approval policy is currently never.") {
					t.Errorf("permissions %q, want sandbox_mode %s and approval policy never", perm, tt.mode)
				}
				if got := []any{turnMetadata(reqs[0], "sandbox_mode"), turnMetadata(reqs[0], "sandbox")}; got[0] != tt.mode || got[1] != tt.meta {
					t.Errorf("turn metadata sandbox_mode, sandbox = %v, want %s, %s", got, tt.mode, tt.meta)
				}
			})
		}
	})
	t.Run("writes", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			args    []string
			made    bool
			command bool // a command_execution item is always reported
		}{
			// A command the sandbox stops is mostly, not always, left out.
			{[]string{"-s", "read-only"}, false, false},
			{[]string{"-s", "workspace-write"}, true, true},
			{[]string{"--dangerously-bypass-approvals-and-sandbox"}, true, true},
		} {
			s := modeltest.NewResponses(t, modeltest.ResponsesToolThenText(modeltest.ExecCommand("touch made"), "done"))
			env, _, _ := s.CodexEnv(t)
			cwd := t.TempDir()
			r := runCodex(t, env, cwd, "make it", execArgs(tt.args...)...)
			_, err := os.Stat(filepath.Join(cwd, "made"))
			out, _ := s.ResponseRequests()[len(s.ResponseRequests())-1].ToolOutput()
			if r.Code != 0 || (err == nil) != tt.made || tt.command && r.line("item.completed/command_execution") == nil {
				t.Errorf("%v: exit code %d, file made %v, lines %v; want 0, %v, command_execution %v; tool output %q", tt.args, r.Code, err == nil, r.types(), tt.made, tt.command, out.Text)
			}
			if !tt.made && !strings.Contains(out.Text, "Read-only file system") {
				t.Errorf("%v: tool output %q, want Read-only file system", tt.args, out.Text)
			}
		}
	})
	t.Run("model", func(t *testing.T) {
		t.Parallel()
		s := modeltest.NewResponses(t, nil)
		env, _, _ := s.CodexEnv(t)
		for _, tt := range []struct {
			args          []string
			model, effort string
		}{
			{nil, "gpt-6.1-sol", "low"},
			{[]string{"-m", "gpt-5.5"}, "gpt-5.5", ""},
			{[]string{"-c", `model="made-up"`, "-c", `model_reasoning_effort="high"`}, "made-up", "high"},
		} {
			n := len(s.ResponseRequests())
			r := runCodex(t, env, t.TempDir(), "hi", execArgs(tt.args...)...)
			reqs := s.ResponseRequests()[n:]
			if r.Code != 0 || len(reqs) != 1 || reqs[0].Model != tt.model {
				t.Fatalf("%v: exit code %d, %d requests; want 0 and one for %s", tt.args, r.Code, len(reqs), tt.model)
			}
			var body struct {
				Reasoning struct {
					Effort string `json:"effort"`
				} `json:"reasoning"`
			}
			json.Unmarshal(reqs[0].Body, &body)
			if tt.effort != "" && body.Reasoning.Effort != tt.effort {
				t.Errorf("%v: reasoning effort %q, want %q", tt.args, body.Reasoning.Effort, tt.effort)
			}
			t.Logf("%v: model %s, reasoning effort %q", tt.args, reqs[0].Model, body.Reasoning.Effort)
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			args   []string
			code   int
			stderr string
		}{
			{[]string{"-s", "bogus"}, 2, "error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>'\n"},
			{[]string{"-c", `approval_policy="untrusted"`}, 1, "Error: approval_policy = \"untrusted\" is no longer supported; remove this setting\n"},
		} {
			s := modeltest.NewResponses(t, nil)
			env, _, _ := s.CodexEnv(t)
			r := runCodex(t, env, t.TempDir(), "hi", execArgs(tt.args...)...)
			if r.Code != tt.code || r.Stdout != "" || !strings.HasPrefix(r.Stderr, tt.stderr) || len(s.Requests()) != 0 {
				t.Errorf("%v: exit code %d, stdout %q, stderr %q, %d requests; want %d, nothing, %q, none", tt.args, r.Code, r.Stdout, r.Stderr, len(s.Requests()), tt.code, tt.stderr)
			}
		}
	})
}

// TestCodexTraffic checks item 8 of the package doc: the tools offered,
// API errors and retries, and records api-error.jsonl and
// api-retry.jsonl.
func TestCodexTraffic(t *testing.T) {
	slow(t)
	t.Parallel()
	t.Run("tools", func(t *testing.T) {
		t.Parallel()
		s := modeltest.NewResponses(t, nil)
		env, _, _ := s.CodexEnv(t)
		for _, tt := range []struct {
			args      []string
			has, lack []string
		}{
			{nil, []string{"functions.exec", "functions.wait", "clock.sleep", "collaboration.spawn_agent"}, []string{"exec_command", "shell"}},
			{[]string{"-m", "gpt-5.5"}, []string{"exec_command", "write_stdin", "apply_patch", "view_image", "web_search"}, []string{"functions.exec", "shell"}},
			{[]string{"-m", "made-up"}, []string{"exec_command", "write_stdin", "view_image", "multi_agent_v1.spawn_agent"}, []string{"functions.exec", "shell"}},
		} {
			n := len(s.ResponseRequests())
			if r := runCodex(t, env, t.TempDir(), "hi", execArgs(tt.args...)...); r.Code != 0 {
				t.Fatalf("%v: exit code %d", tt.args, r.Code)
			}
			tools := s.ResponseRequests()[n].Tools
			for _, name := range tt.has {
				if !slices.Contains(tools, name) {
					t.Errorf("%v: tools %v lack %s", tt.args, tools, name)
				}
			}
			for _, name := range tt.lack {
				if slices.Contains(tools, name) {
					t.Errorf("%v: tools %v hold %s", tt.args, tools, name)
				}
			}
			t.Logf("%v: tools %v", tt.args, tools)
		}
	})
	fake := func(key string, n int) []string {
		return []string{"-c", fmt.Sprintf("model_providers.fake.%s=%d", key, n)}
	}
	tests := []struct {
		name    string
		reply   modeltest.ResponsesReply
		args    []string
		record  string
		calls   int
		retries int // "Reconnecting..." error lines
		message string
	}{
		{"400", modeltest.ResponsesAPIError(400, "invalid_request_error", "The stand-in refuses this request."), append(fake("stream_max_retries", 5), fake("request_max_retries", 4)...), "api-error.jsonl", 1, 0,
			`{"error":{"code":null,"message":"The stand-in refuses this request.","param":null,"type":"invalid_request_error"}}`},
		{"401 stream retries", modeltest.ResponsesAPIError(401, "invalid_request_error", "bad key"), fake("stream_max_retries", 1), "api-retry.jsonl", 2, 1,
			"unexpected status 401 Unauthorized: bad key, url: URL/v1/responses, request id: req_modeltest"},
		{"401 default retries", modeltest.ResponsesAPIError(401, "invalid_request_error", "bad key"), append(fake("stream_max_retries", 5), fake("request_max_retries", 4)...), "", 6, 5,
			"unexpected status 401 Unauthorized: bad key, url: URL/v1/responses, request id: req_modeltest"},
		{"500 request retries", modeltest.ResponsesAPIError(500, "server_error", "boom"), fake("request_max_retries", 1), "", 2, 0,
			"We’re currently experiencing high demand, which may cause temporary errors."},
		{"403", modeltest.ResponsesAPIError(403, "invalid_request_error", "no"), fake("stream_max_retries", 1), "", 2, 1,
			"unexpected status 403 Forbidden: no, url: URL/v1/responses, request id: req_modeltest"},
		{"404", modeltest.ResponsesAPIError(404, "invalid_request_error", "no"), fake("stream_max_retries", 1), "", 2, 1,
			"unexpected status 404 Not Found: no, url: URL/v1/responses, request id: req_modeltest"},
		{"500 both retries", modeltest.ResponsesAPIError(500, "server_error", "boom"), append(fake("stream_max_retries", 1), fake("request_max_retries", 1)...), "", 4, 1,
			"We’re currently experiencing high demand, which may cause temporary errors."},
		{"429", modeltest.ResponsesAPIError(429, "rate_limit_error", "slow down"), append(fake("stream_max_retries", 5), fake("request_max_retries", 4)...), "", 1, 0,
			"exceeded retry limit, last status: 429 Too Many Requests, request id: req_modeltest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewResponses(t, modeltest.ResponsesAlways(tt.reply))
			env, _, _ := s.CodexEnv(t)
			cwd := t.TempDir()
			r := runCodex(t, env, cwd, "hi", execArgs(tt.args...)...)
			if tt.record != "" {
				saveCodex(t, tt.record, strings.ReplaceAll(r.Stdout, s.URL, "http://127.0.0.1:PORT"), placeholders(env, cwd)...)
			}
			msg := strings.ReplaceAll(tt.message, "URL", s.URL)
			var retries int
			for _, l := range r.Lines {
				if m, _ := l["message"].(string); l["type"] == "error" && strings.HasPrefix(m, "Reconnecting... ") {
					retries++
					if want := fmt.Sprintf("Reconnecting... %d/%d (%s)", retries, tt.retries, msg); m != want {
						t.Errorf("retry line %q, want %q", m, want)
					}
				}
			}
			lines := r.types()
			failed := r.line("turn.failed")
			calls := len(s.ResponseRequests())
			if r.Code != 1 || calls != tt.calls || retries != tt.retries || get(failed, "error", "message") != msg ||
				len(lines) < 4 || lines[len(lines)-2] != "error" || r.Lines[len(lines)-2]["message"] != msg {
				t.Errorf("exit code %d, %d calls, %d retries, lines %v, turn.failed %v; want 1, %d, %d, an error line and turn.failed with %q",
					r.Code, calls, retries, lines, failed, tt.calls, tt.retries, msg)
			}
		})
	}
	t.Run("stall after output bounded by stream_idle_timeout_ms", func(t *testing.T) {
		t.Parallel()
		rep := modeltest.ResponsesText("partial")
		rep.Stall = true
		s := modeltest.NewResponses(t, modeltest.ResponsesAlways(rep))
		env, _, _ := s.CodexEnv(t)
		cwd := t.TempDir()
		r := runCodex(t, env, cwd, "hi", execArgs(fake("stream_idle_timeout_ms", 1000)...)...)
		saveCodex(t, "idle-timeout.jsonl", r.Stdout, placeholders(env, cwd)...)
		// The message item sent before the stall is reported as done.
		want := []string{"thread.started", "turn.started", "item.completed/agent_message", "error", "turn.failed"}
		msg := get(r.line("turn.failed"), "error", "message")
		if r.Code != 1 || !slices.Equal(r.types(), want) || msg != "stream disconnected before completion: idle timeout waiting for SSE" || r.Took > 30*time.Second {
			t.Errorf("exit code %d in %v, lines %v, turn.failed %v; want 1 after about 1s, %v with an idle timeout", r.Code, r.Took, r.types(), msg, want)
		}
		t.Logf("stall after output: exit code %d in %v, lines %v", r.Code, r.Took, r.types())
	})
	t.Run("stall before output not bounded", func(t *testing.T) {
		t.Parallel()
		s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesStall()))
		env, _, _ := s.CodexEnv(t)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, modeltest.CodexCLI(t), execArgs(fake("stream_idle_timeout_ms", 1000)...)...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, t.TempDir(), strings.NewReader("hi")
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 5 * time.Second
		err := cmd.Run()
		if ctx.Err() == nil {
			t.Errorf("the run ended (%v) before the test's 5s deadline", err)
		}
	})
}
