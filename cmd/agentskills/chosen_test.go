package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddSaysWhichAgents checks that add names the agents it installs
// for and why: the flags, the lock file, the folders it detected, or the
// default.
func TestAddSaysWhichAgents(t *testing.T) {
	tests := []struct {
		name  string
		home  []string // folders made in the home folder
		first []string // an add run before, if any
		args  []string // after "add SRC"
		want  string   // the first line on stderr; "" for none about the agents
	}{
		{name: "default", want: "installing for claude-code, codex: no agent was detected here (--agent chooses others)\n"},
		{name: "detected", home: []string{".claude", ".gemini"},
			want: "installing for claude-code (found ~/.claude), gemini-cli (found ~/.gemini), detected here (--agent chooses others)\n"},
		{name: "recorded", home: []string{".claude"}, first: []string{"-a", "claude-code,codex"},
			want: "installing for claude-code, codex, which .agents/agentskills.lock records (--agent chooses others)\n"},
		{name: "flag", home: []string{".claude"}, args: []string{"--agent", "codex"}, want: "installing for codex, as --agent asks\n"},
		{name: "all", args: []string{"--all"}, want: "installing for all 45 known agents, as --all asks\n"},
		{name: "every agent by id", args: []string{"-a", "*"}, want: "installing for all 45 known agents, as --agent asks\n"},
		{name: "json", args: []string{"--json"}},
		{name: "quiet", args: []string{"-q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := isolatedHome(t, tt.home...)
			src := filepath.Join(project, "src")
			writeSkill(t, src, "greet", "---\nname: greet\ndescription: Greets.\n---\n")
			if tt.first != nil {
				if code, _, errs := runHere(t, append([]string{"add", src}, tt.first...)...); code != 0 {
					t.Fatalf("first add = %d: %s", code, errs)
				}
				writeSkill(t, src, "wave", "---\nname: wave\ndescription: Waves.\n---\n")
			}
			args := append([]string{"add", src}, tt.args...)
			code, _, errs := runHere(t, args...)
			if code != 0 {
				t.Fatalf("%s = %d: %s", strings.Join(args, " "), code, errs)
			}
			first, _, _ := strings.Cut(errs, "\n")
			if tt.want == "" {
				if strings.Contains(errs, "installing for") {
					t.Errorf("%s printed %q on stderr, want no line about the agents", strings.Join(args, " "), errs)
				}
				return
			}
			if first+"\n" != tt.want {
				t.Errorf("%s: first line on stderr = %q, want %q", strings.Join(args, " "), first, tt.want)
			}
		})
	}
}

// TestListShowsSourceFolder checks that the project's own skills folder,
// which is OpenClaw's too, is listed as the source it is, and that add
// leaves it alone for OpenClaw.
func TestListShowsSourceFolder(t *testing.T) {
	project := isolatedHome(t)
	writeSkill(t, filepath.Join(project, "skills"), "greet", "---\nname: greet\ndescription: Greets.\n---\n")
	code, out, errs := runHere(t, "add", "./skills", "-a", "claude-code,openclaw")
	if code != 0 {
		t.Fatalf("add = %d: %s", code, errs)
	}
	const skip = "skipped   greet (skills: greet): skills/greet is this skill's source folder, which openclaw reads already; nothing is made for openclaw\n"
	if !strings.Contains(errs, skip) || strings.Contains(out, "openclaw") {
		t.Errorf("add for openclaw: stdout %q, stderr %q; want only the skip %q", out, errs, skip)
	}
	code, out, errs = runHere(t, "list")
	if code != 0 {
		t.Fatalf("list = %d: %s", code, errs)
	}
	want := [][]string{
		{"greet", "installed", filepath.Join(".agents", "skills", "greet")},
		{"greet", "installed", filepath.Join(".claude", "skills", "greet")},
		{"greet", "source", filepath.Join("skills", "greet"), "openclaw"},
	}
	rows := strings.Split(strings.TrimSpace(out), "\n")[1:]
	if len(rows) != len(want) {
		t.Fatalf("list =\n%s\nwant %d rows", out, len(want))
	}
	for i, w := range want {
		if f := strings.Fields(rows[i]); len(f) < len(w) || strings.Join(f[:len(w)], " ") != strings.Join(w, " ") {
			t.Errorf("list row %d = %q, want it to start with %q", i, rows[i], w)
		}
	}
}

// isolatedHome makes a home folder with the given folders and a project,
// points HOME and the agents' variables at them, makes the project the
// current folder and returns it.
func isolatedHome(t *testing.T, homeDirs ...string) string {
	t.Helper()
	home, project := t.TempDir(), t.TempDir()
	for _, d := range homeDirs {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(project)
	return project
}

// runHere runs agentskills in this process.
func runHere(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs strings.Builder
	code = run(t.Context(), args, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}
