package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsDirs checks rule 1 of "Checks": the folders named in
// skills.directories of the user's and the project's settings are read
// as Qwen Code reads them (JSON with comments), the project's not when
// the workspace is the home folder, and a file that cannot be read fails
// naming it.
func TestSettingsDirs(t *testing.T) {
	tests := []struct {
		name      string
		user      string // ~/.qwen/settings.json, "" for none
		project   string // .qwen/settings.json of the workspace, "" for none
		qwenHome  bool   // the user's settings are in $QWEN_HOME
		wsIsHome  bool
		want      []string
		wantError string
	}{
		{name: "none"},
		{name: "user's", user: `{"skills":{"directories":["/u", " ~/v "]}}`, want: []string{"/u", "~/v"}},
		{name: "comments", user: "\ufeff// mine\n{\"skills\": /* here */ {\"directories\": [\"/u//x\", \"/*y*/\"]}}\n", want: []string{"/u//x", "/*y*/"}},
		{name: "project's after the user's", user: `{"skills":{"directories":["/u"]}}`, project: `{"skills":{"directories":["p"]}}`, want: []string{"/u", "p"}},
		{name: "QWEN_HOME", user: `{"skills":{"directories":["/q"]}}`, qwenHome: true, want: []string{"/q"}},
		{name: "workspace is home: read once", user: `{"skills":{"directories":["/u"]}}`, wsIsHome: true, want: []string{"/u"}},
		{name: "not a list", user: `{"skills":{"directories":"/u"}}`},
		{name: "not strings", user: `{"skills":{"directories":[1, "", "/u"]}}`, want: []string{"/u"}},
		{name: "bad user's", user: `{"skills":`, wantError: filepath.Join(".qwen", "settings.json")},
		{name: "bad project's", project: `{,}`, wantError: filepath.Join("ws", ".qwen", "settings.json")},
		{name: "too large", user: `{"x":"` + strings.Repeat("a", maxSettings) + `"}`, wantError: "larger than"},
		{name: "not a file", user: "DIR", wantError: "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			ws := filepath.Join(t.TempDir(), "ws")
			if tt.wsIsHome {
				ws = home
			}
			env := []string{"HOME=" + home}
			userDir := filepath.Join(home, ".qwen")
			if tt.qwenHome {
				userDir = filepath.Join(t.TempDir(), "qh")
				env = append(env, "QWEN_HOME="+userDir)
			}
			write := func(dir, content string) {
				if content == "" {
					return
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if content == "DIR" {
					if err := os.Mkdir(filepath.Join(dir, "settings.json"), 0o755); err != nil {
						t.Fatal(err)
					}
					return
				}
				if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(userDir, tt.user)
			write(filepath.Join(ws, ".qwen"), tt.project)
			got, err := settingsDirs(env, ws)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Errorf("settingsDirs = %q, %v; want an error saying %q", got, err, tt.wantError)
				}
				return
			}
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Errorf("settingsDirs = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
