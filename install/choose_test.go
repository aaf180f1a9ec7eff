package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChooseAgents checks agents rule 6: the agents an Add installs for
// when the request names none, and why.
func TestChooseAgents(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, f *fixture)
		req       AddRequest
		want      []string
		why       Why
		wantFound []string // relative to the fixture's base, for WhyDetected
	}{
		{name: "nothing detected", want: []string{"claude-code", "codex"}, why: WhyDefault},
		{
			name:  "detected",
			setup: func(t *testing.T, f *fixture) { mkdirs(t, f.env.Home, ".claude", ".gemini") },
			want:  []string{"claude-code", "gemini-cli"}, why: WhyDetected,
			wantFound: []string{"home/.claude", "home/.gemini"},
		},
		{
			// A project installed for two agents keeps getting its skills
			// for those two, though only one is detected.
			name: "recorded beats detected",
			setup: func(t *testing.T, f *fixture) {
				mkdirs(t, f.env.Home, ".claude")
				f.writeSkill(t, "one", "one", "")
				in := f.installer(t)
				if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "one")}, Agents: agentsOf(t, "codex", "cursor")}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"codex", "cursor"}, why: WhyRecorded,
		},
		{
			name:  "requested beats everything",
			setup: func(t *testing.T, f *fixture) { mkdirs(t, f.env.Home, ".claude") },
			req:   AddRequest{Agents: agentsOf(t, "windsurf")},
			want:  []string{"windsurf"}, why: WhyRequested,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			in := f.installer(t)
			c, err := in.ChooseAgents(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("ChooseAgents(%v) = %v", tt.req, err)
			}
			var ids, found []string
			for _, a := range c.Agents {
				ids = append(ids, a.Agent.ID)
				if a.Found != "" {
					rel, _ := filepath.Rel(filepath.Dir(f.env.Home), a.Found)
					found = append(found, filepath.ToSlash(rel))
				}
			}
			if !slices.Equal(ids, tt.want) || c.Why != tt.why || !slices.Equal(found, tt.wantFound) {
				t.Errorf("ChooseAgents = %q (%s, found %q), want %q (%s, found %q)", ids, c.Why, found, tt.want, tt.why, tt.wantFound)
			}
			if tt.why == WhyRecorded && c.Lock != in.lockPath() {
				t.Errorf("ChooseAgents read %q, want %q", c.Lock, in.lockPath())
			}
			if ids := agentIDs(c.List()); !slices.Equal(ids, tt.want) {
				t.Errorf("List() = %q, want %q", ids, tt.want)
			}
		})
	}
	t.Run("invalid lock file", func(t *testing.T) {
		f := newFixture(t)
		mkdirs(t, f.env.Project, ".agents")
		os.WriteFile(filepath.Join(f.env.Project, ".agents", lockName), []byte("{"), 0o644)
		if _, err := f.installer(t).ChooseAgents(t.Context(), AddRequest{}); !errors.Is(err, ErrInvalidLock) {
			t.Errorf("ChooseAgents with a broken lock file = %v, want ErrInvalidLock", err)
		}
	})
}

// TestAddUsesTheRecordedAgents checks that a plain Add after an install
// for some agents installs for those, not for the agents detected.
func TestAddUsesTheRecordedAgents(t *testing.T) {
	f := newFixture(t)
	mkdirs(t, f.env.Home, ".claude")
	in := f.installer(t)
	one, two := f.writeSkill(t, "one", "one", ""), f.writeSkill(t, "two", "two", "")
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{one}, Agents: agentsOf(t, "claude-code", "windsurf")}); err != nil {
		t.Fatal(err)
	}
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{two}})
	if err != nil {
		t.Fatal(err)
	}
	var agents []string
	for _, c := range changes {
		if c.Agent != "" && !slices.Contains(agents, c.Agent) {
			agents = append(agents, c.Agent)
		}
	}
	if !slices.Equal(agents, []string{"claude-code", "windsurf"}) {
		t.Errorf("plain Add installed for %q, want the recorded claude-code and windsurf", agents)
	}
}

