package install

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// npmAgents is the agent table of the npm skills tool 1.4.9 (the agents
// object in its dist/cli.mjs), read with HOME=/h, the project /p and no
// environment variables set: each agent's ID, project folder, user
// folder, and the folder whose presence detects it ("/p/..." for those
// detected by a project folder; "" for never).
var npmAgents = []struct{ id, project, user, detect string }{
	{"adal", ".adal/skills", "/h/.adal/skills", "/h/.adal"},
	{"amp", ".agents/skills", "/h/.config/agents/skills", "/h/.config/amp"},
	{"antigravity", ".agents/skills", "/h/.gemini/antigravity/skills", "/h/.gemini/antigravity"},
	{"augment", ".augment/skills", "/h/.augment/skills", "/h/.augment"},
	{"bob", ".bob/skills", "/h/.bob/skills", "/h/.bob"},
	{"claude-code", ".claude/skills", "/h/.claude/skills", "/h/.claude"},
	{"cline", ".agents/skills", "/h/.agents/skills", "/h/.cline"},
	{"codebuddy", ".codebuddy/skills", "/h/.codebuddy/skills", "/h/.codebuddy"},
	{"codex", ".agents/skills", "/h/.codex/skills", "/h/.codex"},
	{"command-code", ".commandcode/skills", "/h/.commandcode/skills", "/h/.commandcode"},
	{"continue", ".continue/skills", "/h/.continue/skills", "/h/.continue"},
	{"cortex", ".cortex/skills", "/h/.snowflake/cortex/skills", "/h/.snowflake/cortex"},
	{"crush", ".crush/skills", "/h/.config/crush/skills", "/h/.config/crush"},
	{"cursor", ".agents/skills", "/h/.cursor/skills", "/h/.cursor"},
	{"deepagents", ".agents/skills", "/h/.deepagents/agent/skills", "/h/.deepagents"},
	{"droid", ".factory/skills", "/h/.factory/skills", "/h/.factory"},
	{"firebender", ".agents/skills", "/h/.firebender/skills", "/h/.firebender"},
	{"gemini-cli", ".agents/skills", "/h/.gemini/skills", "/h/.gemini"},
	{"github-copilot", ".agents/skills", "/h/.copilot/skills", "/h/.copilot"},
	{"goose", ".goose/skills", "/h/.config/goose/skills", "/h/.config/goose"},
	{"iflow-cli", ".iflow/skills", "/h/.iflow/skills", "/h/.iflow"},
	{"junie", ".junie/skills", "/h/.junie/skills", "/h/.junie"},
	{"kilo", ".kilocode/skills", "/h/.kilocode/skills", "/h/.kilocode"},
	{"kimi-cli", ".agents/skills", "/h/.config/agents/skills", "/h/.kimi"},
	{"kiro-cli", ".kiro/skills", "/h/.kiro/skills", "/h/.kiro"},
	{"kode", ".kode/skills", "/h/.kode/skills", "/h/.kode"},
	{"mcpjam", ".mcpjam/skills", "/h/.mcpjam/skills", "/h/.mcpjam"},
	{"mistral-vibe", ".vibe/skills", "/h/.vibe/skills", "/h/.vibe"},
	{"mux", ".mux/skills", "/h/.mux/skills", "/h/.mux"},
	{"neovate", ".neovate/skills", "/h/.neovate/skills", "/h/.neovate"},
	{"openclaw", "skills", "/h/.openclaw/skills", "/h/.openclaw"},
	{"opencode", ".agents/skills", "/h/.config/opencode/skills", "/h/.config/opencode"},
	{"openhands", ".openhands/skills", "/h/.openhands/skills", "/h/.openhands"},
	{"pi", ".pi/skills", "/h/.pi/agent/skills", "/h/.pi/agent"},
	{"pochi", ".pochi/skills", "/h/.pochi/skills", "/h/.pochi"},
	{"qoder", ".qoder/skills", "/h/.qoder/skills", "/h/.qoder"},
	{"qwen-code", ".qwen/skills", "/h/.qwen/skills", "/h/.qwen"},
	{"replit", ".agents/skills", "/h/.config/agents/skills", "/p/.replit"},
	{"roo", ".roo/skills", "/h/.roo/skills", "/h/.roo"},
	{"trae", ".trae/skills", "/h/.trae/skills", "/h/.trae"},
	{"trae-cn", ".trae/skills", "/h/.trae-cn/skills", "/h/.trae-cn"},
	{"universal", ".agents/skills", "/h/.config/agents/skills", ""},
	{"warp", ".agents/skills", "/h/.agents/skills", "/h/.warp"},
	{"windsurf", ".windsurf/skills", "/h/.codeium/windsurf/skills", "/h/.codeium/windsurf"},
	{"zencoder", ".zencoder/skills", "/h/.zencoder/skills", "/h/.zencoder"},
}

