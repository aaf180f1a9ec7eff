package modeltest_test

// Tests that run the real Claude Code CLI against the stand-in. TestClaude
// checks the package end to end; the others check the items of "What
// Claude Code 2.1.328 does" in the package doc (run them all with
// -run TestClaude, they skip in -short mode) and, with -record, write the
// CLI's output to claude/testdata as fixtures.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

var record = flag.Bool("record", false, "write the Claude Code CLI's output to claude/testdata")

// testdata is where -record writes, from this package's folder.
const testdata = "../../claude/testdata"

var streamJSON = []string{"-p", "--output-format", "stream-json", "--verbose"}

// claudeRun is the outcome of one run of the CLI.
type claudeRun struct{ *cliRun }

// line returns the first stdout line of type typ and, unless subtype is
// empty, that subtype.
func (r claudeRun) line(typ, subtype string) map[string]any {
	for _, l := range r.Lines {
		if l["type"] == typ && (subtype == "" || l["subtype"] == subtype) {
			return l
		}
	}
	return nil
}

// types returns "type" or "type/subtype" for each stdout line.
func (r claudeRun) types() []string {
	var out []string
	for _, l := range r.Lines {
		s, _ := l["type"].(string)
		if sub, ok := l["subtype"].(string); ok {
			s += "/" + sub
		}
		out = append(out, s)
	}
	return out
}

