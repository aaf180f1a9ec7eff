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
