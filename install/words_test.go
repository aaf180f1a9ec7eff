package install

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// flag matches a command-line flag of agentskills, which a message of
// this library must not name: the library speaks of itself, and the
// command adds its flags (rule 8).
var flag = regexp.MustCompile(`(^|[\s(])--[a-z]`)

// TestMessagesNameNoFlag checks that what the library says about a
// refused request, an edited skill, a link out of the project and two
// skills of one name names no command-line flag.
func TestMessagesNameNoFlag(t *testing.T) {
	tests := []struct {
		name string
		say  func(t *testing.T, f *fixture) string
	}{
		{"an edited skill", func(t *testing.T, f *fixture) string {
			in := f.installer(t)
			src := f.writeSkill(t, "foo", "foo", "")
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(f.canonicalOf("foo"), "SKILL.md"), []byte(skillMD("foo")+"edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}, Agents: agentsOf(t, "codex")})
			if err == nil {
				t.Fatal("Remove of an edited skill succeeded")
			}
			return err.Error()
		}},
		{"a strict request", func(t *testing.T, f *fixture) string {
			f.writeSkill(t, "kit/good", "good", "")
			bad := filepath.Join(f.sources, "kit", "bad")
			os.MkdirAll(bad, 0o755)
			os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("---\nname: bad\n---\n"), 0o644)
			c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")))
			in := New(f.env, WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")))
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "codex"), Strict: true})
			if err == nil {
				t.Fatal("a strict Add of a source with a broken skill succeeded")
			}
			return err.Error()
		}},
		{"a link out of the project", func(t *testing.T, f *fixture) string {
			src := f.writeSkill(t, "foo", "foo", "")
			userClaude := filepath.Join(f.env.Home, ".claude")
			os.MkdirAll(filepath.Join(userClaude, "skills"), 0o755)
			os.Symlink(userClaude, filepath.Join(f.env.Project, ".claude"))
			_, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if err == nil {
				t.Fatal("Add through a link out of the project succeeded")
			}
			return err.Error()
		}},
		{"two skills of one name", func(t *testing.T, f *fixture) string {
			f.writeSkill(t, "kit/a/twin", "twin", "one\n")
			f.writeSkill(t, "kit/b/twin", "twin", "two\n")
			f.writeSkill(t, "kit/other", "other", "")
			changes, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "codex")})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				if c.Action == ActionSkipped {
					return c.Reason
				}
			}
			t.Fatalf("Add of two skills of one name skipped neither: %+v", changes)
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.say(t, newFixture(t)); flag.MatchString(got) {
				t.Errorf("%s: %q names a command-line flag", tt.name, got)
			}
		})
	}
}
