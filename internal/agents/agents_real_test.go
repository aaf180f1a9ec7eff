package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// These tests pin the Checked rows (rule 8) against the real CLIs
// (installed by .ci/install-agent-clis) talking to a stand-in model API on
// loopback: a skill put in each folder a row says the agent reads is
// listed by the CLI, and one put where the row says it does not look
// (above the repository, deeper than Depth, in a folder of another agent,
// in the default folder when a variable moves it) is not.

// writeSkill writes a SKILL.md whose front matter names the skill name
// into dir.
func writeSkill(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := fmt.Sprintf("---\nname: %s\ndescription: Probe %s.\n---\nBody.\n", name, name)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decoys are folders some agent reads skills from: each one a row does not
// list must hold no skill its agent lists.
var decoys = []agents.Folder{
	{Base: agents.Project, Rel: ".agents/skills"}, {Base: agents.Project, Rel: ".claude/skills"},
	{Base: agents.Project, Rel: ".codex/skills"}, {Base: agents.Project, Rel: ".github/skills"},
	{Base: agents.Project, Rel: ".gemini/skills"}, {Base: agents.Project, Rel: "skills"},
	{Base: agents.Home, Rel: ".agents/skills"}, {Base: agents.Home, Rel: ".claude/skills"},
	{Base: agents.Home, Rel: ".codex/skills"}, {Base: agents.Home, Rel: ".config/agents/skills"},
	{Base: agents.Home, Rel: ".gemini/skills"},
}

// probe is a layout of skills for one row: the workspace to run the CLI
// in, and the names it must and must not list.
type probe struct {
	workspace      string
	want, unwanted []string
	where          map[string]string // each name's folder
}

// layout puts skills where r says its agent reads them in e, and where it
// says it does not. The workspace is two folders below the top of a git
// repository, itself in a folder.
func layout(t *testing.T, r agents.Row, e agents.Env) probe {
	t.Helper()
	base := t.TempDir()
	above := filepath.Join(base, "above")
	repo := filepath.Join(above, "repo")
	p := probe{workspace: filepath.Join(repo, "sub", "ws"), where: map[string]string{}}
	if err := os.MkdirAll(p.workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	put := func(dir, name string, listed bool) {
		writeSkill(t, filepath.Join(dir, name), name)
		p.where[name] = dir
		if listed {
			p.want = append(p.want, name)
		} else {
			p.unwanted = append(p.unwanted, name)
		}
	}
	var read []string // the folders r reads, resolved
	var first string  // its first project folder in the workspace
	for i, f := range r.Folders {
		switch {
		case f.Base == agents.Project:
			dir := filepath.Join(p.workspace, filepath.FromSlash(f.Rel))
			if first == "" {
				first = dir
			}
			read = append(read, dir)
			put(dir, fmt.Sprintf("row%d-here", i), true)
			put(filepath.Join(repo, filepath.FromSlash(f.Rel)), fmt.Sprintf("row%d-top", i), r.Ancestors)
			put(filepath.Join(above, filepath.FromSlash(f.Rel)), fmt.Sprintf("row%d-above", i), false)
		case f.Base == agents.System:
			// Not written: a test does not write to /etc (rule 8).
		default:
			dir := e.Path(f)
			read = append(read, dir)
			put(dir, fmt.Sprintf("row%d-user", i), true)
		}
	}
	for i, f := range decoys {
		dir := e.Path(f)
		if f.Base == agents.Project {
			dir = filepath.Join(p.workspace, dir)
		}
		if !slices.Contains(read, dir) {
			put(dir, fmt.Sprintf("decoy%d", i), false)
		}
	}
	if first == "" {
		t.Fatalf("row %s has no project folder", r.ID)
	}
	// Depth: a skill at Depth is found, one a level deeper is not.
	deep := first
	for range r.Depth - 1 {
		deep = filepath.Join(deep, "level")
	}
	put(deep, "at-depth", true)
	put(filepath.Join(deep, "level"), "below-depth", false)
	// Links: a linked skill folder is read when the row says so.
	target := filepath.Join(base, "elsewhere", "linked")
	writeSkill(t, target, "linked")
	if err := os.Symlink(target, filepath.Join(first, "linked")); err != nil {
		t.Fatal(err)
	}
	p.where["linked"] = first + " (a link)"
	if r.FollowsLinks {
		p.want = append(p.want, "linked")
	} else {
		p.unwanted = append(p.unwanted, "linked")
	}
	// Names: a skill whose folder and front matter name it differently
	// is listed by the name the row says.
	named := filepath.Join(first, "by-folder")
	writeSkill(t, named, "by-front-matter")
	listed := r.ListedName(named)
	p.where["by-folder"], p.where["by-front-matter"] = named, named
	p.want = append(p.want, listed)
	p.unwanted = append(p.unwanted, map[string]string{"by-folder": "by-front-matter", "by-front-matter": "by-folder"}[listed])
	return p
}

// check fails unless listed holds every name p wants and none it does not.
func (p probe) check(t *testing.T, listed []string) {
	t.Helper()
	for _, n := range p.want {
		if !slices.Contains(listed, n) {
			t.Errorf("the CLI does not list %s (in %s); it lists %q", n, p.where[n], listed)
		}
	}
	for _, n := range p.unwanted {
		if slices.Contains(listed, n) {
			t.Errorf("the CLI lists %s (in %s), which its row says it does not read", n, p.where[n])
		}
	}
}

// envOf is the agents.Env of a process environment.
func envOf(env []string) agents.Env {
	return agents.Env{Home: process.Getenv(env, "HOME"), Getenv: func(k string) string { return process.Getenv(env, k) }}
}

// run runs cli with args in dir and env, the prompt on standard input,
// and returns its standard output.
func run(t *testing.T, cli, dir string, env []string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader("hello")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cli, err, stderr.String())
	}
	return out
}

