package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/signature"
)

// updateOf returns the SkillUpdate of name in ups.
func updateOf(t *testing.T, ups []SkillUpdate, name string) SkillUpdate {
	t.Helper()
	i := slices.IndexFunc(ups, func(u SkillUpdate) bool { return u.Skill == name })
	if i < 0 {
		t.Fatalf("no update of %s in %+v", name, ups)
	}
	return ups[i]
}

// TestUpdateGitHubMovesPinsAndReportsFiles checks rule 14's Update of a
// GitHub source: the pins move, the new content is installed, the files
// added, removed and changed are reported, a dry run before changes
// nothing, and Outdated is all current after.
func TestUpdateGitHubMovesPinsAndReportsFiles(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{
		"skills/alpha/SKILL.md":  skillMD("alpha"),
		"skills/alpha/old.md":    "old\n",
		"skills/alpha/keep.md":   "keep\n",
		"skills/alpha/change.md": "1\n",
		"skills/beta/SKILL.md":   skillMD("beta"),
	})
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code", "cursor")}); err != nil {
		t.Fatal(err)
	}
	g.publish("HEAD", commitB, map[string]string{
		"skills/alpha/SKILL.md":  skillMD("alpha"),
		"skills/alpha/new.md":    "new\n",
		"skills/alpha/keep.md":   "keep\n",
		"skills/alpha/change.md": "2\n",
		"skills/beta/SKILL.md":   skillMD("beta"),
	})

	// A dry run reports and changes nothing.
	beforeLock, beforeTree := lockBytes(t, f), treeSnapshot(t, f.env.Project)
	ups, changes, err := in.Update(ctx, UpdateRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 0 {
		t.Errorf("dry run made changes %v", actions(changes))
	}
	if !bytes.Equal(beforeLock, lockBytes(t, f)) {
		t.Error("a dry run changed the lock file")
	}
	if after := treeSnapshot(t, f.env.Project); !maps.Equal(beforeTree, after) {
		t.Errorf("a dry run changed the project:\n%v\nwant\n%v", after, beforeTree)
	}
	a := updateOf(t, ups, "alpha")
	if !slices.Equal(a.Added, []string{"new.md"}) || !slices.Equal(a.Removed, []string{"old.md"}) || !slices.Equal(a.Changed, []string{"change.md"}) {
		t.Errorf("dry run alpha = added %v removed %v changed %v, want [new.md] [old.md] [change.md]", a.Added, a.Removed, a.Changed)
	}
	if a.PreviousPin != commitA || a.Pin != commitB || !a.Updated() {
		t.Errorf("dry run alpha pins = %s -> %s, want %s -> %s", a.PreviousPin, a.Pin, commitA, commitB)
	}
	b := updateOf(t, ups, "beta")
	if b.Digest != b.PreviousDigest || b.Pin != commitB || len(b.Added)+len(b.Removed)+len(b.Changed) != 0 {
		t.Errorf("dry run beta = %+v, want its pin moved and no file changed", b)
	}

	// The update.
	ups, changes, err = in.Update(ctx, UpdateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := updateOf(t, ups, "alpha"); !slices.Equal(got.Added, []string{"new.md"}) {
		t.Errorf("Update alpha added %v, want [new.md]", got.Added)
	}
	if !slices.Contains(actions(changes), "alpha/:canonical:updated") {
		t.Errorf("Update changes = %v, want alpha's canonical copy updated", actions(changes))
	}
	for _, c := range changes {
		if c.Agent == "" && (c.PreviousPin != commitA || c.Pin != commitB) {
			t.Errorf("Update change of %s pins %q -> %q, want %s -> %s", c.Skill, c.PreviousPin, c.Pin, commitA, commitB)
		}
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "alpha")
	if _, err := os.Stat(filepath.Join(canonical, "old.md")); err == nil {
		t.Error("old.md is still installed")
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "alpha", "new.md")); got != "new\n" {
		t.Errorf("claude-code's alpha/new.md = %q", got)
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	for _, name := range []string{"alpha", "beta"} {
		if e := lock.Skills[name]; e.Pin != commitB || len(e.Agents) != 2 {
			t.Errorf("lock entry of %s = %+v, want pin %s and both agents", name, e, commitB)
		}
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after Update = %+v, %v", bad, err)
	}
	rows, err := in.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.State != OutdatedCurrent {
			t.Errorf("Outdated(%s) after Update = %s, want current", r.Skill, r.State)
		}
	}
	// Again: nothing to do.
	ups, _, err = in.Update(ctx, UpdateRequest{})
	if err != nil || slices.ContainsFunc(ups, SkillUpdate.Updated) {
		t.Errorf("Update again = %+v, %v, want nothing updated", ups, err)
	}
}