// TestSourceFolderIsNotAnInstall checks rule 1's last part: a project's
// own skills folder that is also an agent's (OpenClaw reads skills/) is
// never replaced, linked over or removed, and List shows it as a source.
func TestSourceFolderIsNotAnInstall(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	src := filepath.Join(f.env.Project, "skills")
	review := filepath.Join(src, "review")
	mkdirs(t, review)
	os.WriteFile(filepath.Join(review, "SKILL.md"), []byte(skillMD("review")), 0o644)

	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "openclaw")})
	if err != nil {
		t.Fatal(err)
	}
	var forOpenclaw []Change
	for _, c := range changes {
		if c.Agent == "openclaw" {
			forOpenclaw = append(forOpenclaw, c)
		}
	}
	if len(forOpenclaw) != 1 || forOpenclaw[0].Action != ActionSkipped || forOpenclaw[0].Path != "review" || forOpenclaw[0].Reason == "" {
		t.Errorf("Add for openclaw from its own folder = %+v, want one skip with the skill's folder in the source and a reason", forOpenclaw)
	}
	isFolder := func(when string) {
		t.Helper()
		fi, err := os.Lstat(review)
		if err != nil || !fi.IsDir() {
			t.Fatalf("%s: the source folder %s is gone or no longer a folder (%v)", when, review, err)
		}
	}
	isFolder("after add")

	st, err := in.List(t.Context(), ListRequest{Agents: agentsOf(t, "openclaw", "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	var openclaw []State
	for _, s := range st {
		if s.Agent == "openclaw" {
			openclaw = append(openclaw, s.State)
		}
	}
	if !slices.Equal(openclaw, []State{StateSource}) {
		t.Errorf("List for openclaw = %v, want the source folder once, as %q", openclaw, StateSource)
	}
	if bad, err := in.Verify(t.Context()); err != nil || len(bad) > 0 {
		t.Errorf("Verify = %v, %v; want nothing to report", bad, err)
	}
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"review"}}); err != nil {
		t.Fatal(err)
	}
	isFolder("after remove")
	// Not recorded any more: an ordinary folder in openclaw's folder.
	st, err = in.List(t.Context(), ListRequest{Agents: agentsOf(t, "openclaw")})
	if err != nil || len(st) != 1 || st[0].State != StateExternal {
		t.Errorf("List after remove = %v, %v; want the folder as external", st, err)
	}
}

// TestCanonicalSourceIsStillInstalled checks that the rule above leaves
// the canonical folder alone: adding a committed .agents/skills records
// its skills for the agents that read it there.
func TestCanonicalSourceIsStillInstalled(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	canonical := filepath.Join(f.env.Project, ".agents", "skills")
	mkdirs(t, canonical, "review")
	os.WriteFile(filepath.Join(canonical, "review", "SKILL.md"), []byte(skillMD("review")), 0o644)
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{canonical}, Agents: agentsOf(t, "codex", "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Action == ActionSkipped {
			t.Errorf("Add of the canonical folder skipped %+v", c)
		}
	}
	// Again: the link made for claude-code leads to the source, and is
	// still claude-code's place, not the source.
	changes, err = in.Add(t.Context(), AddRequest{Sources: []string{canonical}, Agents: agentsOf(t, "codex", "claude-code")})
	if err != nil || Changed(changes) || slices.ContainsFunc(changes, func(c Change) bool { return c.Action == ActionSkipped }) {
		t.Errorf("Add again = %v, %v; want nothing changed or skipped", actions(changes), err)
	}
}

func mkdirs(t *testing.T, base string, rels ...string) {
	t.Helper()
	if len(rels) == 0 {
		rels = []string{"."}
	}
	for _, r := range rels {
		if err := os.MkdirAll(filepath.Join(base, r), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func agentIDs(agents []Agent) []string {
	var out []string
	for _, a := range agents {
		out = append(out, a.ID)
	}
	return out
}

// TestChooseAgentsInterrupted checks that a context that ended fails
// ChooseAgents and RecordedRisks as it fails Add: ErrInterrupted, saying
// that nothing changed.
func TestChooseAgentsInterrupted(t *testing.T) {
	in := newFixture(t).installer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := in.ChooseAgents(ctx, AddRequest{}); !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("ChooseAgents(ended context) = %v, want ErrInterrupted, nothing was changed", err)
	}
	if _, err := in.RecordedRisks(ctx); !errors.Is(err, ErrInterrupted) {
		t.Errorf("RecordedRisks(ended context) = %v, want ErrInterrupted", err)
	}
}