// skills returns the init line's skills.
func (r claudeRun) skills() []string {
	var out []string
	for _, s := range asSlice(get(r.line("system", "init"), "skills")) {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// runClaude runs the CLI in dir with env and the prompt on stdin, for at
// most a minute.
func runClaude(t *testing.T, env []string, dir, prompt string, args ...string) claudeRun {
	t.Helper()
	return claudeRun{runCLI(t, modeltest.ClaudeCLI(t), env, dir, prompt, args...)}
}

func envVar(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

func without(env []string, key string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
}

// projectKey is the folder name under ~/.claude/projects for a working
// folder: its path with every character but letters and digits made "-".
func projectKey(dir string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(dir, "-")
}

// save writes data to claude/testdata/name when -record is given, with
// each folder in paths (real, placeholder, ...) and its project key
// replaced by the placeholder.
func save(t *testing.T, name, data string, paths ...string) {
	t.Helper()
	if !*record {
		return
	}
	var pairs []string
	for i := 0; i+1 < len(paths); i += 2 {
		pairs = append(pairs, paths[i], paths[i+1], projectKey(paths[i]), projectKey(paths[i+1]))
	}
	data = strings.NewReplacer(pairs...).Replace(data)
	if err := os.MkdirAll(testdata, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(testdata, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeSkill(t *testing.T, dir, name, description, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", name, description, body)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
}

// slow skips the fact-finding tests in -short mode.
func slow(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real CLI many times; skipped in -short mode")
	}
}

// listing returns the text of the request's messages of role "system",
// where Claude Code lists the skills.
func listing(r *modeltest.Request) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// skillBody returns the "Base directory for this skill" text of the
// request's last message.
func skillBody(r *modeltest.Request) string {
	last := r.Messages[len(r.Messages)-1]
	for _, b := range last.Content {
		if b.Type == "text" && strings.HasPrefix(b.Text, "Base directory for this skill: ") {
			return b.Text
		}
	}
	return ""
}

// TestClaude runs the real CLI once against the stand-in and checks that
// the answer comes back and what the CLI sent.
func TestClaude(t *testing.T) {
	t.Parallel()
	s := modeltest.NewAnthropic(t, modeltest.IfPrompt("Say hello",
		modeltest.Always(modeltest.Text("Hello from the stand-in.")),
		modeltest.Always(modeltest.APIError(400, "invalid_request_error", "unexpected prompt"))))
	env, home := s.ClaudeEnv(t)
	cwd := t.TempDir()
	r := runClaude(t, env, cwd, "Say hello", streamJSON...)
	save(t, "plain.jsonl", r.Stdout, cwd, "/work/project", home, "/home/user", envVar(env, "TMPDIR"), "/tmp")

	if r.Code != 0 {
		t.Fatalf("exit code %d, want 0; stderr: %s", r.Code, r.Stderr)
	}
	if want := []string{"system/init", "assistant", "result/success"}; !slices.Equal(r.types(), want) {
		t.Errorf("stdout lines %v, want %v", r.types(), want)
	}
	result := r.line("result", "success")
	if result["result"] != "Hello from the stand-in." || result["is_error"] != false {
		t.Errorf("result %v (is_error %v), want the stand-in's answer", result["result"], result["is_error"])
	}
	id := get(r.line("system", "init"), "session_id")
	if id == nil || result["session_id"] != id {
		t.Errorf("result session_id %v, init %v: want the same", result["session_id"], id)
	}
	if got := get(r.line("assistant", ""), "message", "content", 0, "text"); got != "Hello from the stand-in." {
		t.Errorf("assistant text %v, want the stand-in's answer", got)
	}

	reqs := s.Requests()
	if len(reqs) != 1 || len(s.MessageRequests()) != 1 {
		for _, r := range reqs {
			t.Logf("request %s %s", r.Method, r.Path)
		}
		t.Fatalf("%d requests, want one POST /v1/messages", len(reqs))
	}
	req := reqs[0]
	if !req.Stream || req.Model != "claude-opus-5-5" || !strings.Contains(req.Prompt(), "Say hello") || !slices.Contains(req.Tools, "Skill") {
		t.Errorf("request: stream %v, model %q, prompt %q, tools %v; want a stream for claude-opus-5-5 with the prompt and the Skill tool",
			req.Stream, req.Model, req.Prompt(), req.Tools)
	}
	if got := req.Header.Get("X-Api-Key"); got != envVar(env, "ANTHROPIC_API_KEY") {
		t.Errorf("X-Api-Key %q, want the environment's key", got)
	}
}

// TestClaudeSkillFromAddDir checks items 1, 3 and 8 of the package doc and
// records skill-call.jsonl and partial.jsonl.
func TestClaudeSkillFromAddDir(t *testing.T) {
	slow(t)
	t.Parallel()
	call := modeltest.Text("Loading the skill.")
	call.Content = append(call.Content, modeltest.SkillCall("review").Content...)
	s := modeltest.NewAnthropic(t, modeltest.IfPrompt("review",
		modeltest.ToolThenText(call, "Reviewed."),
		modeltest.Always(modeltest.Text("plain"))))
	env, home := s.ClaudeEnv(t)
	add, cwd := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(add, ".claude", "skills", "review"), "review", "Reviews code for the stand-in.", "Check the diff twice.")

	for _, partial := range []bool{false, true} {
		n := len(s.Requests())
		args := append(streamJSON, "--add-dir", add)
		name := "skill-call.jsonl"
		if partial {
			args, name = append(args, "--include-partial-messages"), "partial.jsonl"
		}
		r := runClaude(t, env, cwd, "Please review the change.", args...)
		save(t, name, r.Stdout, cwd, "/work/project", add, "/work/skills", home, "/home/user", envVar(env, "TMPDIR"), "/tmp")
		if r.Code != 0 {
			t.Fatalf("exit code %d, want 0; stderr: %s", r.Code, r.Stderr)
		}
		reqs := s.Requests()[n:]
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}

		// 1: listed by plain name, first; described in a system message.
		if sk := r.skills(); len(sk) == 0 || sk[0] != "review" {
			t.Errorf("init skills %v, want review first", sk)
		}
		if l := listing(reqs[0]); !strings.Contains(l, "The following skills are available for use with the Skill tool:\n\n- review: Reviews code for the stand-in.\n") {
			t.Errorf("system messages do not list the skill:\n%s", l)
		}
		if strings.Contains(reqs[0].System, "Reviews code") {
			t.Error("the skill's description is in the system field")
		}

		// 3: the tool result and the body, under the path as found.
		res, ok := reqs[1].ToolResult()
		if !ok || res.Text != "Launching skill: review" || res.ToolUseID != call.Content[1].ID {
			t.Errorf("tool result %+v, %v; want \"Launching skill: review\" for the call", res, ok)
		}
		want := "Base directory for this skill: " + filepath.Join(add, ".claude", "skills", "review") + "\n\nCheck the diff twice.\n"
		if got := skillBody(reqs[1]); got != want {
			t.Errorf("skill body %q, want %q", got, want)
		}

		// 8: one assistant line a block; the body is a synthetic user line.
		var assistant, synthetic, events int
		deltas := map[string]bool{}
		for _, l := range r.Lines {
			switch l["type"] {
			case "assistant":
				assistant++
				if n := len(asSlice(get(l, "message", "content"))); n != 1 {
					t.Errorf("assistant line with %d blocks, want 1", n)
				}
			case "user":
				if l["isSynthetic"] == true && strings.HasPrefix(fmt.Sprint(get(l, "message", "content", 0, "text")), "Base directory") {
					synthetic++
				}
			case "stream_event":
				events++
				if d, ok := get(l, "event", "delta", "type").(string); ok {
					deltas[d] = true
				}
			}
		}
		if assistant != 3 || synthetic != 1 {
			t.Errorf("%d assistant lines and %d synthetic skill bodies, want 3 and 1: %v", assistant, synthetic, r.types())
		}
		if partial != (events > 0) || partial && (!deltas["text_delta"] || !deltas["input_json_delta"]) {
			t.Errorf("partial %v: %d stream_event lines, deltas %v", partial, events, deltas)
		}
		if got := r.line("result", "success")["result"]; got != "Reviewed." {
			t.Errorf("result %v, want Reviewed.", got)
		}
	}
}

// TestClaudeSkillLinks checks item 2 of the package doc.
func TestClaudeSkillLinks(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewAnthropic(t, modeltest.ToolThenText(modeltest.SkillCall("linked"), "done"))
	env, _ := s.ClaudeEnv(t)
	cwd := t.TempDir()
	tests := []struct {
		name string
		// setup makes the folder to add; it returns that folder and the
		// skill's folder as the CLI should name it.
		setup func(t *testing.T, store string) (add, skill string)
	}{
		{"absolute link", func(t *testing.T, store string) (string, string) {
			add := t.TempDir()
			link := filepath.Join(add, ".claude", "skills", "linked")
			symlink(t, filepath.Join(store, "real"), link)
			return add, link
		}},
		{"relative link", func(t *testing.T, store string) (string, string) {
			add := t.TempDir()
			writeSkill(t, filepath.Join(add, "elsewhere", "real"), "linked", "A linked skill.", "LINKED-BODY")
			link := filepath.Join(add, ".claude", "skills", "linked")
			symlink(t, filepath.Join("..", "..", "elsewhere", "real"), link)
			return add, link
		}},
		{"linked skills folder", func(t *testing.T, store string) (string, string) {
			add := t.TempDir()
			writeSkill(t, filepath.Join(store, "skills", "linked"), "linked", "A linked skill.", "LINKED-BODY")
			symlink(t, filepath.Join(store, "skills"), filepath.Join(add, ".claude", "skills"))
			return add, filepath.Join(add, ".claude", "skills", "linked")
		}},
		{"linked added folder", func(t *testing.T, store string) (string, string) {
			real := t.TempDir()
			writeSkill(t, filepath.Join(real, ".claude", "skills", "linked"), "linked", "A linked skill.", "LINKED-BODY")
			add := filepath.Join(t.TempDir(), "link")
			symlink(t, real, add)
			return add, filepath.Join(add, ".claude", "skills", "linked")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := t.TempDir()
			writeSkill(t, filepath.Join(store, "real"), "linked", "A linked skill.", "LINKED-BODY")
			add, skill := tt.setup(t, store)
			n := len(s.Requests())
			r := runClaude(t, env, cwd, "go", append(streamJSON, "--add-dir", add)...)
			reqs := s.Requests()[n:]
			if r.Code != 0 || len(reqs) != 2 {
				t.Fatalf("exit code %d and %d requests, want 0 and 2; stderr: %s", r.Code, len(reqs), r.Stderr)
			}
			if !slices.Contains(r.skills(), "linked") || !strings.Contains(listing(reqs[0]), "- linked: A linked skill.") {
				t.Errorf("init skills %v: the linked skill is not listed", r.skills())
			}
			if got, want := skillBody(reqs[1]), "Base directory for this skill: "+skill+"\n\nLINKED-BODY\n"; got != want {
				t.Errorf("skill body %q, want %q", got, want)
			}
		})
	}
}

// callNamed answers a prompt "call NAME" by calling the skill NAME, and
// the tool's result with "done".
func callNamed(r *modeltest.Request) modeltest.Reply {
	if _, ok := r.ToolResult(); ok {
		return modeltest.Text("done")
	}
	_, name, _ := strings.Cut(r.Prompt(), "call ")
	return modeltest.SkillCall(strings.TrimSpace(name))
}

// TestClaudeSkillScopes checks item 4 of the package doc.
func TestClaudeSkillScopes(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewAnthropic(t, callNamed)
	env, home := s.ClaudeEnv(t)
	root := t.TempDir()
	grand := filepath.Join(root, "grand")
	parent := filepath.Join(grand, "parent")
	cwd := filepath.Join(parent, "cwd")
	add := filepath.Join(root, "x", "add")
	user := filepath.Join(home, ".claude", "skills")
	project := filepath.Join(cwd, ".claude", "skills")
	writeSkill(t, filepath.Join(user, "u-skill"), "u-skill", "U-DESC", "U-BODY")
	writeSkill(t, filepath.Join(project, "p-skill"), "p-skill", "P-DESC", "P-BODY")
	writeSkill(t, filepath.Join(parent, ".claude", "skills", "pp-skill"), "pp-skill", "PP-DESC", "PP-BODY")
	writeSkill(t, filepath.Join(grand, ".claude", "skills", "g-skill"), "g-skill", "G-DESC", "G-BODY")
	writeSkill(t, filepath.Join(add, ".claude", "skills", "a-skill"), "a-skill", "A-DESC", "A-BODY")
	writeSkill(t, filepath.Join(project, "folder-name"), "front-name", "FN-DESC", "FN-BODY")

	// probe calls the skill name and returns the init skills, the listing
	// and the body read.
	probe := func(t *testing.T, env []string, name string, args ...string) (skills []string, list, body string) {
		t.Helper()
		n := len(s.Requests())
		r := runClaude(t, env, cwd, "call "+name, append(streamJSON, args...)...)
		reqs := s.Requests()[n:]
		if r.Code != 0 || len(reqs) != 2 {
			t.Fatalf("exit code %d and %d requests, want 0 and 2; stderr: %s", r.Code, len(reqs), r.Stderr)
		}
		return r.skills(), listing(reqs[0]), strings.TrimRight(skillBody(reqs[1]), "\n")
	}
	// base is what the CLI sends for a skill. It ends in one more newline
	// when an added folder has a skill of the same name, so compare
	// bodies without their trailing newlines.
	base := func(dir, name, body string) string {
		return "Base directory for this skill: " + filepath.Join(dir, name) + "\n\n" + body
	}

	t.Run("every scope", func(t *testing.T) {
		skills, list, body := probe(t, env, "folder-name", "--add-dir", add)
		for _, name := range []string{"u-skill", "p-skill", "pp-skill", "g-skill", "a-skill", "folder-name"} {
			if !slices.Contains(skills, name) {
				t.Errorf("init skills %v lack %s", skills, name)
			}
		}
		if !strings.Contains(list, "\n- folder-name (front-name): FN-DESC\n") {
			t.Errorf("listing lacks \"- folder-name (front-name): FN-DESC\":\n%s", list)
		}
		if want := base(project, "folder-name", "FN-BODY"); body != want {
			t.Errorf("body %q, want %q", body, want)
		}
		if _, _, body := probe(t, env, "front-name"); body != base(project, "folder-name", "FN-BODY") {
			t.Errorf("calling the front matter's name read %q", body)
		}
	})
	t.Run("git top ends the walk", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		if out, err := exec.Command("git", "init", "-q", parent).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
		defer os.RemoveAll(filepath.Join(parent, ".git"))
		skills, _, _ := probe(t, env, "p-skill")
		if !slices.Contains(skills, "pp-skill") || slices.Contains(skills, "g-skill") {
			t.Errorf("init skills %v: want pp-skill (in the repository's top) and not g-skill (above it)", skills)
		}
	})
	t.Run("user beats project", func(t *testing.T) {
		writeSkill(t, filepath.Join(user, "dup"), "dup", "DUP-USER", "DUP-USER-BODY")
		writeSkill(t, filepath.Join(project, "dup"), "dup", "DUP-PROJECT", "DUP-PROJECT-BODY")
		defer os.RemoveAll(filepath.Join(user, "dup"))
		skills, list, body := probe(t, env, "dup")
		if n := countOf(skills, "dup"); n != 1 || strings.Contains(list, "DUP-PROJECT") {
			t.Errorf("init skills %v, listing has the project's: %v", skills, strings.Contains(list, "DUP-PROJECT"))
		}
		if want := base(user, "dup", "DUP-USER-BODY"); body != want {
			t.Errorf("body %q, want %q", body, want)
		}
	})
	t.Run("added folder gets a prefix", func(t *testing.T) {
		writeSkill(t, filepath.Join(project, "dup"), "dup", "DUP-PROJECT", "DUP-PROJECT-BODY")
		writeSkill(t, filepath.Join(add, ".claude", "skills", "dup"), "dup", "DUP-ADD", "DUP-ADD-BODY")
		skills, list, body := probe(t, env, "dup", "--add-dir", add)
		if !slices.Contains(skills, "dup") || !slices.Contains(skills, "add:dup") {
			t.Errorf("init skills %v, want dup and add:dup", skills)
		}
		if !strings.Contains(list, "\n- add:dup: DUP-ADD (scoped to add/") {
			t.Errorf("listing lacks \"- add:dup: DUP-ADD (scoped to add/\":\n%s", list)
		}
		if want := base(project, "dup", "DUP-PROJECT-BODY"); body != want {
			t.Errorf("dup read %q, want %q", body, want)
		}
		_, _, body = probe(t, env, "add:dup", "--add-dir", add)
		if want := base(filepath.Join(add, ".claude", "skills"), "dup", "DUP-ADD-BODY"); body != want {
			t.Errorf("add:dup read %q, want %q", body, want)
		}

		other := filepath.Join(root, "y", "add")
		writeSkill(t, filepath.Join(other, ".claude", "skills", "dup"), "dup", "DUP-OTHER", "DUP-OTHER-BODY")
		skills, _, body = probe(t, env, "y/add:dup", "--add-dir", add, other)
		if !slices.Contains(skills, "x/add:dup") || !slices.Contains(skills, "y/add:dup") {
			t.Errorf("init skills %v, want x/add:dup and y/add:dup", skills)
		}
		if want := base(filepath.Join(other, ".claude", "skills"), "dup", "DUP-OTHER-BODY"); body != want {
			t.Errorf("y/add:dup read %q, want %q", body, want)
		}
	})
	t.Run("CLAUDE_CONFIG_DIR", func(t *testing.T) {
		config := t.TempDir()
		writeSkill(t, filepath.Join(config, "skills", "c-skill"), "c-skill", "C-DESC", "C-BODY")
		skills, _, body := probe(t, append(env, "CLAUDE_CONFIG_DIR="+config), "c-skill")
		if slices.Contains(skills, "u-skill") {
			t.Errorf("init skills %v: ~/.claude/skills read with CLAUDE_CONFIG_DIR set", skills)
		}
		if want := base(filepath.Join(config, "skills"), "c-skill", "C-BODY"); body != want {
			t.Errorf("body %q, want %q", body, want)
		}
		sessions, _ := filepath.Glob(filepath.Join(config, "projects", projectKey(cwd), "*.jsonl"))
		if _, err := os.Stat(filepath.Join(config, ".claude.json")); err != nil || len(sessions) != 1 {
			t.Errorf("config folder: .claude.json %v, %d sessions; want both there", err, len(sessions))
		}
	})
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// TestClaudeResume checks item 5 of the package doc and records
// resume.jsonl, unknown-resume.jsonl and unknown-resume.stderr.
func TestClaudeResume(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewAnthropic(t, func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Text(fmt.Sprintf("Answer to a conversation of %d messages.", len(r.Messages)))
	})
	env, home := s.ClaudeEnv(t)
	cwd := t.TempDir()
	placeholders := []string{cwd, "/work/project", home, "/home/user", envVar(env, "TMPDIR"), "/tmp"}

	first := runClaude(t, env, cwd, "FIRST-TURN", streamJSON...)
	id, _ := get(first.line("system", "init"), "session_id").(string)
	if first.Code != 0 || id == "" {
		t.Fatalf("first run: exit code %d, session %q; stderr: %s", first.Code, id, first.Stderr)
	}

	n := len(s.Requests())
	r := runClaude(t, env, cwd, "SECOND-TURN", append(streamJSON, "--resume", id)...)
	save(t, "resume.jsonl", r.Stdout, placeholders...)
	if r.Code != 0 || get(r.line("system", "init"), "session_id") != id || get(r.line("result", ""), "session_id") != id {
		t.Errorf("resume: exit code %d, init session %v, result session %v; want 0 and %s", r.Code,
			get(r.line("system", "init"), "session_id"), get(r.line("result", ""), "session_id"), id)
	}
	reqs := s.Requests()[n:]
	if len(reqs) != 1 {
		t.Fatalf("resume sent %d requests, want 1", len(reqs))
	}
	var roles []string
	for _, m := range reqs[0].Messages {
		roles = append(roles, m.Role)
	}
	msgs := reqs[0].Messages
	if !slices.Equal(roles, []string{"user", "system", "assistant", "user"}) ||
		!strings.Contains(msgs[0].Text(), "FIRST-TURN") || !strings.Contains(msgs[3].Text(), "SECOND-TURN") {
		t.Errorf("resumed request's messages: roles %v, want the first turn replayed before the second", roles)
	}

	n = len(s.Requests())
	unknown := "3f1e5b2a-7c4d-4e8f-9a6b-1c2d3e4f5a6b"
	r = runClaude(t, env, cwd, "THIRD-TURN", append(streamJSON, "--resume", unknown)...)
	save(t, "unknown-resume.jsonl", r.Stdout, placeholders...)
	save(t, "unknown-resume.stderr", r.Stderr, placeholders...)
	msg := "No conversation found with session ID: " + unknown
	result := r.line("result", "error_during_execution")
	if r.Code != 1 || r.Stderr != msg+"\n" || len(r.Lines) != 1 || result == nil ||
		result["is_error"] != true || result["session_id"] != unknown || get(result, "errors", 0) != msg {
		t.Errorf("unknown session: exit code %d, stderr %q, stdout %v; want 1, %q and one error result", r.Code, r.Stderr, r.types(), msg)
	}
	if len(s.Requests()) != n {
		t.Errorf("unknown session: %d requests, want none", len(s.Requests())-n)
	}

	other := t.TempDir()
	n = len(s.Requests())
	r = runClaude(t, env, other, "FOURTH-TURN", append(streamJSON, "--resume", id)...)
	if r.Code != 0 || get(r.line("system", "init"), "session_id") != id {
		t.Errorf("resume from another folder: exit code %d, session %v; want 0 and %s", r.Code, get(r.line("system", "init"), "session_id"), id)
	}
	if reqs := s.Requests()[n:]; len(reqs) != 1 || !strings.Contains(listing(reqs[0]), "# Environment update\n - Primary working directory: "+other) {
		t.Errorf("resume from another folder: %d requests; want one with an environment update", len(reqs))
	}
	if files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl")); len(files) != 1 ||
		files[0] != filepath.Join(home, ".claude", "projects", projectKey(cwd), id+".jsonl") {
		t.Errorf("session files %v, want the one in the first folder's project", files)
	}
}

// TestClaudeFiles checks item 6 of the package doc.
func TestClaudeFiles(t *testing.T) {
	slow(t)
	t.Parallel()
	const runs = 6
	together := newBarrier(t.Context(), runs) // the runs overlap
	s := modeltest.NewAnthropic(t, func(r *modeltest.Request) modeltest.Reply {
		together.wait()
		return modeltest.Text("ok")
	})
	env, home := s.ClaudeEnv(t)
	tmp := envVar(env, "TMPDIR")
	cwd := t.TempDir()
	cli := modeltest.ClaudeCLI(t)
	ids := map[any]bool{}
	for _, cr := range runAtOnce(t, runs, cli, env, cwd, "hi", streamJSON...) {
		r := claudeRun{cr}
		if r.Code != 0 || r.line("result", "success") == nil {
			t.Errorf("concurrent run: exit code %d, lines %v, stderr %q", r.Code, r.types(), r.Stderr)
		}
		ids[get(r.line("system", "init"), "session_id")] = true
	}
	if len(ids) != runs {
		t.Errorf("%d session ids for %d runs", len(ids), runs)
	}

	if ents, _ := os.ReadDir(cwd); len(ents) != 0 {
		t.Errorf("the working folder holds %d entries, want none", len(ents))
	}
	var files []string
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(home, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	key := projectKey(cwd)
	patterns := map[string]int{
		`^\.claude\.json$`: 1,
		`^\.claude/backups/\.claude\.json\.backup\.\d+$`:    -1,
		`^\.claude/projects/` + key + `/[0-9a-f-]+\.jsonl$`: runs,
		`^\.claude/plugins/store/[^/]+\.json$`:              -1,
	}
	countMatches(t, files, patterns)
	for _, f := range files {
		if strings.Contains(strings.ToLower(f), "lock") || strings.HasPrefix(f, ".claude/sessions/") {
			t.Errorf("left behind: %s", f)
		}
	}
	if fi, err := os.Stat(filepath.Join(home, ".claude", "projects", key, "memory")); err != nil || !fi.IsDir() {
		t.Errorf("no memory folder: %v", err)
	}
	t.Logf("HOME after %d runs: %v", runs, files)
	if runtime.GOOS != "windows" {
		ents, _ := os.ReadDir(tmp)
		for _, e := range ents {
			if e.Name() != fmt.Sprintf("claude-%d", os.Getuid()) && e.Name() != "cc-socks" {
				t.Errorf("TMPDIR holds %s, want only claude-UID and cc-socks", e.Name())
			}
		}
	}
}

// TestClaudeSignals checks item 7 of the package doc and records
// interrupt.jsonl.
func TestClaudeSignals(t *testing.T) {
	slow(t)
	if runtime.GOOS == "windows" {
		t.Skip("no signals")
	}
	t.Parallel()
	interrupted := [][]string{
		{"system/init"},
		{"system/init", "user"},
		{"system/init", "user", "result/error_during_execution"},
	}
	tests := []struct {
		name  string
		sig   os.Signal
		wait  time.Duration // from the request to the signal
		code  int
		types [][]string // the stdout lines allowed
	}{
		{"interrupt at once", os.Interrupt, 0, 0, interrupted},
		{"interrupt later", os.Interrupt, time.Second, 0, interrupted},
		{"terminate", syscall.SIGTERM, 0, 143, [][]string{{"system/init"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := make(chan struct{}, 1)
			s := modeltest.NewAnthropic(t, func(*modeltest.Request) modeltest.Reply {
				asked <- struct{}{}
				return modeltest.Stall()
			})
			env, home := s.ClaudeEnv(t)
			cwd := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := newCLICmd(ctx, modeltest.ClaudeCLI(t), env, cwd, "wait for it", streamJSON...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-asked:
			case <-ctx.Done():
				t.Fatal("no request")
			}
			if kids := children(cmd.Process.Pid); len(kids) != 0 {
				t.Errorf("child processes %v, want none", kids)
			}
			state := filepath.Join(home, ".claude", "sessions", fmt.Sprintf("%d.json", cmd.Process.Pid))
			if _, err := os.Stat(state); err != nil {
				t.Errorf("while running: %v", err)
			}
			time.Sleep(tt.wait)
			r := claudeRun{cmd.signal(t, tt.sig)}
			result := r.line("result", "")
			if tt.sig == os.Interrupt {
				name := "interrupt-no-result.jsonl"
				if result != nil {
					name = "interrupt.jsonl"
				}
				save(t, name, r.Stdout, cwd, "/work/project", home, "/home/user", envVar(env, "TMPDIR"), "/tmp")
			}
			if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after the signal: %s: %v, want it removed", state, err)
			}
			allowed := slices.ContainsFunc(tt.types, func(want []string) bool { return slices.Equal(r.types(), want) })
			if r.Took > 5*time.Second || r.Code != tt.code || !allowed || r.Stderr != "" {
				t.Errorf("after %v: exit code %d in %v, stdout %v, stderr %q; want %d, one of %v, none", tt.sig, r.Code, r.Took, r.types(), r.Stderr, tt.code, tt.types)
			}
			if u := r.line("user", ""); u != nil && get(u, "message", "content", 0, "text") != "[Request interrupted by user]" {
				t.Errorf("user line %v, want [Request interrupted by user]", u)
			}
			if result != nil && (result["is_error"] != true || result["terminal_reason"] != "aborted_streaming") {
				t.Errorf("result is_error %v, terminal_reason %v; want true, aborted_streaming", result["is_error"], result["terminal_reason"])
			}
			t.Logf("stdout after %v: %v", tt.sig, r.types())
		})
	}
}

// children returns the ids of pid's child processes, from /proc (none
// where there is no /proc).
func children(pid int) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 1 && fields[1] == fmt.Sprint(pid) {
			out = append(out, filepath.Base(filepath.Dir(f)))
		}
	}
	return out
}

// TestClaudeAPIErrors checks items 7, 8 and 10 of the package doc on
// failed calls and records api-error.jsonl and api-retry.jsonl.
func TestClaudeAPIErrors(t *testing.T) {
	slow(t)
	t.Parallel()
	tests := []struct {
		name    string
		reply   modeltest.ReplyFunc
		env     []string // appended; "CLAUDE_CODE_MAX_RETRIES=" removes the variable
		record  string
		code    int
		calls   int
		status  any // result's api_error_status
		retries int // system/api_retry lines
	}{
		{"400", modeltest.Always(modeltest.APIError(400, "invalid_request_error", "The stand-in refuses this request.")), nil, "api-error.jsonl", 1, 6, 400.0, 0},
		{"403 not retried", modeltest.Always(modeltest.APIError(403, "permission_error", "no")), []string{"CLAUDE_CODE_MAX_RETRIES="}, "", 1, 1, 403.0, 0},
		{"413 not retried", modeltest.Always(modeltest.APIError(413, "request_too_large", "no")), []string{"CLAUDE_CODE_MAX_RETRIES="}, "", 1, 1, 413.0, 0},
		{"529 retried", modeltest.Always(modeltest.APIError(529, "overloaded_error", "Overloaded")), []string{"CLAUDE_CODE_MAX_RETRIES=1"}, "api-retry.jsonl", 1, 2, 529.0, 1},
		{"401 retried", modeltest.Always(modeltest.APIError(401, "authentication_error", "no")), []string{"CLAUDE_CODE_MAX_RETRIES=1"}, "", 1, 2, 401.0, 1},
		{"404 then without streaming", func(r *modeltest.Request) modeltest.Reply {
			if r.Stream {
				return modeltest.APIError(404, "not_found_error", "no streams here")
			}
			return modeltest.Text("Answered without streaming.")
		}, nil, "", 0, 2, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modeltest.NewAnthropic(t, tt.reply)
			env, home := s.ClaudeEnv(t)
			for _, kv := range tt.env {
				if k, v, _ := strings.Cut(kv, "="); v == "" {
					env = without(env, k)
				} else {
					env = append(env, kv)
				}
			}
			cwd := t.TempDir()
			r := runClaude(t, env, cwd, "hi", streamJSON...)
			if tt.record != "" {
				save(t, tt.record, r.Stdout, cwd, "/work/project", home, "/home/user", envVar(env, "TMPDIR"), "/tmp")
			}
			result := r.line("result", "success")
			retries := 0
			for _, l := range r.Lines {
				if l["subtype"] == "api_retry" {
					retries++
				}
			}
			calls := s.MessageRequests()
			if r.Code != tt.code || len(calls) != tt.calls || result == nil || result["api_error_status"] != tt.status || retries != tt.retries {
				t.Errorf("exit code %d, %d calls, result %v with api_error_status %v, %d retry lines; want %d, %d, success, %v, %d",
					r.Code, len(calls), r.types(), result["api_error_status"], retries, tt.code, tt.calls, tt.status, tt.retries)
			}
			if tt.code == 0 {
				if !calls[0].Stream || calls[1].Stream || result["result"] != "Answered without streaming." {
					t.Errorf("fallback: streams %v, %v, result %v", calls[0].Stream, calls[1].Stream, result["result"])
				}
				return
			}
			a := r.line("assistant", "")
			reason := "api_error"
			if tt.status == 413.0 {
				reason = "image_error"
			}
			if result["is_error"] != true || result["terminal_reason"] != reason ||
				get(a, "message", "model") != "<synthetic>" || a["is_api_error_message"] != true {
				t.Errorf("result is_error %v, terminal_reason %v; assistant model %v, is_api_error_message %v",
					result["is_error"], result["terminal_reason"], get(a, "message", "model"), a["is_api_error_message"])
			}
		})
	}
	t.Run("stall bounded by API_TIMEOUT_MS", func(t *testing.T) {
		s := modeltest.NewAnthropic(t, modeltest.Always(modeltest.Stall()))
		env, _ := s.ClaudeEnv(t)
		r := runClaude(t, append(env, "API_TIMEOUT_MS=2000"), t.TempDir(), "hi", streamJSON...)
		if result := r.line("result", ""); r.Code != 1 || result["is_error"] != true || r.Took < 2*time.Second || r.Took > 30*time.Second {
			t.Errorf("exit code %d in %v, result %v; want 1 after about 2s with an error result", r.Code, r.Took, result)
		}
	})
}

