package install

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pinnedText returns the SKILL.md of the folder Pinned returns for req.
func pinnedText(t *testing.T, in *Installer, req PinnedRequest) (string, error) {
	t.Helper()
	s, err := in.Pinned(t.Context(), req)
	if err != nil {
		return "", err
	}
	if s.Key != req.Name {
		t.Errorf("Pinned(%q).Key = %q, want the name", req.Name, s.Key)
	}
	type pather interface{ SkillPath() string }
	p, ok := s.Source.(pather)
	if !ok {
		t.Fatalf("Pinned(%q) is not a folder: %T", req.Name, s.Source)
	}
	return readFile(t, filepath.Join(p.SkillPath(), "SKILL.md")), nil
}

// TestPinned checks that Pinned returns the content the lock file
// records: from the skill cache, from the installed copy unchanged since,
// from the source when it still holds it; that it refuses a source and
// copy that both changed (ErrDrift), a name not installed
// (ErrNotInstalled), and a digest the cache does not hold; and that it
// changes nothing.
func TestPinned(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "review", "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	before := lockBytes(t, f)

	// The source unchanged: its content.
	if got, err := pinnedText(t, in, PinnedRequest{Name: "review"}); err != nil || got != skillMD("review") {
		t.Errorf("Pinned(review) = %q, %v, want the installed content", got, err)
	}

	// The source edited: the installed copy, unchanged, is the content
	// recorded; then the cache holds it.
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("review")+"v2\n"), 0o644)
	if got, err := pinnedText(t, in, PinnedRequest{Name: "review"}); err != nil || got != skillMD("review") {
		t.Errorf("Pinned(review) of an edited source = %q, %v, want the recorded content", got, err)
	}

	// A dry-run update puts the new content in the cache: Pinned with its
	// digest returns it.
	ups, _, err := in.Update(ctx, UpdateRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	up := updateOf(t, ups, "review")
	if got, err := pinnedText(t, in, PinnedRequest{Name: "review", Digest: up.Digest}); err != nil || got != skillMD("review")+"v2\n" {
		t.Errorf("Pinned(review, new digest) = %q, %v, want the new content", got, err)
	}
	if _, err := in.Pinned(ctx, PinnedRequest{Name: "review", Digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000"}); !errors.Is(err, ErrSourceUnavailable) {
		t.Errorf("Pinned(review, a digest not cached) = %v, want ErrSourceUnavailable", err)
	}
	if _, err := in.Pinned(ctx, PinnedRequest{Name: "nope"}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("Pinned(nope) = %v, want ErrNotInstalled", err)
	}
	// No name: rule 7's SUBJECT: SENTINEL: DETAIL, the subject the
	// empty name, the detail what to do.
	if _, err := in.Pinned(ctx, PinnedRequest{}); !errors.Is(err, ErrNotInstalled) ||
		!strings.HasPrefix(err.Error(), `skill "": `+ErrNotInstalled.Error()+": no skill name given") || !strings.Contains(err.Error(), "agentskills list") {
		t.Errorf("Pinned() = %v, want `skill \"\": %v: no skill name given...`, naming what to do", err, ErrNotInstalled)
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("Pinned changed the lock file")
	}
}

// TestPinnedWithoutCache checks where Pinned reads the recorded content
// with an empty skill cache: the source, when it still holds it; the
// installed copy, when only the source changed; nowhere, when both
// changed: ErrDrift, never the other content.
func TestPinnedWithoutCache(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		editSource, editCopy bool
		wantDrift            bool
	}{
		{name: "source unchanged", editCopy: true},
		{name: "source changed, copy unchanged", editSource: true},
		{name: "both changed", editSource: true, editCopy: true, wantDrift: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			src := f.writeSkill(t, "review", "review", "")
			if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(f.env.Home, ".cache"))
			if tc.editSource {
				os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("review")+"v2\n"), 0o644)
			}
			if tc.editCopy {
				os.WriteFile(filepath.Join(f.env.Project, ".agents", "skills", "review", "SKILL.md"), []byte(skillMD("review")+"mine\n"), 0o644)
			}
			got, err := pinnedText(t, f.installer(t), PinnedRequest{Name: "review"})
			switch {
			case tc.wantDrift && !errors.Is(err, ErrDrift):
				t.Errorf("Pinned(review) = %q, %v, want ErrDrift", got, err)
			case !tc.wantDrift && (err != nil || got != skillMD("review")):
				t.Errorf("Pinned(review) = %q, %v, want the recorded content", got, err)
			}
		})
	}
}

