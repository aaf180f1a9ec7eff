package install

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdateLenient checks what bench/updatecorpus found in Anthropic's
// skills repository: a skill installed while it met the Agent Skills
// specification whose new content breaks only the specification (its
// description grew past 1,024 characters) fails an Update, changing
// nothing and saying how to go on; UpdateRequest.Lenient updates it and
// the lock file then records it as installed leniently, so that a sync
// installs it again.
func TestUpdateLenient(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{"skills/long/SKILL.md": skillMD("long"), "skills/ok/SKILL.md": skillMD("ok")})
	in := lenientInstaller(f)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code"), Lenient: true}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, repo, map[string]string{"skills/long/SKILL.md": badSkillMD("long"), "skills/ok/SKILL.md": skillMD("ok") + "v2\n"})
	before := lockBytes(t, f)
	for _, dry := range []bool{true, false} {
		_, _, err := in.Update(ctx, UpdateRequest{DryRun: dry})
		if !errors.Is(err, ErrSpecification) || !strings.Contains(err.Error(), "UpdateRequest.Lenient") {
			t.Errorf("Update(DryRun: %v) to content that breaks the specification = %v, want ErrSpecification naming UpdateRequest.Lenient", dry, err)
		}
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("a refused Update changed the lock file")
	}
	ups, _, err := in.Update(ctx, UpdateRequest{Lenient: true})
	if err != nil {
		t.Fatalf("Update(Lenient) = %v", err)
	}
	if u := updateOf(t, ups, "long"); u.Digest == u.PreviousDigest {
		t.Errorf("Update(Lenient) left long's content: %+v", u)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil || !lock.Skills["long"].Lenient || lock.Skills["ok"].Lenient {
		t.Fatalf("lock after Update(Lenient) = %+v, %v, want long alone recorded lenient", lock, err)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "long", "SKILL.md")); got != badSkillMD("long") {
		t.Errorf("Update(Lenient) installed %q", got)
	}
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "long"))
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("Sync after Update(Lenient) = %v", err)
	}
}

// TestUpdateSkillGoneFromSource checks what bench/updatecorpus found in
// five of ten published repositories: a skill whose folder the source no
// longer holds (removed, or its SKILL.md renamed to another name) is
// reported changed by Outdated, with the reason, and fails an Update,
// changing nothing, with an error naming the skill and saying what to do;
// the other skills are updated when named.
func TestUpdateSkillGoneFromSource(t *testing.T) {
	tests := []struct {
		name string
		gone map[string]string // files written after the add; "" removes the skill's folder
	}{
		{name: "folder removed", gone: map[string]string{"skills/old": ""}},
		{name: "renamed in its SKILL.md", gone: map[string]string{"skills/old/SKILL.md": skillMD("new")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			repo := filepath.Join(f.sources, "repo")
			writeFiles(t, repo, map[string]string{"skills/old/SKILL.md": skillMD("old"), "skills/ok/SKILL.md": skillMD("ok")})
			in := f.installer(t)
			ctx := t.Context()
			if _, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, repo, map[string]string{"skills/ok/SKILL.md": skillMD("ok") + "v2\n"})
			for p, data := range tt.gone {
				if data == "" {
					os.RemoveAll(filepath.Join(repo, p))
					continue
				}
				writeFiles(t, repo, map[string]string{p: data})
			}
			rows, err := in.Outdated(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st := states(rows); st["old"] != OutdatedChanged || st["ok"] != OutdatedChanged {
				t.Errorf("Outdated = %v, want both changed", st)
			}
			before := lockBytes(t, f)
			_, _, err = in.Update(ctx, UpdateRequest{})
			if !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), "old:") || !strings.Contains(err.Error(), "remove it") {
				t.Errorf("Update with a skill gone = %v, want ErrDrift naming old and saying to remove it", err)
			}
			if !bytes.Equal(before, lockBytes(t, f)) {
				t.Error("a failed Update changed the lock file")
			}
			if _, _, err := in.Update(ctx, UpdateRequest{Names: []string{"ok"}}); err != nil {
				t.Errorf("Update(ok) = %v", err)
			}
		})
	}
}