// TestClaudeMaxTurns checks item 8 of the package doc on --max-turns and
// records max-turns.jsonl.
func TestClaudeMaxTurns(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewAnthropic(t, modeltest.ToolThenText(modeltest.SkillCall("review"), "Reviewed."))
	env, home := s.ClaudeEnv(t)
	add, cwd := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(add, ".claude", "skills", "review"), "review", "Reviews code.", "Check the diff.")
	for _, tt := range []struct {
		turns   string
		code    int
		subtype string
	}{
		{"1", 1, "error_max_turns"},
		{"2", 0, "success"},
	} {
		r := runClaude(t, env, cwd, "review", append(streamJSON, "--add-dir", add, "--max-turns", tt.turns)...)
		if tt.turns == "1" {
			save(t, "max-turns.jsonl", r.Stdout, cwd, "/work/project", add, "/work/skills", home, "/home/user", envVar(env, "TMPDIR"), "/tmp")
		}
		result := r.line("result", tt.subtype)
		if r.Code != tt.code || result == nil {
			t.Fatalf("--max-turns %s: exit code %d, lines %v; want %d and a %s result", tt.turns, r.Code, r.types(), tt.code, tt.subtype)
		}
		if tt.code != 0 && (result["is_error"] != true || result["terminal_reason"] != "max_turns" || get(result, "errors", 0) != "Reached maximum number of turns (1)") {
			t.Errorf("--max-turns 1: result is_error %v, terminal_reason %v, errors %v", result["is_error"], result["terminal_reason"], result["errors"])
		}
	}
}

