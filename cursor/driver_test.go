package cursor_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/cursor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cursortest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestCheckArgs checks which arguments from someone else may be passed
// through (rule 4 of "Arguments").
func TestCheckArgs(t *testing.T) {
	for _, arg := range []string{"--mode=plan", "--sandbox=enabled", "--trust", "--approve-mcps"} {
		if err := cursor.Descriptor().CheckArgs([]string{arg}); err != nil {
			t.Errorf("CheckArgs(%q) = %v, want nil", arg, err)
		}
	}
	for _, arg := range []string{"-p", "-f", "--", "prompt", "--print", "--output-format=text", "--stream-partial-output", "--workspace=/x", "--resume=x", "--continue", "--x=a\x00"} {
		var argErr *driver.ArgError
		if err := cursor.Descriptor().CheckArgs([]string{"--trust", arg}); !errors.As(err, &argErr) || argErr.Arg != arg || argErr.Field != "" {
			t.Errorf("CheckArgs(%q) = %v, want it refused as the driver's own or for its form", arg, err)
		}
	}
	for arg, field := range map[string]string{"--model=x": "Model", "--force": "Force", "--yolo": "Force", "--no-force": "Force", "--api-key=k": "Env"} {
		var argErr *driver.ArgError
		if err := cursor.Descriptor().CheckArgs([]string{arg}); !errors.As(err, &argErr) || argErr.Field != field {
			t.Errorf("CheckArgs(%q) = %v, want it refused naming Config.%s", arg, err, field)
		}
	}
}

// standIn is a run setup with the stand-in CLI: its model, environment,
// the user's home and a cache root.
type standIn struct {
	model *modeltest.ChatServer
	env   []string
	home  string
	cache string
}

func newStandIn(t *testing.T, bin string, reply modeltest.ChatReplyFunc) *standIn {
	m := modeltest.NewChat(t, reply)
	env, home := cursortest.Env(t, bin, m)
	return &standIn{model: m, env: env, home: home, cache: cachetest.Root(t)}
}