// differs holds where the table deliberately differs from npmAgents (see
// the package doc, Agents rule 1): an agent that reads the canonical
// folder is installed there.
var differs = map[string]struct{ project, user string }{
	"codex":          {"", "/h/.agents/skills"},
	"cursor":         {"", "/h/.agents/skills"},
	"gemini-cli":     {"", "/h/.agents/skills"},
	"github-copilot": {"", "/h/.agents/skills"},
	"goose":          {".agents/skills", "/h/.agents/skills"},
	"opencode":       {"", "/h/.agents/skills"},
	"universal":      {"", "/h/.agents/skills"},
}

func noEnv(string) string { return "" }

func TestAgentTableIsNPMs(t *testing.T) {
	var want []string
	for _, n := range npmAgents {
		want = append(want, n.id)
	}
	if len(want) != 45 {
		t.Fatalf("the npm table lists %d agents, want 45", len(want))
	}
	var got []string
	for _, a := range Agents() {
		got = append(got, a.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Agents() IDs = %v\nwant (the npm skills tool's, sorted) %v", got, want)
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("agent IDs are not sorted and unique: %v", got)
	}
	for _, id := range want {
		if a, ok := LookupAgent(id); !ok || a.ID != id {
			t.Errorf("LookupAgent(%q) = %q, %v", id, a.ID, ok)
		}
	}
	if a, ok := LookupAgent("nobody"); ok {
		t.Errorf("LookupAgent(%q) = %q, want none", "nobody", a.ID)
	}
}

func TestAgentFolders(t *testing.T) {
	env := Env{Home: "/h", Project: "/p", Getenv: noEnv}
	for _, n := range npmAgents {
		t.Run(n.id, func(t *testing.T) {
			a, ok := LookupAgent(n.id)
			if !ok {
				t.Fatalf("LookupAgent(%q) missing", n.id)
			}
			project, user := n.project, n.user
			if d, ok := differs[n.id]; ok {
				if d.project != "" {
					project = d.project
				}
				user = d.user
			}
			if got := a.ProjectDir; got != project {
				t.Errorf("ProjectDir = %q, want %q", got, project)
			}
			if got, want := a.Dir(env, Project), filepath.FromSlash("/p/"+project); got != want {
				t.Errorf("Dir(Project) = %q, want %q", got, want)
			}
			if got := a.Dir(env, User); got != filepath.FromSlash(user) {
				t.Errorf("Dir(User) = %q, want %q", got, user)
			}
			if a.Name == "" || strings.TrimSpace(a.Name) != a.Name {
				t.Errorf("Name = %q", a.Name)
			}
			if a.Override != a.row.UserInstall.Base.Override() {
				t.Errorf("Override = %q, but the user folder is moved by %q", a.Override, a.row.UserInstall.Base.Override())
			}
			skillDirs := []string{a.ProjectDir}
			for _, f := range slices.Concat([]agents.Folder{a.row.UserInstall}, a.row.Formerly, a.row.Folders) {
				if f.Base == agents.System {
					continue // absolute, outside every scope
				}
				skillDirs = append(skillDirs, f.Rel)
				if f.Base == agents.Project && (f == a.row.UserInstall || slices.Contains(a.row.Formerly, f)) {
					t.Errorf("user folder %q is in the project", f.Rel)
				}
			}
			for _, rel := range skillDirs {
				if !fs.ValidPath(rel) || rel == "." || strings.ContainsAny(rel, `\:`) || path.Base(rel) != "skills" {
					t.Errorf("skills folder %q is not a relative slash path ending in skills", rel)
				}
			}
			for _, f := range a.row.Detect {
				if !fs.ValidPath(f.Rel) || strings.ContainsAny(f.Rel, `\:`) {
					t.Errorf("detection folder %q is not a relative slash path", f.Rel)
				}
			}
			for _, s := range []Scope{Project, User} {
				reads := a.Reads(env, s)
				if len(reads) == 0 || reads[0] != a.Dir(env, s) {
					t.Errorf("Reads(%v) = %q, want Dir first", s, reads)
				}
				if len(slices.Compact(slices.Clone(reads))) != len(reads) {
					t.Errorf("Reads(%v) = %q has repeats", s, reads)
				}
				for _, r := range reads {
					if rel, err := filepath.Rel(env.Root(s), r); err != nil || !filepath.IsLocal(rel) {
						t.Errorf("Reads(%v) holds %q, outside %s", s, r, env.Root(s))
					}
				}
			}
		})
	}
}

func TestAgentReads(t *testing.T) {
	env := Env{Home: "/h", Project: "/p", Getenv: noEnv}
	tests := []struct {
		id            string
		project, user []string
	}{
		{"claude-code", []string{".claude/skills"}, []string{".claude/skills"}},
		// Codex reads .codex/skills in a project too (checked against the
		// real CLI in internal/agents).
		{"codex", []string{".agents/skills", ".codex/skills"}, []string{".agents/skills", ".codex/skills"}},
		{"cursor", []string{".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"}, []string{".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"}},
		{"gemini-cli", []string{".agents/skills", ".gemini/skills"}, []string{".agents/skills", ".gemini/skills"}},
		{"github-copilot", []string{".agents/skills", ".github/skills", ".claude/skills"}, []string{".agents/skills", ".copilot/skills", ".claude/skills"}},
		{"goose", []string{".agents/skills", ".goose/skills", ".claude/skills"}, []string{".agents/skills", ".config/goose/skills"}},
		{"opencode", []string{".agents/skills", ".opencode/skills", ".claude/skills"}, []string{".agents/skills", ".config/opencode/skills", ".claude/skills"}},
		{"windsurf", []string{".windsurf/skills"}, []string{".codeium/windsurf/skills"}},
		{"roo", []string{".roo/skills"}, []string{".roo/skills"}},
	}
	under := func(root string, rels []string) []string {
		var out []string
		for _, r := range rels {
			out = append(out, filepath.Join(root, filepath.FromSlash(r)))
		}
		return out
	}
	for _, tt := range tests {
		a, _ := LookupAgent(tt.id)
		wantSystem := []string(nil)
		if tt.id == "codex" {
			wantSystem = []string{filepath.FromSlash("/etc/codex/skills")}
		}
		if got := a.System(); !slices.Equal(got, wantSystem) {
			t.Errorf("%s System() = %q, want %q", tt.id, got, wantSystem)
		}
		if got, want := a.Reads(env, Project), under("/p", tt.project); !slices.Equal(got, want) {
			t.Errorf("%s Reads(Project) = %q, want %q", tt.id, got, want)
		}
		if got, want := a.Reads(env, User), under("/h", tt.user); !slices.Equal(got, want) {
			t.Errorf("%s Reads(User) = %q, want %q", tt.id, got, want)
		}
	}
}

func TestAgentEnvironment(t *testing.T) {
	env := Env{Home: "/h", Project: "/p", Getenv: func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": " /cc ", "CODEX_HOME": "/cx", "XDG_CONFIG_HOME": "/x"}[k]
	}}
	tests := []struct {
		id   string
		user []string // Reads(User), Dir first
	}{
		{"claude-code", []string{"/cc/skills"}},
		// Codex is installed into ~/.agents/skills whatever CODEX_HOME
		// says; it reads $CODEX_HOME/skills too.
		{"codex", []string{"/h/.agents/skills", "/cx/skills"}},
		{"amp", []string{"/x/agents/skills"}},
		{"replit", []string{"/x/agents/skills"}},
		{"goose", []string{"/h/.agents/skills", "/x/goose/skills"}},
		{"opencode", []string{"/h/.agents/skills", "/x/opencode/skills", "/h/.claude/skills"}},
		// Copilot reads ~/.claude/skills, not Claude Code's moved folder.
		{"github-copilot", []string{"/h/.agents/skills", "/h/.copilot/skills", "/h/.claude/skills"}},
		// The npm table spells these under ~/.config, not XDG_CONFIG_HOME.
		{"crush", []string{"/h/.config/crush/skills"}},
		{"kimi-cli", []string{"/h/.config/agents/skills"}},
	}
	for _, tt := range tests {
		a, _ := LookupAgent(tt.id)
		var want []string
		for _, p := range tt.user {
			want = append(want, filepath.FromSlash(p))
		}
		if got := a.Reads(env, User); !slices.Equal(got, want) {
			t.Errorf("%s Reads(User) with overrides = %q, want %q", tt.id, got, want)
		}
	}
}

func TestAgentDetected(t *testing.T) {
	for _, n := range npmAgents {
		t.Run(n.id, func(t *testing.T) {
			base := t.TempDir()
			env := Env{Home: filepath.Join(base, "h"), Project: filepath.Join(base, "p"), Getenv: noEnv}
			os.MkdirAll(env.Home, 0o755)
			os.MkdirAll(env.Project, 0o755)
			a, _ := LookupAgent(n.id)
			if a.Detected(env) {
				t.Fatalf("Detected in an empty home")
			}
			if n.detect == "" {
				return
			}
			if err := os.MkdirAll(filepath.Join(base, filepath.FromSlash(n.detect)), 0o755); err != nil {
				t.Fatal(err)
			}
			if !a.Detected(env) {
				t.Errorf("not Detected with %s", n.detect)
			}
		})
	}
	// The overrides move the detected folders too.
	base := t.TempDir()
	env := Env{Home: filepath.Join(base, "h"), Project: base, Getenv: func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(base, "cc"), "CODEX_HOME": filepath.Join(base, "cx"), "XDG_CONFIG_HOME": filepath.Join(base, "x")}[k]
	}}
	for id, dir := range map[string]string{"claude-code": "cc", "codex": "cx", "goose": "x/goose"} {
		a, _ := LookupAgent(id)
		if a.Detected(env) {
			t.Errorf("%s detected before %s exists", id, dir)
		}
		os.MkdirAll(filepath.Join(base, dir), 0o755)
		if !a.Detected(env) {
			t.Errorf("%s not detected with %s", id, dir)
		}
	}
}

