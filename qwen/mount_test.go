package qwen

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

func TestSystemDefaultsPath(t *testing.T) {
	tests := []struct {
		name, goos string
		env        []string
		want       string
	}{
		{"linux", "linux", nil, filepath.Join("/etc/qwen-code", "system-defaults.json")},
		{"darwin", "darwin", nil, filepath.Join("/Library/Application Support/QwenCode", "system-defaults.json")},
		{"defaults variable", "linux", []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=/x/d.json", "QWEN_CODE_SYSTEM_SETTINGS_PATH=/y/s.json"}, "/x/d.json"},
		{"beside the settings variable", "linux", []string{"QWEN_CODE_SYSTEM_SETTINGS_PATH=/y/s.json"}, filepath.Join("/y", "system-defaults.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := systemDefaultsPath(tt.env, tt.goos); got != tt.want {
				t.Errorf("systemDefaultsPath(%q, %q) = %q, want %q", tt.env, tt.goos, got, tt.want)
			}
		})
	}
}

// TestDefaults checks rule 2 of "Mounting skills": the user's system
// defaults are kept, the mount is added to skills.directories, managed
// memory extraction is turned off when asked, and a file the driver
// cannot read whole fails the run naming it.
func TestDefaults(t *testing.T) {
	tests := []struct {
		name     string
		user     string // "" for no file
		noMemory bool
		want     string // the run's file, as JSON
		listed   []string
		wantErr  string
	}{
		{"no file", "", false, `{"skills":{"directories":["/mount"]}}`, nil, ""},
		{"kept and merged", `{"model":{"name":"q"},"skills":{"disabledLevels":["bundled"],"directories":["/theirs"]}}`, false,
			`{"model":{"name":"q"},"skills":{"disabledLevels":["bundled"],"directories":["/theirs","/mount"]}}`, []string{"/theirs"}, ""},
		{"no memory", "", true, `{"skills":{"directories":["/mount"]},"memory":{"enableManagedAutoMemory":false}}`, nil, ""},
		{"no memory, kept and merged", `{"memory":{"enableManagedAutoDream":true,"enableManagedAutoMemory":true}}`, true,
			`{"skills":{"directories":["/mount"]},"memory":{"enableManagedAutoDream":true,"enableManagedAutoMemory":false}}`, nil, ""},
		{"memory not an object", `{"memory":[]}`, true, "", nil, "memory is not an object"},
		{"comments", "// mine\n{}", false, "", nil, "not a JSON object"},
		{"not an object", `[1]`, false, "", nil, "not a JSON object"},
		{"null", `null`, false, "", nil, "not a JSON object"},
		{"skills not an object", `{"skills":3}`, false, "", nil, "skills is not an object"},
		{"directories not a list", `{"skills":{"directories":"/x"}}`, false, "", nil, "skills.directories is not a list"},
		{"too large", `{"x":"` + strings.Repeat("a", maxDefaults) + `"}`, false, "", nil, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := filepath.Join(t.TempDir(), "system-defaults.json")
			if tt.user != "" {
				if err := os.WriteFile(user, []byte(tt.user), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, listed, err := defaults([]string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + user}, "linux", "/mount", tt.noMemory)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), user) {
					t.Errorf("defaults = %v, want an error naming %s that says %q", err, user, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			json.Unmarshal(b, &got)
			json.Unmarshal([]byte(tt.want), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the run's defaults (-want +got):\n%s", diff)
			}
			if !cmp.Equal(listed, tt.listed) {
				t.Errorf("listed = %q, want %q", listed, tt.listed)
			}
			if after, _ := os.ReadFile(user); tt.user != "" && string(after) != tt.user {
				t.Errorf("the user's file changed: %q", after)
			}
		})
	}
}