// TestClaudePermissions checks item 9 of the package doc.
func TestClaudePermissions(t *testing.T) {
	slow(t)
	t.Parallel()
	s := modeltest.NewAnthropic(t, nil)
	env, _ := s.ClaudeEnv(t)
	cwd := t.TempDir()
	type test struct {
		args []string
		env  string
		mode any // init's permissionMode; nil: the run fails
	}
	tests := []test{
		{[]string{"--permission-mode", "default"}, "", "default"},
		{[]string{"--permission-mode", "acceptEdits"}, "", "acceptEdits"},
		{[]string{"--permission-mode", "manual"}, "", "default"},
		{[]string{"--permission-mode", "plan"}, "", "plan"},
		{[]string{"--permission-mode", "dontAsk"}, "", "dontAsk"},
		{[]string{"--permission-mode", "auto"}, "", "auto"},
		{[]string{"--permission-mode", "bogus"}, "", nil},
		{[]string{"--dangerously-skip-permissions"}, "IS_SANDBOX=1", "bypassPermissions"},
		{[]string{"--permission-mode", "bypassPermissions"}, "IS_SANDBOX=1", "bypassPermissions"},
	}
	if os.Geteuid() == 0 {
		tests = append(tests,
			test{[]string{"--dangerously-skip-permissions"}, "", nil},
			test{[]string{"--permission-mode", "bypassPermissions"}, "", nil},
			test{[]string{"--allow-dangerously-skip-permissions"}, "", nil})
	}
	for _, tt := range tests {
		t.Run(strings.Join(append(tt.args, tt.env), " "), func(t *testing.T) {
			e := env
			if tt.env != "" {
				e = append(slices.Clone(env), tt.env)
			}
			r := runClaude(t, e, cwd, "hi", append(streamJSON, tt.args...)...)
			if tt.mode == nil {
				want := "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n"
				if slices.Contains(tt.args, "bogus") {
					want = "error: option '--permission-mode <mode>' argument 'bogus' is invalid. Allowed choices are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan.\n"
				}
				if r.Code != 1 || r.Stdout != "" || r.Stderr != want {
					t.Errorf("exit code %d, stdout %q, stderr %q; want 1, nothing, %q", r.Code, r.Stdout, r.Stderr, want)
				}
				return
			}
			if got := get(r.line("system", "init"), "permissionMode"); r.Code != 0 || got != tt.mode {
				t.Errorf("exit code %d, permissionMode %v; want 0, %v", r.Code, got, tt.mode)
			}
		})
	}
}