func TestOpenClawFormerNames(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Project: t.TempDir(), Getenv: noEnv}
	a, _ := LookupAgent("openclaw")
	steps := []struct{ mkdir, want string }{
		{"", ".openclaw/skills"},
		{".moltbot", ".moltbot/skills"},
		{".clawdbot", ".clawdbot/skills"},
		{".openclaw", ".openclaw/skills"},
	}
	for _, s := range steps {
		if s.mkdir != "" {
			os.Mkdir(filepath.Join(home, s.mkdir), 0o755)
		}
		if got, want := a.Dir(env, User), filepath.Join(home, filepath.FromSlash(s.want)); got != want {
			t.Errorf("after mkdir %q: Dir(User) = %s, want %s", s.mkdir, got, want)
		}
		if got := a.Reads(env, User); len(got) != 1 {
			t.Errorf("Reads(User) = %q, want only Dir", got)
		}
	}
}

func TestDefaultAgents(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Project: t.TempDir(), Getenv: noEnv}
	if got := DefaultAgents(env); len(got) != 2 || got[0].ID != "claude-code" || got[1].ID != "codex" {
		t.Errorf("DefaultAgents with none detected = %v", got)
	}
	os.Mkdir(filepath.Join(home, ".cursor"), 0o755)
	os.Mkdir(filepath.Join(home, ".roo"), 0o755)
	var ids []string
	for _, a := range DefaultAgents(env) {
		ids = append(ids, a.ID)
	}
	if !slices.Equal(ids, []string{"cursor", "roo"}) {
		t.Errorf("DefaultAgents with cursor and roo detected = %v", ids)
	}
}

