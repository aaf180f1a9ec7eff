package qwen_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// writeSkill writes dir/SKILL.md for a skill named greet with body.
func writeSkill(t *testing.T, dir, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: greet\ndescription: Greets.\n---\n"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRealSettingsDirectoriesShadow checks rule 1 of "Checks" against
// the real Qwen Code: a skill under the name of the run's, in a folder
// that skills.directories of the user's or the project's settings names,
// refuses the run before Qwen Code starts when its content differs, and
// does not when it is the same. With the same content the run goes on,
// which shows that Qwen Code reads those settings as the driver does.
func TestRealSettingsDirectoriesShadow(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	for _, tt := range []struct {
		name    string
		project bool   // the project's settings name the folder, else the user's
		entry   string // how the settings name the folder
		body    string
		refused bool
	}{
		{"user's, other content", false, "ABS", "THEIR-BODY", true},
		{"user's, same content", false, "ABS", "GREET-BODY-MARK", false},
		{"user's, from home", false, "~/team-skills", "THEIR-BODY", true},
		{"project's, other content", true, "team-skills", "THEIR-BODY", true},
		{"project's, same content", true, "team-skills", "GREET-BODY-MARK", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("Hello.")))
			env, home := s.QwenEnv(t)
			env = append(env, "PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"))
			ws := t.TempDir()
			settingsDir, base := filepath.Join(home, ".qwen"), home
			if tt.project {
				settingsDir, base = filepath.Join(ws, ".qwen"), ws
			}
			folder := filepath.Join(base, "team-skills")
			entry := tt.entry
			if entry == "ABS" {
				folder = filepath.Join(t.TempDir(), "team-skills")
				entry = folder
			}
			theirs := writeSkill(t, filepath.Join(folder, "greet"), tt.body)
			if err := os.MkdirAll(settingsDir, 0o755); err != nil {
				t.Fatal(err)
			}
			settings := `{"skills": {"directories": [` + strings.ReplaceAll(`"`+entry+`"`, `\`, `\\`) + `]}} // the team's`
			if err := os.WriteFile(filepath.Join(settingsDir, "settings.json"), []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			ours := writeSkill(t, filepath.Join(t.TempDir(), "greet"), "GREET-BODY-MARK")
			d := qwen.Driver(qwen.Config{Env: env, CacheRoot: t.TempDir()})
			res, err := d.Run(t.Context(), &driver.Request{
				Prompt: "hi", Workspace: ws,
				Skills: driver.ResolvedSkills{Fingerprint: "f", Entries: []driver.ResolvedSkill{{Key: "greet", RuntimeName: "greet", Path: ours}}},
			})
			var se *driver.ShadowError
			if tt.refused {
				if !errors.As(err, &se) || se.Theirs != theirs {
					t.Errorf("Run = %+v, %v; want a *driver.ShadowError naming %s", res, err, theirs)
				}
				if n := len(s.Requests()); n != 0 {
					t.Errorf("the refused run sent %d requests: Qwen Code started", n)
				}
				return
			}
			if err != nil || res.Text != "Hello." {
				t.Fatalf("Run = %+v, %v; want Hello.", res, err)
			}
		})
	}
}
