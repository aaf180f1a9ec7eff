package install

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/signature"
)

// TestSettingNames checks that a message that tells the user which
// setting to change names the SDK's field, and the name WithSettingNames
// gives it instead (a command-line tool's flag), never both.
func TestSettingNames(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{"skills/long/SKILL.md": badSkillMD("long")})
	flags := map[string]string{SettingAddLenient: "--lenient", SettingImportFrom: "--from", SettingAddSkills: "--skill"}
	for _, tt := range []struct {
		name      string
		opts      []Option
		want, not string
	}{
		{"the SDK's names", nil, "AddRequest.Lenient", "--lenient"},
		{"a tool's names", []Option{WithSettingNames(flags)}, "--lenient", "AddRequest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := New(f.env, append([]Option{WithCache(lenientInstaller(f).cache), WithLockDir(filepath.Join(f.env.Home, ".locks"))}, tt.opts...)...)
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex")})
			if err == nil || !strings.Contains(err.Error(), "("+tt.want+" installs a skill that breaks the Agent Skills specification") || strings.Contains(err.Error(), tt.not) {
				t.Errorf("Add(a skill that breaks the specification) = %v; want it to name %s, not %s", err, tt.want, tt.not)
			}
			want := strings.ReplaceAll(strings.ReplaceAll(tt.want, "AddRequest.Lenient", "ImportRequest.From"), "--lenient", "--from")
			if _, err := in.Import(t.Context(), ImportRequest{From: "pip"}); err == nil || !strings.HasPrefix(err.Error(), want+": ") || !strings.Contains(err.Error(), `"pip"`) {
				t.Errorf("Import(From: pip) = %v; want it to name %s", err, want)
			}
		})
	}
}

// TestSignerChangedNames checks that the refusal of a changed signer names
// Trust.AcceptSigners, or the name WithSettingNames gives it.
func TestSignerChangedNames(t *testing.T) {
	e := &SignerChangedError{Source: "oci://r/s:1", Recorded: signature.Signer{KeyID: "sha256:old"}, Found: signature.Signer{KeyID: "sha256:new"}}
	if got := e.Error(); !strings.Contains(got, `Trust.AcceptSigners "sha256:new"`) {
		t.Errorf("Error() = %q; want it to name Trust.AcceptSigners", got)
	}
	e.accept = New(Env{}, WithSettingNames(map[string]string{SettingAcceptSigners: "--accept-signer"})).setting(SettingAcceptSigners)
	if got := e.Error(); !strings.Contains(got, `--accept-signer "sha256:new"`) || strings.Contains(got, "Trust.") {
		t.Errorf("Error() = %q; want it to name --accept-signer alone", got)
	}
}

// TestMethodNames checks that a message that tells the user to remove a
// skill first names Installer.Remove, or the name WithSettingNames gives
// it (a command-line tool's command).
func TestMethodNames(t *testing.T) {
	for _, tt := range []struct {
		name      string
		opts      []Option
		want, not string
	}{
		{"the SDK's names", nil, "remove it first with Installer.Remove to install it from", "'agentskills"},
		{"a tool's names", []Option{WithSettingNames(map[string]string{SettingRemove: "'agentskills remove'"})}, "remove it first with 'agentskills remove' to install it from", "Installer."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			in := f.installer(t, tt.opts...)
			for i, rel := range []string{"one/kit", "two/kit"} {
				_, err := in.Add(t.Context(), AddRequest{Sources: []string{f.writeSkill(t, rel, "kit", "")}, Agents: agentsOf(t, "codex")})
				if i == 0 && err != nil {
					t.Fatal(err)
				}
				if i == 1 && (!errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), tt.not)) {
					t.Errorf("Add(kit from another source) = %v; want a conflict saying %q", err, tt.want)
				}
			}
		})
	}
}

// TestGitMissingNamesNoOption checks that an installer on a machine
// without git advises installing it, and names no option of package
// source/git: the installer has none that sets git's program.
func TestGitMissingNamesNoOption(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := newFixture(t)
	_, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{"https://git.example.invalid/o/kit.git"}, Agents: agentsOf(t, "codex")})
	if err == nil || !strings.Contains(err.Error(), "(install git)") || strings.Contains(err.Error(), "With") {
		t.Errorf("Add(a git source, no git) = %v; want it to advise installing git alone", err)
	}
}

// TestInstalled checks that Installed names the skills the lock file
// records, sorted, and none without a lock file.
func TestInstalled(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	if names, err := in.Installed(t.Context()); err != nil || len(names) != 0 {
		t.Fatalf("Installed() before any add = %q, %v; want none", names, err)
	}
	for _, name := range []string{"zeta", "alpha"} {
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{f.writeSkill(t, name, name, "")}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
	}
	if names, err := in.Installed(t.Context()); err != nil || !slices.Equal(names, []string{"alpha", "zeta"}) {
		t.Errorf("Installed() = %q, %v; want [alpha zeta]", names, err)
	}
}