func TestLookupAgents(t *testing.T) {
	ids := func(as []Agent) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	tests := []struct {
		name string
		in   []string
		want []string // nil: all
		err  string
	}{
		{"in order, once each", []string{"codex", "claude-code", "codex"}, []string{"codex", "claude-code"}, ""},
		{"star", []string{"*"}, nil, ""},
		{"star among others", []string{"codex", "*"}, nil, ""},
		{"a typo", []string{"claud-code"}, nil, `unknown agent "claud-code"; did you mean claude-code?`},
		{"nothing near", []string{"nobody"}, nil, `unknown agent "nobody"`},
		{"every bad ID at once", []string{"claud-code", "codex", "nobody", "cursr"}, nil,
			`unknown agents "claud-code" (did you mean claude-code?), "nobody" and "cursr" (did you mean cursor?)`},
		{"bad IDs beside a star", []string{"*", "gemni-cli"}, nil, `unknown agent "gemni-cli"; did you mean gemini-cli?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookupAgents(tt.in...)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || !errors.Is(err, ErrUnknownAgent) {
					t.Errorf("LookupAgents(%q) = %v, %v, want error %q wrapping ErrUnknownAgent", tt.in, ids(got), err, tt.err)
				}
				return
			}
			want := tt.want
			if want == nil {
				want = ids(Agents())
			}
			if err != nil || !slices.Equal(ids(got), want) {
				t.Errorf("LookupAgents(%q) = %v, %v, want %v", tt.in, ids(got), err, want)
			}
		})
	}
}

func TestNearestAgent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"claud-code", "claude-code"},
		{"cluade-code", "claude-code"}, // swapped neighbours
		{"Claude Code", "claude-code"},
		{"claude_code", "claude-code"},
		{"CODEX", "codex"},
		{"Kilo Code", "kilo"}, // a display name
		{"IBM Bob", "bob"},
		{"claude", "claude-code"}, // a word of one ID only
		{"copilot", "github-copilot"},
		{"gemini", "gemini-cli"},
		{"cursr", "cursor"},
		{"windsruf", "windsurf"},
		{"trae-c", "trae-cn"},
		{"gemni", "gemini-cli"}, // near a word of one ID
		{"deep-agents", "deepagents"},
		{"cli", ""},  // a word of several IDs
		{"code", ""}, // a word of several IDs, and near kode
		{"px", ""},   // two letters: one edit from pi would guess
		{"nobody", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := nearestAgent(tt.in); got != tt.want {
			t.Errorf("nearestAgent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestListShowsEveryReader: a skill is listed for every agent that reads
// it, in the folder it is installed into or in any other it reads (the
// canonical copy for Codex, Cursor, Gemini CLI and the others; a link
// under .claude/skills for Copilot, Cursor, Goose and OpenCode too), while
// Verify reports each recorded place once.
func TestListShowsEveryReader(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	src := f.writeSkill(t, "review", "review", "")
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	github := filepath.Join(f.env.Project, ".github", "skills")
	os.MkdirAll(filepath.Join(github, "mine"), 0o755)
	os.WriteFile(filepath.Join(github, "README.md"), []byte("not a skill"), 0o644)
	st, err := in.List(t.Context(), ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{} // "skill state kind path" -> agents
	for _, s := range st {
		rel, _ := filepath.Rel(f.env.Project, s.Path)
		k := strings.Join([]string{s.Skill, string(s.State), string(s.Kind), filepath.ToSlash(rel)}, " ")
		got[k] = append(got[k], s.Agent)
	}
	want := map[string][]string{
		"review installed canonical .agents/skills/review": {"amp", "antigravity", "cline", "codex", "cursor", "deepagents", "firebender", "gemini-cli", "github-copilot", "goose", "kimi-cli", "opencode", "qwen-code", "replit", "universal", "warp"},
		"review installed link .claude/skills/review":      {"claude-code", "cursor", "github-copilot", "goose", "opencode"},
		"mine external  .github/skills/mine":               {"github-copilot"},
	}
	for k, ids := range got {
		slices.Sort(ids)
		if !slices.Equal(ids, want[k]) {
			t.Errorf("List: %s read by %v, want %v", k, ids, want[k])
		}
	}
	for k := range want {
		if got[k] == nil {
			t.Errorf("List misses %s", k)
		}
	}
	st, err = in.List(t.Context(), ListRequest{Agents: agentsOf(t, "cursor")})
	if err != nil || len(st) != 2 {
		t.Errorf("List(cursor) = %+v, %v, want the canonical copy and the link", st, err)
	}
	os.WriteFile(filepath.Join(f.env.Project, ".agents", "skills", "review", "SKILL.md"), []byte("edited"), 0o644)
	bad, err := in.Verify(t.Context())
	if err != nil || len(bad) != 1 || bad[0].Agent != "claude-code" || bad[0].State != StateModified {
		t.Errorf("Verify after an edit = %+v, %v, want claude-code's place once, modified", bad, err)
	}
}

// TestSharedFolder: Trae and Trae CN read one project folder; each can be
// added and removed on its own, and the link stays while one has it.
func TestSharedFolder(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	ctx := t.Context()
	src := f.writeSkill(t, "review", "review", "")
	link := filepath.Join(f.env.Project, ".trae", "skills", "review")
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "trae")}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "trae-cn")}); err != nil {
		t.Fatalf("Add for trae-cn beside trae = %v", err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"review"}, Agents: agentsOf(t, "trae")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(link, "SKILL.md")); err != nil {
		t.Errorf("removing the skill for trae removed trae-cn's link: %v", err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after removing it for trae = %+v, %v", bad, err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"review"}, Agents: agentsOf(t, "trae-cn")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link survived removing the skill for both: %v", err)
	}
	// Both in one request, then both removed at once.
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "trae", "trae-cn")}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"review"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link survived removing the skill: %v", err)
	}
}

// TestUserScopeFolders: for the user, an agent that reads ~/.agents/skills
// reads the canonical copy there; Amp and Kimi Code CLI, which read
// ~/.config/agents/skills, share a link there.
func TestUserScopeFolders(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t, WithScope(User))
	ctx := t.Context()
	src := f.writeSkill(t, "review", "review", "")
	changes, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex", "cursor", "amp", "kimi-cli")})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]Kind{}
	for _, c := range changes {
		kinds[c.Agent] = c.Kind
	}
	if want := map[string]Kind{"": KindCanonical, "codex": KindCanonical, "cursor": KindCanonical, "amp": KindLink, "kimi-cli": KindLink}; !maps.Equal(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	link := filepath.Join(f.env.Home, ".config", "agents", "skills", "review")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("no link at %s: %v", link, err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"review"}, Agents: agentsOf(t, "amp")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(link, "SKILL.md")); err != nil {
		t.Errorf("removing the skill for amp removed kimi-cli's link: %v", err)
	}
}

// BenchmarkList lists 100 skills installed for Claude Code: 20 agents read
// each, in two folders.
func BenchmarkList(b *testing.B) {
	base := b.TempDir()
	f := &fixture{env: Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "project"), Getenv: noEnv}, sources: filepath.Join(base, "sources")}
	os.MkdirAll(f.env.Project, 0o755)
	for i := range 100 {
		name := fmt.Sprintf("skill-%03d", i)
		dir := filepath.Join(f.sources, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(name)+strings.Repeat("body\n", 1000)), 0o644)
	}
	in := f.installer(nil)
	if _, err := in.Add(b.Context(), AddRequest{Sources: []string{f.sources}, Agents: []Agent{mustAgent("claude-code")}}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if st, err := in.List(b.Context(), ListRequest{}); err != nil || len(st) != 2000 {
			b.Fatalf("List = %d entries, %v, want 2000", len(st), err)
		}
	}
}

func mustAgent(id string) Agent {
	a, ok := LookupAgent(id)
	if !ok {
		panic("no agent " + id)
	}
	return a
}

// TestListShowsCodexFolders: Codex reads .codex/skills in a project
// besides .agents/skills, so a skill there is listed for Codex (and for
// Cursor, which reads it too), as its row of the agents table says.
func TestListShowsCodexFolders(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	dir := filepath.Join(f.env.Project, ".codex", "skills", "mine")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("mine")), 0o644)
	st, err := in.List(t.Context(), ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var readers []string
	for _, s := range st {
		if s.Path == dir && s.Skill == "mine" && s.State == StateExternal {
			readers = append(readers, s.Agent)
		}
	}
	slices.Sort(readers)
	if want := []string{"codex", "cursor"}; !slices.Equal(readers, want) {
		t.Errorf("List: %s read by %v, want %v", dir, readers, want)
	}
}