// TestClaudeTraffic checks item 10 of the package doc: what the CLI calls
// and which model names it sends.
func TestClaudeTraffic(t *testing.T) {
	slow(t)
	t.Parallel()
	for _, tt := range []struct{ model, want string }{
		{"sonnet", "claude-sonnet-5-5"},
		{"haiku", "claude-haiku-5-5"},
		{"opus", "claude-opus-5-5"},
		{"claude-made-up-1", "claude-made-up-1"},
	} {
		t.Run(tt.model, func(t *testing.T) {
			s := modeltest.NewAnthropic(t, nil)
			env, _ := s.ClaudeEnv(t)
			r := runClaude(t, env, t.TempDir(), "hi", append(streamJSON, "--model", tt.model)...)
			reqs := s.Requests()
			if r.Code != 0 || len(reqs) != 1 || reqs[0].Path != "/v1/messages" || reqs[0].Model != tt.want {
				t.Errorf("--model %s: exit code %d, %d requests, first %s model %q; want 0, one to /v1/messages for %s",
					tt.model, r.Code, len(reqs), reqs[0].Path, reqs[0].Model, tt.want)
			}
		})
	}
	t.Run("nonessential traffic", func(t *testing.T) {
		s := modeltest.NewAnthropic(t, nil)
		env, _ := s.ClaudeEnv(t)
		r := runClaude(t, without(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), t.TempDir(), "hi", streamJSON...)
		var calls []string
		for _, req := range s.Requests() {
			calls = append(calls, req.Method+" "+req.Path)
		}
		if r.Code != 0 || !slices.Contains(calls, "HEAD /api/hello") || !slices.Contains(calls, "POST /v1/messages") {
			t.Errorf("exit code %d, calls %v; want 0, HEAD /api/hello and POST /v1/messages", r.Code, calls)
		}
	})
}
