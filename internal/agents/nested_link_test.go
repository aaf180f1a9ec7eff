package agents_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// linkedNestedLayout is a git repository to run Claude Code in, with
// three links to folders, each target holding sub/.claude/skills/* (a
// skill whose description is a mark) and sub/main.go:
//
//   - vendor/ leads out of the repository (the rest of a cloned
//     monorepo), mark MARK-OUTSIDE;
//   - tools/ leads to the git-ignored build/, mark MARK-BUILT;
//   - gen/, itself git-ignored, leads to the git-ignored cache/, mark
//     MARK-GEN, which also holds .claude/skills (mark MARK-GENTOP) and
//     main.go;
//   - deps/x, in the git-ignored deps/, leads to the git-ignored
//     store/, mark MARK-STORE.
func linkedNestedLayout(t *testing.T) (ws string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	target := func(dir, name, mark string) {
		t.Helper()
		write(filepath.Join(dir, "sub", ".claude", "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+mark+".\n---\nBody.\n")
		write(filepath.Join(dir, "sub", "main.go"), "package sub\n")
	}
	write(filepath.Join(ws, ".gitignore"), "/build/\n/cache/\n/gen\n/deps/\n/store/\n")
	target(outside, "outside-skill", "MARK-OUTSIDE")
	target(filepath.Join(ws, "build"), "built-skill", "MARK-BUILT")
	target(filepath.Join(ws, "cache"), "gen-skill", "MARK-GEN")
	write(filepath.Join(ws, "cache", ".claude", "skills", "gentop-skill", "SKILL.md"), "---\nname: gentop-skill\ndescription: MARK-GENTOP.\n---\nBody.\n")
	write(filepath.Join(ws, "cache", "main.go"), "package cache\n")
	target(filepath.Join(ws, "store"), "store-skill", "MARK-STORE")
	if err := os.MkdirAll(filepath.Join(ws, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "vendor")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for link, to := range map[string]string{"tools": "build", "gen": "cache", "deps/x": "../store"} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestRealClaudeCodeNestedThroughLink pins rule 3 of the search for
// nested skills folders against Claude Code: once the model reads a
// file through a link to a folder in the workspace, Claude Code loads
// the skills folder beside it, though the link's target, or the link
// itself, is git-ignored (git answers nothing for a path beyond a link);
// through a link out of the workspace it loads none, nor the link's own
// skills folder when git ignores the link. FindNested finds exactly the
// folders Claude Code showed the model, but for one it does not reach
// (rule 3): behind a link in a git-ignored folder, which is logged.
func TestRealClaudeCodeNestedThroughLink(t *testing.T) {
	cli := modeltest.ClaudeCLI(t)
	ws := linkedNestedLayout(t)
	reads := []string{"vendor/sub", "tools/sub", "gen/sub", "gen", "deps/x/sub"} // each main.go
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
			return modeltest.ToolUse("Read", map[string]string{"file_path": filepath.Join(ws, reads[done], "main.go")})
		}
		return modeltest.Text("ok")
	})
	env, _ := s.ClaudeEnv(t)
	run(t, cli, ws, env, "-p", "--output-format", "stream-json", "--verbose")
	reqs := s.MessageRequests()
	if len(reqs) < len(reads)+1 {
		t.Fatalf("%d requests, want %d", len(reqs), len(reads)+1)
	}
	last := string(reqs[len(reqs)-1].Body)
	r, _ := agents.Lookup("claude-code")
	found, err := r.FindNested(t.Context(), ws, agents.Walk{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ rel, mark string }{
		{"vendor/sub", "MARK-OUTSIDE"}, {"tools/sub", "MARK-BUILT"}, {"gen/sub", "MARK-GEN"}, {"gen", "MARK-GENTOP"}, {"deps/x/sub", "MARK-STORE"},
	} {
		shown := strings.Contains(last, c.mark)
		dir := filepath.Join(ws, filepath.FromSlash(c.rel), ".claude", "skills")
		got := slices.Contains(found, dir)
		t.Logf("%s: shown %v, found %v", dir, shown, got)
		if c.rel == "deps/x/sub" {
			continue // a link in a git-ignored folder is not reached (rule 3)
		}
		if got != shown {
			t.Errorf("Claude Code showed the model %s: %v; FindNested = %q finds it: %v", dir, shown, found, got)
		}
	}
}

// TestFindNestedThroughLink checks rule 3 of the search for nested
// skills folders on the layout Claude Code is run in by
// TestRealClaudeCodeNestedThroughLink: a link to a folder in the
// workspace is walked as a folder at the link's path, where git answers
// nothing (so tools/sub and gen/sub are found, though their targets and
// gen itself are git-ignored); git answers for the link's own path (so
// gen/.claude/skills is not found); a link out of the workspace is not
// walked (so vendor/sub is not found).
func TestFindNestedThroughLink(t *testing.T) {
	r, _ := agents.Lookup("claude-code")
	ws := linkedNestedLayout(t)
	found, err := r.FindNested(t.Context(), ws, agents.Walk{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"tools/sub", "gen/sub"} {
		if dir := filepath.Join(ws, filepath.FromSlash(rel), ".claude", "skills"); !slices.Contains(found, dir) {
			t.Errorf("FindNested = %q; want %s, which Claude Code loads once it reads a file beside it", found, dir)
		}
	}
	for _, rel := range []string{"vendor/sub", "gen", "build/sub", "cache/sub", "cache"} {
		if dir := filepath.Join(ws, filepath.FromSlash(rel), ".claude", "skills"); slices.Contains(found, dir) {
			t.Errorf("FindNested = %q; want no %s, which Claude Code does not load", found, dir)
		}
	}
}
