package install

import (
	"path/filepath"
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