func TestRealClaudeCodeRow(t *testing.T) {
	r, _ := agents.Lookup("claude-code")
	tests := []struct {
		name  string
		moved bool // CLAUDE_CONFIG_DIR set
	}{
		{"default folders", false},
		{"CLAUDE_CONFIG_DIR", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli := modeltest.ClaudeCLI(t)
			s := modeltest.NewAnthropic(t, modeltest.Always(modeltest.Text("ok")))
			env, _ := s.ClaudeEnv(t)
			if tt.moved {
				env = append(env, "CLAUDE_CONFIG_DIR="+t.TempDir())
			}
			p := layout(t, r, envOf(env))
			out := run(t, cli, p.workspace, env, "-p", "--output-format", "stream-json", "--verbose")
			var listed []string
			for line := range strings.Lines(string(out)) {
				var ev struct {
					Type    string   `json:"type"`
					Subtype string   `json:"subtype"`
					Skills  []string `json:"skills"`
				}
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "system" && ev.Subtype == "init" {
					listed = ev.Skills
				}
			}
			if listed == nil {
				t.Fatalf("no system/init line in:\n%s", out)
			}
			p.check(t, listed)
		})
	}
}

func TestRealCodexRow(t *testing.T) {
	r, _ := agents.Lookup("codex")
	tests := []struct {
		name  string
		moved bool // CODEX_HOME set
	}{
		{"CODEX_HOME", true},
		{"default folders", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli := modeltest.CodexCLI(t)
			s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
			env, home, _ := s.CodexEnv(t)
			if !tt.moved {
				env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "CODEX_HOME=") })
				s.WriteCodexConfig(t, filepath.Join(home, ".codex"))
			}
			p := layout(t, r, envOf(env))
			run(t, cli, p.workspace, env, "exec", "--json", "--skip-git-repo-check", "-")
			reqs := s.ResponseRequests()
			if len(reqs) == 0 {
				t.Fatal("the stand-in got no request")
			}
			skills, err := reqs[0].Skills()
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for _, sk := range skills {
				listed = append(listed, sk.Name)
			}
			p.check(t, listed)
		})
	}
}

