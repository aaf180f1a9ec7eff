package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

func resolved(dirs ...string) driver.ResolvedSkills {
	var rs driver.ResolvedSkills
	for _, d := range dirs {
		name := filepath.Base(d)
		rs.Entries = append(rs.Entries, driver.ResolvedSkill{Key: name, RuntimeName: name, Path: d})
		rs.Fingerprint += name + ";"
	}
	return rs
}

func links(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			target = "(not a link)"
		}
		out[e.Name()] = target
	}
	return out
}

// TestHome checks rules 2 to 4 of "The overlay home".
func TestHome(t *testing.T) {
	root, src, user := t.TempDir(), t.TempDir(), t.TempDir()
	a := cachetest.WriteSkill(t, src, "a", "A")
	mine := cachetest.WriteSkill(t, filepath.Join(user, ".agents", "skills"), "mine", "M")
	ug := filepath.Join(user, ".gemini")
	os.MkdirAll(filepath.Join(ug, "tmp", "p", "chats"), 0o755)
	os.MkdirAll(filepath.Join(ug, "skills"), 0o755)
	os.WriteFile(filepath.Join(ug, "settings.json"), []byte("{}"), 0o600)

	run := func() string {
		t.Helper()
		h, release, err := home(t.Context(), root, resolved(a), user, true)
		if err != nil {
			t.Fatal(err)
		}
		release()
		return h
	}
	h := run()
	if got, want := links(t, filepath.Join(h, ".agents", "skills")), map[string]string{"a": a, "mine": mine}; !cmp.Equal(got, want) {
		t.Errorf(".agents/skills = %v, want %v", got, want)
	}
	want := map[string]string{"settings.json": filepath.Join(ug, "settings.json"), "skills": filepath.Join(ug, "skills"), "tmp": filepath.Join(ug, "tmp")}
	if got := links(t, filepath.Join(h, ".gemini")); !cmp.Equal(got, want) {
		t.Errorf(".gemini = %v, want %v", got, want)
	}
	if got, err := os.ReadFile(filepath.Join(h, policyFile)); err != nil || !strings.Contains(string(got), `toolName = "activate_skill"`) {
		t.Errorf("policy = %q, %v", got, err)
	}

	// The user's changes reach the overlay at the next run; what the CLI
	// wrote in place of a link stays.
	os.Remove(filepath.Join(ug, "settings.json"))
	os.WriteFile(filepath.Join(ug, "oauth_creds.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(h, ".gemini", "projects.json"), []byte("{}"), 0o600)
	os.RemoveAll(mine)
	if h2 := run(); h2 != h {
		t.Fatalf("home = %s, then %s", h, h2)
	}
	want = map[string]string{"oauth_creds.json": filepath.Join(ug, "oauth_creds.json"), "skills": filepath.Join(ug, "skills"),
		"tmp": filepath.Join(ug, "tmp"), "projects.json": "(not a link)"}
	if got := links(t, filepath.Join(h, ".gemini")); !cmp.Equal(got, want) {
		t.Errorf(".gemini after the user's changes = %v, want %v", got, want)
	}
	if got, want := links(t, filepath.Join(h, ".agents", "skills")), map[string]string{"a": a}; !cmp.Equal(got, want) {
		t.Errorf(".agents/skills after the user's skill went = %v, want %v", got, want)
	}
}

// TestHomeWithoutUserSkills checks rule 3's WithoutUserSkills: the
// overlay links neither the user's ~/.agents/skills nor ~/.gemini/skills
// (the rest of ~/.gemini it does), a user skill named like the run's
// with other content is no shadow there, and the home is not the one of
// a run with the user's skills.
func TestHomeWithoutUserSkills(t *testing.T) {
	root, src, user := t.TempDir(), t.TempDir(), t.TempDir()
	a := cachetest.WriteSkill(t, src, "a", "A")
	cachetest.WriteSkill(t, filepath.Join(user, ".agents", "skills"), "mine", "M")
	cachetest.WriteSkill(t, filepath.Join(user, ".agents", "skills"), "a", "the user's old copy")
	ug := filepath.Join(user, ".gemini")
	cachetest.WriteSkill(t, filepath.Join(ug, "skills"), "theirs", "T")
	os.WriteFile(filepath.Join(ug, "settings.json"), []byte("{}"), 0o600)

	h, release, err := home(t.Context(), root, resolved(a), user, false)
	if err != nil {
		t.Fatalf("home without the user's skills = %v; want no shadow", err)
	}
	release()
	if got, want := links(t, filepath.Join(h, ".agents", "skills")), map[string]string{"a": a}; !cmp.Equal(got, want) {
		t.Errorf(".agents/skills = %v, want %v", got, want)
	}
	if got, want := links(t, filepath.Join(h, ".gemini")), map[string]string{"settings.json": filepath.Join(ug, "settings.json")}; !cmp.Equal(got, want) {
		t.Errorf(".gemini = %v, want %v", got, want)
	}
	if _, _, err := home(t.Context(), root, resolved(a), user, true); !errors.Is(err, driver.ErrSkillShadowed) {
		t.Errorf("home with the user's skills = %v, want the shadow refused", err)
	}
}

// TestHomeUserClash checks rule 2: a user skill in ~/.agents/skills named
// like one of the run's is fine with the same content and a
// *driver.ShadowError with other content.
func TestHomeUserClash(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		shadow     bool
	}{{"same", "A", false}, {"other", "B", true}} {
		t.Run(tt.name, func(t *testing.T) {
			root, src, user := t.TempDir(), t.TempDir(), t.TempDir()
			a := cachetest.WriteSkill(t, src, "a", "A")
			theirs := cachetest.WriteSkill(t, filepath.Join(user, ".agents", "skills"), "a", tt.body)
			_, release, err := home(t.Context(), root, resolved(a), user, true)
			var se *driver.ShadowError
			if got := errors.As(err, &se); got != tt.shadow || got && (se.Theirs != theirs || se.Ours != a) {
				t.Errorf("home = %v, want a ShadowError: %v", err, tt.shadow)
			}
			if err == nil {
				release()
			}
		})
	}
}

// TestArgs checks the command line (rules 1 to 4 of "Arguments").
func TestArgs(t *testing.T) {
	d := Driver(Config{Model: "--yolo", ApprovalMode: "plan", Args: []string{"--debug"}}).(*geminiDriver)
	got, err := d.args(&driver.Request{Resume: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"}, "/o/p.toml", "").List()
	want := []string{"--policy=/o/p.toml", "--output-format=stream-json", "--model=--yolo", "--approval-mode=plan", "--skip-trust",
		"--resume=5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "--debug"}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("args = %q, %v; want %q", got, err, want)
	}
	got, err = d.args(&driver.Request{}, "/o/p.toml", "-/t/tools.toml").List()
	want = []string{"--policy=/o/p.toml", "--policy=-/t/tools.toml", "--output-format=stream-json", "--model=--yolo", "--approval-mode=plan", "--skip-trust", "--debug"}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("args with a tools policy = %q, %v; want %q", got, err, want)
	}
}

// TestCommaInCacheRoot checks that a policy path Gemini CLI would split is
// refused before the start.
func TestCommaInCacheRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in program is a shell script")
	}
	bin := t.TempDir()
	fake := filepath.Join(bin, "gemini")
	os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	root := filepath.Join(t.TempDir(), "a,b")
	os.Mkdir(root, 0o700)
	d := Driver(Config{Command: fake, CacheRoot: root, Home: t.TempDir()})
	_, err := d.Run(t.Context(), &driver.Request{Prompt: "x", Workspace: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "comma") {
		t.Errorf("run = %v, want a refusal naming the comma", err)
	}
}