func (s *standIn) agent(t *testing.T, c cursor.Config, opts ...adaptor.Option) *adaptor.Agent {
	c.Env = append(append([]string(nil), s.env...), c.Env...)
	c.CacheRoot = s.cache
	return clitest.NewAgent(cursor.Driver(c), s.cache, t.TempDir(), opts...)
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDriverStandIn checks, against the stand-in, what the conformance
// suite does not: the prompt is one operand taken literally, a prompt too
// long for one argument is refused, and a run without a result line
// fails.
func TestDriverStandIn(t *testing.T) {
	bin := cursortest.Build(t)
	t.Run("prompt like an option", func(t *testing.T) {
		s := newStandIn(t, bin, modeltest.ChatAlways(modeltest.ChatText("ok")))
		marker := filepath.Join(t.TempDir(), "pwned")
		prompt := "--standin-touch=" + marker
		if _, err := s.agent(t, cursor.Config{}).Run(clitest.RunCtx(t), prompt); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(marker); err == nil {
			t.Errorf("%s exists: the prompt was read as an option", marker)
		}
		if reqs := s.model.MainRequests(); len(reqs) != 1 || reqs[0].Prompt() != prompt {
			t.Errorf("the model was not asked the prompt %q whole", prompt)
		}
	})
	t.Run("prompt too long", func(t *testing.T) {
		s := newStandIn(t, bin, modeltest.ChatAlways(modeltest.ChatText("ok")))
		_, err := s.agent(t, cursor.Config{}).Run(clitest.RunCtx(t), strings.Repeat("x", 128<<10+1))
		if err == nil || !strings.Contains(err.Error(), "at most 131072 bytes") || len(s.model.Requests()) != 0 {
			t.Errorf("run of a long prompt = %v, %d requests; want it refused before the start", err, len(s.model.Requests()))
		}
	})
	for _, tt := range []struct {
		exit string
		want func(error) bool
	}{
		{"0", func(err error) bool { return errors.Is(err, driver.ErrNoResult) }},
		{"3", func(err error) bool {
			var ae *driver.AgentError
			return errors.As(err, &ae) && strings.Contains(ae.Message, "the stream ended early") && ae.Result.SessionID != ""
		}},
	} {
		t.Run("no result, exit "+tt.exit, func(t *testing.T) {
			s := newStandIn(t, bin, modeltest.ChatAlways(modeltest.ChatText("ok")))
			_, err := s.agent(t, cursor.Config{Env: []string{"AGENTADAPTOR_CURSOR_STANDIN_NO_RESULT=" + tt.exit}}).Run(clitest.RunCtx(t), "hi")
			if !tt.want(err) {
				t.Errorf("run without a result line, exit %s = %v", tt.exit, err)
			}
		})
	}
}

// TestOverlayHome checks "The overlay home": the user's entries are links,
// .cursor is the overlay's own with links to the user's entries, its
// skills folder links the run's skills and the user's, a new entry Cursor
// makes lands in the overlay, and the user's home is not changed.
func TestOverlayHome(t *testing.T) {
	bin := cursortest.Build(t)
	s := newStandIn(t, bin, modeltest.ChatAlways(modeltest.ChatText("ok")))
	write(t, filepath.Join(s.home, ".gitconfig"), "[user]\n")
	write(t, filepath.Join(s.home, ".config", "cursor", "auth.json"), "{}")
	write(t, filepath.Join(s.home, ".cursor", "cli-config.json"), "{}")
	write(t, filepath.Join(s.home, ".cursor", "skills", "mine", "SKILL.md"), cachetest.SkillMD("mine", "Mine.", "M"))
	if err := os.RemoveAll(filepath.Join(s.home, ".cursor", "chats")); err != nil {
		t.Fatal(err)
	}
	before := cachetest.Listing(t, s.home)
	agent := s.agent(t, cursor.Config{}, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	if _, err := agent.Run(clitest.RunCtx(t), "hi"); err != nil {
		t.Fatal(err)
	}
	if after := cachetest.Listing(t, s.home); after != before {
		t.Errorf("the user's home changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	homes, _ := filepath.Glob(filepath.Join(s.cache, "homes", "cursor", "*"))
	var overlay string
	for _, h := range homes {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			overlay = h
		}
	}
	if overlay == "" {
		t.Fatalf("no overlay home under %s", s.cache)
	}
	for _, tt := range []struct{ path, target string }{
		{".gitconfig", filepath.Join(s.home, ".gitconfig")},
		{".config", filepath.Join(s.home, ".config")},
		{".cursor/cli-config.json", filepath.Join(s.home, ".cursor", "cli-config.json")},
		{".cursor/skills/mine", filepath.Join(s.home, ".cursor", "skills", "mine")},
	} {
		if got, err := os.Readlink(filepath.Join(overlay, filepath.FromSlash(tt.path))); err != nil || got != tt.target {
			t.Errorf("overlay %s -> %q, %v; want a link to %s", tt.path, got, err, tt.target)
		}
	}
	for _, p := range []string{".cursor", ".cursor/skills", ".cursor/chats"} {
		if fi, err := os.Lstat(filepath.Join(overlay, filepath.FromSlash(p))); err != nil || !fi.IsDir() {
			t.Errorf("overlay %s: %v, %v; want a folder of the overlay's own", p, fi, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(overlay, ".cursor", "skills", "review", "SKILL.md")); err != nil || fi.Size() == 0 {
		t.Errorf("the run's skill in the overlay: %v", err)
	}
	if sys := s.model.MainRequests()[0].System(); !strings.Contains(sys, "- review: Reviews.") || !strings.Contains(sys, "- mine: Mine.") {
		t.Errorf("the model was shown %q; want the run's skill and the user's", sys)
	}
}

// TestShadowEveryFolder checks rule 1 of "Checks" over every folder
// Cursor reads, the user's Claude Code and Codex folders included: a
// skill of one of the run's names with other content there refuses the
// run before the start.
func TestShadowEveryFolder(t *testing.T) {
	bin := cursortest.Build(t)
	for _, rel := range []string{".cursor/skills", ".agents/skills", ".claude/skills", ".codex/skills"} {
		t.Run(rel, func(t *testing.T) {
			s := newStandIn(t, bin, modeltest.ChatAlways(modeltest.ChatText("ok")))
			theirs := filepath.Join(s.home, filepath.FromSlash(rel), "review")
			write(t, filepath.Join(theirs, "SKILL.md"), cachetest.SkillMD("review", "Theirs.", "T"))
			agent := s.agent(t, cursor.Config{}, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Ours.", "O"))))
			_, err := agent.Run(clitest.RunCtx(t), "hi")
			var shadow *driver.ShadowError
			if !errors.As(err, &shadow) || shadow.Theirs != theirs || len(s.model.Requests()) != 0 {
				t.Errorf("run with %s/review = %v, %d requests; want a ShadowError naming it before the start", rel, err, len(s.model.Requests()))
			}
		})
	}
}

// TestProgramNotFound checks the error of a Cursor CLI that is not there:
// it says how Cursor's CLI is installed and names Config.Command, and it
// is a *driver.ProgramNotFoundError whose Field names it, so that a caller
// with its own name for the setting words it.
func TestProgramNotFound(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "agent")
	d := cursor.Driver(cursor.Config{Command: missing, CacheRoot: cachetest.Root(t)})
	_, err := d.Run(t.Context(), &driver.Request{Prompt: "go", Workspace: t.TempDir()})
	var nf *driver.ProgramNotFoundError
	if !errors.As(err, &nf) || nf.Field != "cursor.Config.Command" || !errors.Is(err, driver.ErrProgramNotFound) {
		t.Fatalf("Run() = %v; want a *driver.ProgramNotFoundError of cursor.Config.Command", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "install Cursor's CLI with `curl https://cursor.com/install | bash`, or set cursor.Config.Command") || strings.Contains(msg, "npm") {
		t.Errorf("Run() = %q; want it to say how Cursor's CLI is installed and name cursor.Config.Command", msg)
	}
}