// TestDefaultsFile checks rules 1 and 2 of "Mounting skills": the run's
// system defaults lie beside the mount, are written once per content and
// used again, and a run without skills that turns memory off gets a file
// of its own that goes with the run.
func TestDefaultsFile(t *testing.T) {
	root := cachetest.Root(t)
	src := t.TempDir()
	a := cachetest.WriteSkill(t, src, "a", "A")
	rs := driver.ResolvedSkills{Fingerprint: "fp", Entries: []driver.ResolvedSkill{{Key: "a", RuntimeName: "a", Path: a}}}
	user := filepath.Join(t.TempDir(), "system-defaults.json")
	env := []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + user}
	run := func(noMemory bool) (string, string) {
		t.Helper()
		dir, path, _, release, err := mount(t.Context(), root, rs, env, "linux", noMemory)
		if err != nil {
			t.Fatal(err)
		}
		release()
		return dir, path
	}
	dir, first := run(false)
	if filepath.Dir(first) != filepath.Dir(filepath.Dir(dir)) {
		t.Errorf("system defaults %s are not beside the mount %s", first, filepath.Dir(dir))
	}
	fi, err := os.Lstat(first)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("system defaults %v, %v; want a file of mode 0600", fi, err)
	}
	if _, again := run(false); again != first {
		t.Errorf("the same defaults were written to %s, then %s; want one file", first, again)
	} else if fi2, err := os.Lstat(again); err != nil || !os.SameFile(fi, fi2) {
		t.Errorf("the same defaults were written again (%v)", err)
	}
	if _, other := run(true); other == first {
		t.Errorf("other defaults went to the same file %s", other)
	}
	os.WriteFile(user, []byte(`{"model":{"name":"q"}}`), 0o600)
	if _, other := run(false); other == first {
		t.Errorf("the user's changed defaults went to the same file %s", other)
	}
	os.WriteFile(first, []byte(`{}`), 0o600)
	os.WriteFile(user, nil, 0o600)
	os.Remove(user)
	if _, again := run(false); again != first {
		t.Errorf("defaults back as at first went to %s, want %s", again, first)
	} else if b, _ := os.ReadFile(first); !strings.Contains(string(b), dir) {
		t.Errorf("a changed defaults file was used as it was: %s", b)
	}

	path, remove, err := writeDefaults(env, "linux", true)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"enableManagedAutoMemory": false`) {
		t.Errorf("the defaults of a run without skills and memory: %s", b)
	}
	remove()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("after remove, the run's folder: %v; want it gone", err)
	}
}

// TestArgs checks rule 2 of "Arguments": every value goes with its
// option in one argument.
func TestArgs(t *testing.T) {
	d := Driver(Config{Model: "-m", ApprovalMode: "--yolo", MaxSessionTurns: 3, AppendSystemPrompt: "--x", PartialMessages: true, Args: []string{"--debug"}}).(*qwenDriver)
	req := &driver.Request{Resume: "3f0c6a8e-8d1f-4c4e-9a55-2a1d6f0b7c11", Skills: driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a"}}}}
	got, err := d.args(req).List()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--output-format=stream-json", "--include-partial-messages", "--resume=3f0c6a8e-8d1f-4c4e-9a55-2a1d6f0b7c11",
		"--model=-m", "--approval-mode=--yolo", "--allowed-tools=skill", "--max-session-turns=3", "--append-system-prompt=--x", "--debug"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	d = Driver(Config{AllowedTools: []string{"run_shell_command", "-y"}, DisallowedTools: []string{"--yolo", "web_fetch"}}).(*qwenDriver)
	got, err = d.args(req).List()
	want = []string{"--output-format=stream-json", "--resume=3f0c6a8e-8d1f-4c4e-9a55-2a1d6f0b7c11", "--approval-mode=default",
		"--allowed-tools=run_shell_command", "--allowed-tools=-y", "--allowed-tools=skill", "--exclude-tools=--yolo", "--exclude-tools=web_fetch"}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("args with tools (-want +got), %v:\n%s", err, diff)
	}
	got, _ = Driver(Config{AllowedTools: []string{"skill"}}).(*qwenDriver).args(req).List()
	if n := len(slices.DeleteFunc(got, func(a string) bool { return a != "--allowed-tools=skill" })); n != 1 {
		t.Errorf("args allow skill %d times, want once", n)
	}
	got, _ = Driver(Config{}).(*qwenDriver).args(&driver.Request{}).List()
	if want := []string{"--output-format=stream-json", "--approval-mode=default"}; !cmp.Equal(got, want) {
		t.Errorf("args of the zero Config = %q, want %q", got, want)
	}
}

// TestOtherSkillsDirs checks rule 1 of "Checks": the folders come from
// Qwen Code's row, with QWEN_HOME honoured and the folders listed in
// skills.directories added, resolved as Qwen Code resolves them.
func TestOtherSkillsDirs(t *testing.T) {
	ws := filepath.FromSlash("/w/p")
	tests := []struct {
		name   string
		env    []string
		listed []string
		want   []string
	}{
		{"home", []string{"HOME=/h"}, nil, []string{
			filepath.Join(ws, ".qwen/skills"), filepath.Join(ws, ".agents/skills"),
			filepath.Join("/h", ".qwen/skills"), filepath.Join("/h", ".agents/skills"),
		}},
		{"QWEN_HOME", []string{"HOME=/h", "QWEN_HOME=/q"}, []string{"/extra", "relative"}, []string{
			filepath.Join(ws, ".qwen/skills"), filepath.Join(ws, ".agents/skills"),
			filepath.Join("/q", "skills"), filepath.Join("/h", ".agents/skills"), "/extra", filepath.Join(ws, "relative"),
		}},
		{"home, variables and a folder listed twice", []string{"HOME=/h", "SK=/v"}, []string{"~/mine", "$SK/a", "${SK}/b", "$UNSET/c", "%USERPROFILE%/d", "/h/mine"}, []string{
			filepath.Join(ws, ".qwen/skills"), filepath.Join(ws, ".agents/skills"),
			filepath.Join("/h", ".qwen/skills"), filepath.Join("/h", ".agents/skills"),
			filepath.Join("/h", "mine"), filepath.Join("/v", "a"), filepath.Join("/v", "b"), filepath.Join(ws, "$UNSET", "c"), filepath.Join("/h", "d"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := otherSkillsDirs(tt.env, ws, tt.listed); !cmp.Equal(got, tt.want) {
				t.Errorf("otherSkillsDirs(%q) = %q, want %q", tt.env, got, tt.want)
			}
		})
	}
}

// TestCheckShadows: a skill of the workspace's .agents/skills with our
// name and other content refuses the run; the same content does not.
func TestCheckShadows(t *testing.T) {
	write := func(dir, body string) string {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: d\n---\n"+body), 0o644)
		return dir
	}
	root := t.TempDir()
	ours := write(filepath.Join(root, "cache", "review"), "ours")
	mountDir := filepath.Join(root, "mount")
	os.MkdirAll(mountDir, 0o755)
	if err := os.Symlink(ours, filepath.Join(mountDir, "review")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "review", RuntimeName: "review", Path: ours}}}
	ws := filepath.Join(root, "ws")
	dirs := otherSkillsDirs([]string{"HOME=" + filepath.Join(root, "home")}, ws, nil)

	write(filepath.Join(ws, ".agents", "skills", "review"), "ours")
	if err := checkShadows(t.Context(), rs, mountDir, dirs); err != nil {
		t.Errorf("same content: checkShadows = %v, want nil", err)
	}
	theirs := write(filepath.Join(ws, ".agents", "skills", "review"), "theirs")
	var se *driver.ShadowError
	if err := checkShadows(t.Context(), rs, mountDir, dirs); !errors.As(err, &se) || !strings.Contains(err.Error(), theirs) {
		t.Errorf("other content: checkShadows = %v, want a ShadowError naming %s", err, theirs)
	}
}