// nestedLayout is a git repository to run an agent in whose folders
// below its top hold skills in each of the given project folders: pkg/
// (read by the model), ignored/ (git-ignored, read by the model) and
// unread/ (never read). Each skill's description carries a mark.
func nestedLayout(t *testing.T, rels []string) (ws string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("/ignored/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"pkg", "ignored", "unread"} {
		for i, rel := range rels {
			name := fmt.Sprintf("%s-skill-%d", sub, i)
			dir := filepath.Join(ws, sub, filepath.FromSlash(rel), name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			md := fmt.Sprintf("---\nname: %s\ndescription: MARK-%s-%d.\n---\nBody.\n", name, strings.ToUpper(sub), i)
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(ws, sub, "main.go"), []byte("package "+sub+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestRealClaudeCodeNested pins the Nested columns of Claude Code's row
// (rule 9): once the model reads a file in pkg/, Claude Code shows it the
// skill of pkg/.claude/skills; a file read in a git-ignored folder shows
// nothing, and neither does a folder no file was read in.
func TestRealClaudeCodeNested(t *testing.T) {
	r, _ := agents.Lookup("claude-code")
	if !slices.Equal(r.Nested, []string{".claude/skills"}) || !r.NestedGitignore {
		t.Fatalf("claude-code row: Nested %q, NestedGitignore %v; this test pins .claude/skills, ignored folders skipped", r.Nested, r.NestedGitignore)
	}
	cli := modeltest.ClaudeCLI(t)
	ws := nestedLayout(t, r.Nested)
	reads := []string{filepath.Join(ws, "ignored", "main.go"), filepath.Join(ws, "pkg", "main.go")}
	s := modeltest.NewAnthropic(t, func(req *modeltest.Request) modeltest.Reply {
		done := 0
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if b.Type == "tool_result" {
					done++
				}
			}
		}
		if done < len(reads) {
			return modeltest.ToolUse("Read", map[string]string{"file_path": reads[done]})
		}
		return modeltest.Text("ok")
	})
	env, _ := s.ClaudeEnv(t)
	run(t, cli, ws, env, "-p", "--output-format", "stream-json", "--verbose")
	reqs := s.MessageRequests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests, want 3: the two reads and the answer", len(reqs))
	}
	shown := func(i int) string { return string(reqs[i].Body) }
	if strings.Contains(shown(0), "MARK-PKG") {
		t.Error("the nested skill was shown before a file near it was read")
	}
	if strings.Contains(shown(1), "MARK-PKG") {
		t.Error("the nested skill was shown after reading a file in another folder")
	}
	last := shown(len(reqs) - 1)
	if !strings.Contains(last, "MARK-PKG-0") {
		t.Error("after reading pkg/main.go, the model was not shown pkg/.claude/skills' skill: the row's Nested column is wrong")
	}
	if strings.Contains(last, "MARK-IGNORED") {
		t.Error("the model was shown the skill of a git-ignored folder: the row's NestedGitignore column is wrong")
	}
	if strings.Contains(last, "MARK-UNREAD") {
		t.Error("the model was shown the skill of a folder no file was read in")
	}
}

// TestRealCodexNested pins the Nested column of Codex's row (rule 9):
// Codex reads no skills folder below the working folder, also after the
// model runs commands there.
func TestRealCodexNested(t *testing.T) {
	r, _ := agents.Lookup("codex")
	if len(r.Nested) != 0 {
		t.Fatalf("codex row: Nested %q; this test pins none", r.Nested)
	}
	var rels []string
	for _, f := range r.Folders {
		if f.Base == agents.Project {
			rels = append(rels, f.Rel)
		}
	}
	cli := modeltest.CodexCLI(t)
	ws := nestedLayout(t, rels)
	pkg := filepath.Join(ws, "pkg")
	calls := []modeltest.ResponsesReply{
		modeltest.ExecCommand("cat pkg/main.go"),
		modeltest.FunctionCall("exec_command", map[string]string{"cmd": "cat main.go", "workdir": pkg}),
	}
	s := modeltest.NewResponses(t, func(req *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		done := 0
		for _, it := range req.Input {
			if it.Type == "function_call_output" {
				done++
			}
		}
		if done < len(calls) {
			return calls[done]
		}
		return modeltest.ResponsesText("ok")
	})
	env, _, _ := s.CodexEnv(t)
	run(t, cli, ws, env, "exec", "--json", "-")
	reqs := s.ResponseRequests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests, want 3: the two commands and the answer", len(reqs))
	}
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "package pkg") {
		t.Fatal("the commands did not read pkg/main.go")
	}
	for i, req := range reqs {
		if strings.Contains(string(req.Body), "MARK-PKG") {
			t.Errorf("request %d shows a skill of pkg/: Codex reads nested folders, and its row's Nested column is wrong", i)
		}
	}
}

// chatNested answers with a call of tool for each of args in turn, then
// with text.
func chatNested(tool string, args []any) modeltest.ChatReplyFunc {
	return func(req *modeltest.ChatRequest) modeltest.ChatReply {
		done := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				done++
			}
		}
		if done < len(args) {
			return modeltest.ChatToolUse(tool, args[done])
		}
		return modeltest.ChatText("ok")
	}
}

// TestRealCopilotNested pins the Nested column of GitHub Copilot's row
// (rule 9): Copilot CLI reads no skills folder below the working folder,
// also after the model views files there.
func TestRealCopilotNested(t *testing.T) {
	r, _ := agents.Lookup("github-copilot")
	if len(r.Nested) != 0 {
		t.Fatalf("github-copilot row: Nested %q; this test pins none", r.Nested)
	}
	var rels []string
	for _, f := range r.Folders {
		if f.Base == agents.Project {
			rels = append(rels, f.Rel)
		}
	}
	cli := modeltest.CopilotCLI(t)
	ws := nestedLayout(t, rels)
	s := modeltest.NewChat(t, chatNested("view", []any{
		map[string]string{"path": filepath.Join(ws, "pkg", "main.go")},
		map[string]string{"path": filepath.Join(ws, "pkg")},
	}))
	env, _ := s.CopilotEnv(t)
	run(t, cli, ws, env, "--output-format=json", "--no-auto-update", "--allow-all-tools")
	reqs := s.MainRequests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests, want 3: the two views and the answer", len(reqs))
	}
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "package pkg") {
		t.Fatal("the views did not read pkg/main.go")
	}
	for i, req := range reqs {
		if strings.Contains(string(req.Body), "MARK-PKG") {
			t.Errorf("request %d shows a skill of pkg/: Copilot reads nested folders, and its row's Nested column is wrong", i)
		}
	}
}