// TestUpdateDigests checks that an update given the digests a dry run
// reported installs them, and that one whose source moved since fails
// with ErrDrift, naming both digests, changing nothing.
func TestUpdateDigests(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "review", "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("review")+"v2\n"), 0o644)
	ups, _, err := in.Update(ctx, UpdateRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := updateOf(t, ups, "review").Digest

	// The source moves again after the check.
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("review")+"v3\n"), 0o644)
	before := lockBytes(t, f)
	_, _, err = in.Update(ctx, UpdateRequest{Digests: map[string]string{"review": checked}})
	if !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), checked) {
		t.Errorf("Update(Digests: the checked one) of a source moved since = %v, want ErrDrift naming %s", err, checked)
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("a refused Update changed the lock file")
	}

	// Back at the checked content: installed.
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("review")+"v2\n"), 0o644)
	ups, _, err = in.Update(ctx, UpdateRequest{Digests: map[string]string{"review": checked}})
	if err != nil || updateOf(t, ups, "review").Digest != checked {
		t.Errorf("Update(Digests: the checked one) = %+v, %v, want the checked digest installed", ups, err)
	}
}

// TestInstalledAgents checks that InstalledAgents lists the agents the
// lock file records, not every agent that reads their folders, and none
// without a lock file.
func TestInstalledAgents(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	if got, err := in.InstalledAgents(t.Context()); err != nil || len(got) != 0 {
		t.Errorf("InstalledAgents() without a lock file = %v, %v, want none", got, err)
	}
	src := f.writeSkill(t, "review", "review", "")
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex", "claude-code")}); err != nil {
		t.Fatal(err)
	}
	got, err := in.InstalledAgents(t.Context())
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ID)
	}
	if err != nil || strings.Join(ids, ",") != "claude-code,codex" {
		t.Errorf("InstalledAgents() = %v, %v, want claude-code,codex", ids, err)
	}
}

// A damaged cache tree of the recorded digest: Pinned must not return it.
func TestPinnedDamagedCache(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "review", "")
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	// The first Pinned puts the recorded content in the skill cache.
	if _, err := pinnedText(t, in, PinnedRequest{Name: "review"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(filepath.Join(f.env.Home, ".cache"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "SKILL.md" {
			os.Chmod(filepath.Dir(p), 0o755)
			os.Chmod(p, 0o644)
			if os.WriteFile(p, []byte(skillMD("review")+"PLANTED\n"), 0o644) == nil {
				n++
			}
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no cache tree found")
	}
	got, err := pinnedText(t, f.installer(t), PinnedRequest{Name: "review"})
	if err != nil || strings.Contains(got, "PLANTED") {
		t.Errorf("Pinned with a damaged cache = %q, %v; want the recorded content", got, err)
	}
}

// TestPinnedErrorNamesSkill checks that each failure of Pinned starts
// with its subject, the skill: a digest the cache lacks, and a recorded
// source that is gone.
func TestPinnedErrorNamesSkill(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "review", "")
	if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	in := f.installer(t)
	_, err := in.Pinned(t.Context(), PinnedRequest{Name: "review", Digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000"})
	if err == nil || !strings.HasPrefix(err.Error(), "skill review: ") {
		t.Errorf("Pinned(a digest not cached) = %v, want it to start with the skill", err)
	}
	os.RemoveAll(filepath.Join(f.env.Home, ".cache"))
	os.RemoveAll(src)
	os.WriteFile(filepath.Join(f.env.Project, ".agents", "skills", "review", "SKILL.md"), []byte(skillMD("review")+"mine\n"), 0o644)
	_, err = f.installer(t).Pinned(t.Context(), PinnedRequest{Name: "review"})
	if err == nil || !strings.HasPrefix(err.Error(), "skill review: ") || strings.Count(err.Error(), "skill review") > 1 {
		t.Errorf("Pinned(a source gone) = %v, want it to start with the skill, once", err)
	}
}