// TestUpdateKeepsEdits checks rule 7 for Update: an edited canonical
// copy fails it with ErrModified, naming the file, in a dry run too,
// and nothing changes; Force moves it to a backup first.
func TestUpdateKeepsEdits(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "review", "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("review")+"v2\n"), 0o644)
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "review")
	os.WriteFile(filepath.Join(canonical, "notes.md"), []byte("mine\n"), 0o644)
	beforeLock, beforeTree := lockBytes(t, f), treeSnapshot(t, f.env.Project)
	for _, dry := range []bool{true, false} {
		_, _, err := in.Update(ctx, UpdateRequest{DryRun: dry})
		if !errors.Is(err, ErrModified) || !strings.Contains(err.Error(), "notes.md") {
			t.Errorf("Update(DryRun %v) of an edited copy = %v, want ErrModified naming notes.md", dry, err)
		}
		if !bytes.Equal(beforeLock, lockBytes(t, f)) || !maps.Equal(beforeTree, treeSnapshot(t, f.env.Project)) {
			t.Errorf("Update(DryRun %v) of an edited copy changed something", dry)
		}
	}
	_, changes, err := in.Update(ctx, UpdateRequest{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(changes, func(c Change) bool { return c.Agent == "" && c.Backup != "" })
	if i < 0 {
		t.Fatalf("forced Update = %v, want the edited copy moved to a backup", actions(changes))
	}
	if got := readFile(t, filepath.Join(changes[i].Backup, "notes.md")); got != "mine\n" {
		t.Errorf("backup notes.md = %q", got)
	}
	if got := readFile(t, filepath.Join(canonical, "SKILL.md")); !strings.HasSuffix(got, "v2\n") {
		t.Errorf("after a forced Update SKILL.md = %q, want the folder's new content", got)
	}
}

// TestUpdateNamesAndErrors checks that Update updates only the names
// given, refuses names not installed (listing each) and a source that
// cannot be read, changing nothing.
func TestUpdateNamesAndErrors(t *testing.T) {
	f := newFixture(t)
	one := f.writeSkill(t, "one", "one", "")
	two := f.writeSkill(t, "two", "two", "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{one, two}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(one, "SKILL.md"), []byte(skillMD("one")+"v2\n"), 0o644)
	os.WriteFile(filepath.Join(two, "SKILL.md"), []byte(skillMD("two")+"v2\n"), 0o644)
	before := lockBytes(t, f)
	_, _, err := in.Update(ctx, UpdateRequest{Names: []string{"one", "nope", "nada"}})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), `"nada"`) {
		t.Errorf("Update of names not installed = %v, want ErrNotInstalled naming both", err)
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("a refused Update changed the lock file")
	}
	ups, _, err := in.Update(ctx, UpdateRequest{Names: []string{"one"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 1 || ups[0].Skill != "one" || !slices.Equal(ups[0].Changed, []string{"SKILL.md"}) {
		t.Errorf("Update(one) = %+v, want one with SKILL.md changed", ups)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "two", "SKILL.md")); got != skillMD("two") {
		t.Errorf("Update(one) changed two: %q", got)
	}

	// A source folder that is gone fails the update, changing nothing.
	os.RemoveAll(two)
	before = lockBytes(t, f)
	if _, _, err := in.Update(ctx, UpdateRequest{}); !errors.Is(err, ErrSourceUnavailable) {
		t.Errorf("Update with a source gone = %v, want ErrSourceUnavailable", err)
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("a failed Update changed the lock file")
	}
}

// TestUpdateRefusesHostileContent checks that new content that breaks
// the archive rules (a path out of the archive) fails the update and
// installs nothing of it.
func TestUpdateRefusesHostileContent(t *testing.T) {
	f := newFixture(t)
	u := newURLServer(t)
	u.set(testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit")}), `"v1"`, "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{u.srv.URL + "/kit.tgz"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	before, tree := lockBytes(t, f), treeSnapshot(t, filepath.Dir(f.env.Project))
	u.set(testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit") + "v2\n", "kit/../../evil.md": "x"}), `"v2"`, "")
	if _, _, err := in.Update(ctx, UpdateRequest{}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("Update to an archive with a path out of it = %v, want ErrInvalidSource", err)
	}
	if !bytes.Equal(before, lockBytes(t, f)) || !maps.Equal(tree, treeSnapshot(t, filepath.Dir(f.env.Project))) {
		t.Error("a refused Update changed something")
	}
}

// TestUpdateURLRecordsNewValidators checks that an update of a URL
// source records the new ETag, and that an unchanged one (304) is not
// downloaded.
func TestUpdateURLRecordsNewValidators(t *testing.T) {
	f := newFixture(t)
	u := newURLServer(t)
	u.set(testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit")}), `"v1"`, "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{u.srv.URL + "/kit.tgz"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	u.counts()
	ups, _, err := in.Update(ctx, UpdateRequest{})
	if err != nil || slices.ContainsFunc(ups, SkillUpdate.Updated) {
		t.Errorf("Update of an unchanged URL = %+v, %v, want nothing updated", ups, err)
	}
	if full, notMod := u.counts(); full != 0 || notMod != 1 {
		t.Errorf("Update of an unchanged URL: %d downloads, %d answers 304; want 0 and 1", full, notMod)
	}
	u.set(testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit") + "v2\n"}), `"v2"`, "")
	if _, _, err := in.Update(ctx, UpdateRequest{}); err != nil {
		t.Fatal(err)
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if e := lock.Skills["kit"]; e.ETag != `"v2"` {
		t.Errorf("lock ETag after Update = %q, want %q", e.ETag, `"v2"`)
	}
}

// cancelWhen is a context that ends itself at the first check of its
// error once cond holds: an update stops between two skills, with no
// clock involved.
type cancelWhen struct {
	context.Context
	cancel context.CancelFunc
	cond   func() bool
	once   sync.Once
}

func (c *cancelWhen) Err() error {
	if c.cond() {
		c.once.Do(c.cancel)
	}
	return c.Context.Err()
}

// TestInterruptedUpdateLeavesLockAndFoldersAgreeing checks rule 6 for
// Update: stopped between two skills, the lock file records exactly
// what is in place, and running it again finishes.
func TestInterruptedUpdateLeavesLockAndFoldersAgreeing(t *testing.T) {
	f := newFixture(t)
	const n = 20
	kit := filepath.Join(f.sources, "kit")
	for i := range n {
		f.writeSkill(t, fmt.Sprintf("kit/s%03d", i), fmt.Sprintf("s%03d", i), "")
	}
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		f.writeSkill(t, fmt.Sprintf("kit/s%03d", i), fmt.Sprintf("s%03d", i), "v2\n")
	}
	first := filepath.Join(f.env.Project, ".agents", "skills", "s000", "SKILL.md")
	parent, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx := &cancelWhen{Context: parent, cancel: cancel, cond: func() bool {
		b, _ := os.ReadFile(first)
		return strings.HasSuffix(string(b), "v2\n")
	}}
	_, _, err := in.Update(ctx, UpdateRequest{})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted Update = %v, want ErrInterrupted", err)
	}
	if got := checkAgrees(t, f); got != n {
		t.Errorf("%d skills recorded after the interruption, want %d", got, n)
	}
	updated := 0
	for i := range n {
		if strings.HasSuffix(readFile(t, filepath.Join(f.env.Project, ".agents", "skills", fmt.Sprintf("s%03d", i), "SKILL.md")), "v2\n") {
			updated++
		}
	}
	if updated == 0 || updated == n {
		t.Errorf("%d of %d skills updated at the interruption; the test wants it midway", updated, n)
	}
	if _, _, err := in.Update(t.Context(), UpdateRequest{}); err != nil {
		t.Fatal(err)
	}
	checkAgrees(t, f)
	rows, _ := in.Outdated(t.Context())
	for _, r := range rows {
		if r.State != OutdatedCurrent {
			t.Errorf("after finishing, Outdated(%s) = %s", r.Skill, r.State)
		}
	}
}

// TestUpdateRefusesChangedSigner checks Trust rule 4 for Update: a tag
// pushed again signed by another key is refused with a
// *SignerChangedError, and nothing changes; accepting the new signer by
// name updates it.
func TestUpdateRefusesChangedSigner(t *testing.T) {
	o := newOCIFixture(t)
	f := newFixture(t)
	k1, k2 := newTestKey(t), newTestKey(t)
	ref := o.push(t, "team/review", "1", "review", "")
	o.Sign(t, ref, k1.Private)
	src := "oci://" + o.Host + "/team/review:1"
	cache := cachetest.Root(t)
	in := trustInstaller(t, f, cache, nil, Trust{Signers: []signature.Requirement{k1.Requirement()}})
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	ref2 := o.push(t, "team/review", "1", "review", "v2\n")
	o.Sign(t, ref2, k2.Private)
	before := lockBytes(t, f)
	in2 := trustInstaller(t, f, cache, nil, Trust{Signers: []signature.Requirement{k2.Requirement()}})
	_, _, err := in2.Update(ctx, UpdateRequest{})
	var changed *SignerChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("Update to content signed by another key = %v, want *SignerChangedError", err)
	}
	if !bytes.Equal(before, lockBytes(t, f)) {
		t.Error("a refused Update changed the lock file")
	}
	in3 := trustInstaller(t, f, cache, nil, Trust{Signers: []signature.Requirement{k2.Requirement()}, AcceptSigners: []string{k2.ID}})
	if _, _, err := in3.Update(ctx, UpdateRequest{}); err != nil {
		t.Fatalf("Update accepting the new signer = %v", err)
	}
	if s := lockedSigner(t, f, "review"); s == nil || s.KeyID != k2.ID {
		t.Errorf("signer after accepting = %+v, want %s", s, k2.ID)
	}
}

// TestUpdateAfterOutdatedNeedsNoDownload checks rule 14: the content
// Outdated read at a new pin is in the skill cache, so the update that
// follows looks the reference up once and downloads nothing.
func TestUpdateAfterOutdatedNeedsNoDownload(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta")})
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	g.publish("HEAD", commitB, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "new\n", "skills/beta/SKILL.md": skillMD("beta")})
	if _, err := in.Outdated(ctx); err != nil {
		t.Fatal(err)
	}
	g.take()
	ups, _, err := in.Update(ctx, UpdateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.take(); !slices.Equal(got, []string{"/repos/o/skills/commits/HEAD"}) {
		t.Errorf("Update after Outdated asked %q, want one lookup and no download", got)
	}
	if a := updateOf(t, ups, "alpha"); a.Pin != commitB || !slices.Equal(a.Changed, []string{"SKILL.md"}) {
		t.Errorf("Update alpha = %+v, want pin %s and SKILL.md changed", a, commitB)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "alpha", "SKILL.md")); got != skillMD("alpha")+"new\n" {
		t.Errorf("alpha after Update = %q", got)
	}

	// A memo naming content the cache does not hold (or garbage) costs a
	// download, nothing more.
	const commitC = "fedcba9876543210fedcba9876543210fedcba98"
	g.publish("HEAD", commitC, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "third\n", "skills/beta/SKILL.md": skillMD("beta")})
	if _, err := in.Outdated(ctx); err != nil {
		t.Fatal(err)
	}
	memos, _ := filepath.Glob(filepath.Join(in.cache.Root(), pinsDir, "*"))
	if len(memos) == 0 {
		t.Fatal("Outdated left no memo in the skill cache")
	}
	for _, m := range memos {
		os.WriteFile(m, []byte("sha256:0000\n../../etc"), 0o644)
	}
	g.take()
	if _, _, err := in.Update(ctx, UpdateRequest{}); err != nil {
		t.Fatal(err)
	}
	archives := 0
	for _, p := range g.take() {
		if strings.HasPrefix(p, "/o-skills/") {
			archives++
		}
	}
	if archives != 1 {
		t.Errorf("Update with broken memos downloaded %d archives, want 1", archives)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "alpha", "SKILL.md")); got != skillMD("alpha")+"third\n" {
		t.Errorf("alpha after Update with broken memos = %q", got)
	}
}
