package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// canonicalOf is the canonical folder of a skill in the fixture's project.
func (f *fixture) canonicalOf(name string) string {
	return filepath.Join(f.env.Project, ".agents", "skills", name)
}

func TestEditedSkillIsNeverReplacedSilently(t *testing.T) {
	f, src, in := installedReview(t, "claude-code")
	ctx := t.Context()
	canonical := f.canonicalOf("code-review")
	os.WriteFile(filepath.Join(canonical, "SKILL.md"), []byte(skillMD("code-review")+"my edit\n"), 0o644)
	os.WriteFile(filepath.Join(canonical, "notes.md"), []byte("my notes"), 0o644)
	edited := func(t *testing.T) {
		t.Helper()
		if got := readFile(t, filepath.Join(canonical, "notes.md")); got != "my notes" {
			t.Fatalf("the added file is gone or changed: %q", got)
		}
		if got := readFile(t, filepath.Join(canonical, "SKILL.md")); !strings.HasSuffix(got, "my edit\n") {
			t.Fatalf("the edit is gone: %q", got)
		}
	}
	for name, op := range map[string]func() error{
		"add again": func() error {
			_, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			return err
		},
		"add for another one": func() error {
			_, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "windsurf")})
			return err
		},
		"sync":        func() error { _, err := in.Sync(ctx, SyncRequest{}); return err },
		"sync frozen": func() error { _, err := in.Sync(ctx, SyncRequest{Frozen: true}); return err },
		"remove":      func() error { _, err := in.Remove(ctx, RemoveRequest{Names: []string{"code-review"}}); return err },
	} {
		err := op()
		if !errors.Is(err, ErrModified) {
			t.Errorf("%s over an edited skill = %v, want ErrModified", name, err)
		} else if !strings.Contains(err.Error(), "SKILL.md changed") && name != "remove" || !strings.Contains(err.Error(), canonical) {
			t.Errorf("%s: error %q does not name the folder and the changed files", name, err)
		}
		edited(t)
	}
	if _, err := os.Lstat(filepath.Join(f.env.Project, ".windsurf")); err == nil {
		t.Errorf("a refused add made the other agent's folder")
	}
	// A refused first add leaves no folder behind either.
	g := newFixture(t)
	os.MkdirAll(filepath.Join(g.env.Project, ".claude", "skills", "code-review"), 0o755)
	if _, err := g.installer(t).Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); !errors.Is(err, ErrConflict) {
		t.Errorf("Add over a user's folder = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(g.env.Project, ".agents")); err == nil {
		t.Errorf("a refused add made .agents")
	}
	// Forced, the edited folder moves to a backup that the change names.
	changes, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	var backup string
	for _, c := range changes {
		if c.Backup != "" {
			backup = c.Backup
		}
	}
	if backup == "" || !strings.HasPrefix(backup, filepath.Join(f.env.Project, ".agents", "backups")) {
		t.Fatalf("forced Add = %+v, want a backup under .agents/backups", changes)
	}
	if got := readFile(t, filepath.Join(backup, "notes.md")); got != "my notes" {
		t.Errorf("backup notes.md = %q", got)
	}
	if got := readFile(t, filepath.Join(canonical, "SKILL.md")); got != skillMD("code-review") {
		t.Errorf("forced Add left SKILL.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(canonical, "notes.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("forced Add kept the added file in place: %v", err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after a forced Add = %+v, %v", bad, err)
	}
}

func TestEditedCopyForcedKeepsBackup(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "foo", "foo", "")
	in := f.installer(t)
	req := AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Copy: true}
	if _, err := in.Add(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(f.env.Project, ".claude", "skills", "foo")
	os.WriteFile(filepath.Join(copied, "notes.md"), []byte("mine"), 0o644)
	_, err := in.Add(t.Context(), req)
	if !errors.Is(err, ErrModified) || !strings.Contains(err.Error(), "notes.md added") {
		t.Fatalf("Add over an edited copy = %v, want ErrModified naming notes.md", err)
	}
	req.Force = true
	changes, err := in.Add(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(changes, func(c Change) bool { return c.Agent == "claude-code" })
	if i < 0 || changes[i].Backup == "" || changes[i].Action != ActionUpdated {
		t.Fatalf("forced Add = %+v, want claude-code updated with a backup", changes)
	}
	if got := readFile(t, filepath.Join(changes[i].Backup, "notes.md")); got != "mine" {
		t.Errorf("backup = %q", got)
	}
	if _, err := os.Stat(filepath.Join(copied, "notes.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the copy still holds the added file")
	}
}

func TestFrozenSyncChangesNothingOnAnyDifference(t *testing.T) {
	f := newFixture(t)
	a := f.writeSkill(t, "a", "alpha", "")
	b := f.writeSkill(t, "b", "beta", "")
	c := f.writeSkill(t, "c", "gamma", "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{a, b, c}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	// alpha's link is gone (sync would repair it); beta and gamma drifted.
	link := filepath.Join(f.env.Project, ".claude", "skills", "alpha")
	os.Remove(link)
	os.WriteFile(filepath.Join(b, "SKILL.md"), []byte(skillMD("beta")+"drift\n"), 0o644)
	os.WriteFile(filepath.Join(c, "SKILL.md"), []byte(skillMD("gamma")+"drift\n"), 0o644)
	lock := readFile(t, filepath.Join(f.env.Project, ".agents", lockName))
	_, err := in.Sync(ctx, SyncRequest{Frozen: true})
	if !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), "beta") || !strings.Contains(err.Error(), "gamma") {
		t.Fatalf("frozen Sync = %v, want ErrDrift listing beta and gamma", err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed frozen sync repaired alpha: %v", err)
	}
	if readFile(t, filepath.Join(f.env.Project, ".agents", lockName)) != lock {
		t.Errorf("a failed frozen sync changed the lock file")
	}
	// Without drift, a frozen sync repairs.
	os.WriteFile(filepath.Join(b, "SKILL.md"), []byte(skillMD("beta")), 0o644)
	os.WriteFile(filepath.Join(c, "SKILL.md"), []byte(skillMD("gamma")), 0o644)
	changes, err := in.Sync(ctx, SyncRequest{Frozen: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(changes); !slices.Contains(got, "alpha/claude-code:link:repaired") {
		t.Errorf("frozen Sync = %v, want alpha's link repaired", got)
	}
}

func TestLostLockFileAdoptsWhatMatches(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "code-review", "")
	other := f.writeSkill(t, "notes", "notes", "")
	in := f.installer(t)
	ctx := t.Context()
	req := AddRequest{Sources: []string{src, other}, Agents: agentsOf(t, "claude-code", "codex")}
	if _, err := in.Add(ctx, req); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	want := readFile(t, lockPath)
	os.Remove(lockPath)
	// notes was edited meanwhile: it cannot be adopted.
	os.WriteFile(filepath.Join(f.canonicalOf("notes"), "SKILL.md"), []byte("edited"), 0o644)
	_, err := in.Add(ctx, req)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "adopted when it matches the source exactly") {
		t.Fatalf("Add after the lock file was lost, over an edited copy = %v, want a conflict that explains adoption", err)
	}
	os.WriteFile(filepath.Join(f.canonicalOf("notes"), "SKILL.md"), []byte(skillMD("notes")), 0o644)
	changes, err := in.Add(ctx, req)
	if err != nil {
		t.Fatalf("Add after the lock file was lost = %v", err)
	}
	for _, c := range changes {
		if c.Action != ActionAdopted {
			t.Errorf("change %+v, want adopted", c)
		}
	}
	if got := readFile(t, lockPath); got != want {
		t.Errorf("the adopted lock file differs:\n%s\nwant:\n%s", got, want)
	}
}

func TestRepairsAreReported(t *testing.T) {
	f, _, in := installedReview(t, "claude-code", "codex")
	ctx := t.Context()
	os.Remove(filepath.Join(f.env.Project, ".claude", "skills", "code-review"))
	changes, err := in.Sync(ctx, SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !Changed(changes) || !slices.Contains(actions(changes), "code-review/claude-code:link:repaired") {
		t.Errorf("Sync after a link was deleted = %v, want it repaired", actions(changes))
	}
	os.RemoveAll(f.canonicalOf("code-review"))
	changes, err = in.Sync(ctx, SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"code-review/:canonical:repaired", "code-review/claude-code:link:repaired", "code-review/codex:canonical:repaired"}
	if got := actions(changes); !slices.Equal(got, want) {
		t.Errorf("Sync after the canonical copy was deleted = %v, want %v", got, want)
	}
	changes, err = in.Sync(ctx, SyncRequest{})
	if err != nil || Changed(changes) {
		t.Errorf("Sync of a whole install = %v, %v, want everything unchanged", actions(changes), err)
	}
}

func TestCanonicalCopyIsOwnershipChecked(t *testing.T) {
	f, src, in := installedReview(t, "codex")
	ctx := t.Context()
	// The user's own skill now sits where the canonical copy was.
	canonical := f.canonicalOf("code-review")
	os.RemoveAll(canonical)
	os.MkdirAll(canonical, 0o755)
	os.WriteFile(filepath.Join(canonical, "SKILL.md"), []byte("mine"), 0o644)
	if _, err := in.Sync(ctx, SyncRequest{}); !errors.Is(err, ErrModified) {
		t.Errorf("Sync over the user's canonical folder = %v, want ErrModified", err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"code-review"}}); !errors.Is(err, ErrModified) {
		t.Errorf("Remove of the user's canonical folder = %v, want ErrModified", err)
	}
	if got := readFile(t, filepath.Join(canonical, "SKILL.md")); got != "mine" {
		t.Errorf("the user's folder changed: %q", got)
	}
	// A canonical place taken by a file or a link is never ours.
	os.RemoveAll(canonical)
	os.Symlink(f.sources, canonical)
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"code-review"}}); !errors.Is(err, ErrConflict) {
		t.Errorf("Remove of a link in the canonical place = %v, want ErrConflict", err)
	}
	if _, err := os.Stat(filepath.Join(src, "SKILL.md")); err != nil {
		t.Errorf("Remove went through the link: %v", err)
	}
}

func TestUnfinishedWorkIsSettled(t *testing.T) {
	f := newFixture(t)
	alpha := f.writeSkill(t, "alpha", "alpha", "")
	beta := f.writeSkill(t, "beta", "beta", "")
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{alpha}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	// A run killed while adding alpha for windsurf (its content in place,
	// the link not yet made) and installing gamma (nothing in place yet).
	prev := *lock.Skills["alpha"]
	next := prev
	next.Agents = map[string]lockPlace{"claude-code": prev.Agents["claude-code"], "windsurf": {Kind: KindLink, Path: ".windsurf/skills/alpha"}}
	lock.Skills["alpha"] = &next
	lock.Skills["gamma"] = &lockEntry{Source: "../sources/gamma", Digest: strings.Repeat("0", 64), Agents: map[string]lockPlace{"claude-code": {Kind: KindLink, Path: ".claude/skills/gamma"}}}
	lock.Unfinished = map[string]*lockEntry{"alpha": &prev, "gamma": nil}
	if err := lock.write(lockPath); err != nil {
		t.Fatal(err)
	}
	st, err := in.List(ctx, ListRequest{Agents: agentsOf(t, "windsurf")})
	if err != nil || len(st) != 1 || st[0].State != StateUnfinished {
		t.Errorf("List = %+v, %v, want alpha unfinished", st, err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) == 0 {
		t.Errorf("Verify = %+v, %v, want the unfinished work reported", bad, err)
	}
	// The next change settles both, and says so.
	changes, err := in.Add(ctx, AddRequest{Sources: []string{beta}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	got := actions(changes)
	for _, want := range []string{"alpha/:canonical:finished", "gamma/:canonical:rolled-back", "beta/claude-code:link:installed"} {
		if !slices.Contains(got, want) {
			t.Errorf("changes = %v, want %s", got, want)
		}
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".windsurf", "skills", "alpha", "SKILL.md")); got != skillMD("alpha") {
		t.Errorf("alpha for windsurf = %q, want it finished", got)
	}
	lock, err = readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if lock.Unfinished != nil || lock.Skills["gamma"] != nil || lock.Skills["alpha"].Agents["windsurf"].Kind != KindLink {
		t.Errorf("lock after settling = %+v", lock)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after settling = %+v, %v", bad, err)
	}
}

func TestVerifyWithNothingRecorded(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	if _, err := in.Verify(t.Context()); !errors.Is(err, ErrNothingRecorded) {
		t.Errorf("Verify without a lock file = %v, want ErrNothingRecorded", err)
	}
	src := f.writeSkill(t, "foo", "foo", "")
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Verify(t.Context()); !errors.Is(err, ErrNothingRecorded) {
		t.Errorf("Verify of an empty lock file = %v, want ErrNothingRecorded", err)
	}
}

func TestSyncWithoutLockFile(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(f.env.Project, 0o755); err != nil {
		t.Fatal(err)
	}
	in := f.installer(t)
	for _, req := range []SyncRequest{{}, {Force: true}} {
		if changes, err := in.Sync(t.Context(), req); err != nil || len(changes) != 0 {
			t.Errorf("Sync(%+v) without a lock file = %v, %v; want nothing done", req, changes, err)
		}
	}
	// Frozen (as npm ci), there is nothing to install exactly: an error
	// naming the lock file looked for.
	for _, req := range []SyncRequest{{Frozen: true}, {Frozen: true, Force: true}} {
		changes, err := in.Sync(t.Context(), req)
		if !errors.Is(err, ErrNothingRecorded) || len(changes) != 0 || !strings.Contains(err.Error(), in.lockPath()) {
			t.Errorf("Sync(%+v) without a lock file = %v, %v; want ErrNothingRecorded naming %s", req, changes, err, in.lockPath())
		}
	}
	if names, err := os.ReadDir(f.env.Project); err != nil || len(names) != 0 {
		t.Errorf("the project after Sync holds %v (%v), want nothing", names, err)
	}
	// A lock file that records no skill (every skill removed) is synced:
	// nothing to do.
	src := f.writeSkill(t, "foo", "foo", "")
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}}); err != nil {
		t.Fatal(err)
	}
	if changes, err := in.Sync(t.Context(), SyncRequest{}); err != nil || len(changes) != 0 {
		t.Errorf("Sync of an empty lock file = %v, %v; want nothing done", changes, err)
	}
}

func TestRemoveDuringSyncIsNotUndone(t *testing.T) {
	f := newFixture(t)
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("remote")})
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	var slow atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			arrived <- struct{}{}
			<-release
		}
		w.Write(body)
	}))
	defer srv.Close()
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{srv.URL + "/remote.tgz"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	slow.Store(true)
	synced := make(chan error)
	go func() {
		_, err := in.Sync(ctx, SyncRequest{})
		synced <- err
	}()
	<-arrived // the sync is downloading
	removed := make(chan error, 1)
	rctx := &lockWaitContext{Context: ctx, asked: make(chan struct{}, 1)}
	go func() {
		_, err := in.Remove(rctx, RemoveRequest{Names: []string{"remote"}})
		removed <- err
	}()
	select {
	case err := <-removed:
		t.Fatalf("Remove ran during the sync (%v)", err)
	case <-rctx.asked: // Remove is taking the lock
	}
	// The sync holds the scope's lock while it downloads, so Remove waits.
	locks, _ := filepath.Glob(filepath.Join(f.env.Home, ".locks", "*.lock"))
	if len(locks) != 1 {
		t.Fatalf("lock files %v, want one", locks)
	}
	lf, err := os.Open(locks[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := filelock.TryLock(lf); !errors.Is(err, filelock.ErrLocked) {
		t.Errorf("TryLock(%s) during the sync = %v, want %v", locks[0], err, filelock.ErrLocked)
	}
	lf.Close()
	select {
	case err := <-removed:
		t.Errorf("Remove ran during the sync (%v)", err)
	default:
	}
	close(release)
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.canonicalOf("remote")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the skill removed during a sync is back: %v", err)
	}
}

// lockWaitContext is a context that reports on asked when Done is first
// asked for: an Installer asks, before anything else does, as it starts
// to take the scope's lock.
type lockWaitContext struct {
	context.Context
	asked chan struct{} // buffered, one
	once  sync.Once
}

func (c *lockWaitContext) Done() <-chan struct{} {
	c.once.Do(func() { c.asked <- struct{}{} })
	return c.Context.Done()
}

func TestChecksComeBeforeAnyChange(t *testing.T) {
	t.Run("a broken sibling does not stop a selected skill", func(t *testing.T) {
		f := newFixture(t)
		f.writeSkill(t, "kit/good", "good", "")
		bad := filepath.Join(f.sources, "kit", "bad")
		os.MkdirAll(bad, 0o755)
		os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("---\nname: bad\n---\n"), 0o644)
		c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")))
		in := New(f.env, WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")))
		kit := filepath.Join(f.sources, "kit")
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "codex"), Skills: []string{"good"}}); err != nil {
			t.Errorf("Add(--skill good) next to a broken skill = %v", err)
		}
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "codex"), Skills: []string{"bad"}}); !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "description") {
			t.Errorf("Add(--skill bad) = %v, want its problems", err)
		}
	})
	t.Run("a relative agent folder", func(t *testing.T) {
		f := newFixture(t)
		src := f.writeSkill(t, "foo", "foo", "")
		f.env.Getenv = func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": "rel/claude"}[k] }
		cwd := t.TempDir()
		t.Chdir(cwd)
		in := f.installer(t, WithScope(User))
		_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex", "claude-code")})
		if !errors.Is(err, ErrUnsafeFolder) || !strings.Contains(err.Error(), "CLAUDE_CONFIG_DIR") {
			t.Errorf("Add with a relative CLAUDE_CONFIG_DIR = %v, want ErrUnsafeFolder naming it", err)
		}
		for _, dir := range []string{cwd, f.env.Home} {
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused Add made %v in %s", entries, dir)
			}
		}
	})
	t.Run("remove of nothing", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.installer(t).Remove(t.Context(), RemoveRequest{Names: []string{"nope"}}); !errors.Is(err, ErrNotInstalled) {
			t.Errorf("Remove of nothing = %v, want ErrNotInstalled", err)
		}
		if entries, _ := os.ReadDir(f.env.Project); len(entries) != 0 {
			t.Errorf("Remove of nothing made %v", entries)
		}
	})
}

func TestURLCredentialsAreNeverRecordedOrShown(t *testing.T) {
	f := newFixture(t)
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("private")})
	var fail atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		if fail.Load() {
			http.Error(w, "broken", http.StatusInternalServerError)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	withCreds := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/private.tgz"
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{withCreds}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	lock := readFile(t, filepath.Join(f.env.Project, ".agents", lockName))
	if strings.Contains(lock, "s3cret") || strings.Contains(lock, "user@") || !strings.Contains(lock, srv.URL+"/private.tgz") {
		t.Errorf("lock file records the credentials, or not the URL:\n%s", lock)
	}
	fail.Store(true)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{withCreds + "#sha256=" + strings.Repeat("0", 64)}, Agents: agentsOf(t, "codex")})
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Add of a failing URL = %v, want an error without the password", err)
	}
	if _, err := in.Find(t.Context(), FindRequest{Source: "http://user:s3cret@127.0.0.1:1/x.tgz"}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Find of a refused URL = %v, want an error without the password", err)
	}
}

// pipeListener is a listener whose connections are in-memory pipes, so
// that a server and its client in a synctest bubble block durably on each
// other and the bubble's fake clock runs while they wait.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

// pipeServer serves h over in-memory pipes and returns a client of it;
// any URL reaches h. The server stops when t's test ends.
func pipeServer(t *testing.T, h http.Handler) *http.Client {
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		server, client := net.Pipe()
		select {
		case l.conns <- server:
			return client, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return &http.Client{Transport: tr}
}

// TestDownloadsTimeOut runs in a synctest bubble: the timeout, and the
// pauses of a slow download, are on its fake clock, so a busy machine
// cannot stretch a pause past the timeout.
func TestDownloadsTimeOut(t *testing.T) {
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("slow")})
	for name, handler := range map[string]func(stop chan struct{}) http.HandlerFunc{
		"no response": func(stop chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { <-stop }
		},
		"stalled body": func(stop chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Write(body[:20])
				w.(http.Flusher).Flush()
				<-stop
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t)
				stop := make(chan struct{})
				t.Cleanup(func() { close(stop) })
				client := pipeServer(t, handler(stop))
				in := f.installer(t, WithHTTPClient(client), WithDownloadTimeout(300*time.Millisecond))
				_, err := in.Add(t.Context(), AddRequest{Sources: []string{"http://127.0.0.1:1/slow.tgz"}, Agents: agentsOf(t, "codex")})
				if !errors.Is(err, ErrSourceUnavailable) || !errors.Is(err, source.ErrStalled) || !strings.Contains(err.Error(), "nothing received for 300ms") {
					t.Errorf("Add from a server that %s = %v, want ErrSourceUnavailable saying why", name, err)
				}
			})
		})
	}
	// A slow but steady download is not cut off: a pause of 100ms, on
	// the bubble's clock, after every fifth of the body.
	t.Run("slow and steady", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t)
			client := pipeServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for i := range body {
					w.Write(body[i : i+1])
					w.(http.Flusher).Flush()
					if i%(len(body)/5+1) == 0 {
						time.Sleep(100 * time.Millisecond)
					}
				}
			}))
			in := f.installer(t, WithHTTPClient(client), WithDownloadTimeout(300*time.Millisecond))
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{"http://127.0.0.1:1/slow.tgz"}, Agents: agentsOf(t, "codex")}); err != nil {
				t.Errorf("Add of a slow, steady download = %v", err)
			}
		})
	})
}

func TestProjectLinksOutOfTheProjectAreRefused(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "foo", "foo", "")
	// A hostile project commits .claude as a link to the user's ~/.claude.
	userClaude := filepath.Join(f.env.Home, ".claude")
	os.MkdirAll(filepath.Join(userClaude, "skills"), 0o755)
	os.Symlink(userClaude, filepath.Join(f.env.Project, ".claude"))
	in := f.installer(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, ErrUnsafeFolder) || !strings.Contains(err.Error(), "outside the project") {
		t.Errorf("Add through .claude linked out of the project = %v, want ErrUnsafeFolder", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(userClaude, "skills")); len(entries) != 0 {
		t.Errorf("a project install wrote into the user's folder: %v", entries)
	}
	// So is a deeper link, and one that dangles.
	os.Remove(filepath.Join(f.env.Project, ".claude"))
	os.MkdirAll(filepath.Join(f.env.Project, ".claude"), 0o755)
	os.Symlink(filepath.Join(userClaude, "skills"), filepath.Join(f.env.Project, ".claude", "skills"))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); !errors.Is(err, ErrUnsafeFolder) {
		t.Errorf("Add through .claude/skills linked out of the project = %v, want ErrUnsafeFolder", err)
	}
	os.Remove(filepath.Join(f.env.Project, ".claude", "skills"))
	os.Symlink(filepath.Join(f.env.Home, "nowhere"), filepath.Join(f.env.Project, ".claude", "skills"))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); !errors.Is(err, ErrUnsafeFolder) {
		t.Errorf("Add through a dangling link = %v, want ErrUnsafeFolder", err)
	}
	if _, err := os.Lstat(filepath.Join(f.env.Home, "nowhere")); err == nil {
		t.Errorf("Add created the target of a dangling link")
	}
	// The user scope is the user's own: links there are followed.
	if _, err := f.installer(t, WithScope(User)).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Errorf("user-scope Add = %v", err)
	}
}

func TestCommittedFileLockLinkIsNotFollowed(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "foo", "foo", "")
	target := filepath.Join(f.env.Home, "created-by-agentskills")
	os.MkdirAll(filepath.Join(f.env.Project, ".agents"), 0o755)
	os.Symlink(target, filepath.Join(f.env.Project, ".agents", ".agentskills.flock"))
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the committed link made agentskills create %s", target)
	}
}

func TestCommittedLockFileWorksInAnotherCheckout(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "foo", "foo", "")
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock := readFile(t, filepath.Join(f.env.Project, ".agents", lockName))
	if !strings.Contains(lock, `"source": "../sources/foo"`) {
		t.Errorf("lock file does not record the source relative to the project:\n%s", lock)
	}
	// Nothing but the lock file and the skills is left in .agents.
	entries, _ := os.ReadDir(filepath.Join(f.env.Project, ".agents"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{lockName, "skills"}) {
		t.Errorf(".agents holds %v, want only the lock file and the skills", names)
	}
	// A teammate's checkout elsewhere, with the project and its sources
	// side by side, restores the skills from the committed lock file.
	other := filepath.Join(t.TempDir(), "checkout")
	os.MkdirAll(filepath.Join(other, "project", ".agents"), 0o755)
	os.WriteFile(filepath.Join(other, "project", ".agents", lockName), []byte(lock), 0o644)
	os.CopyFS(filepath.Join(other, "sources"), os.DirFS(f.sources))
	f.env.Project = filepath.Join(other, "project")
	changes, err := f.installer(t).Sync(t.Context(), SyncRequest{Frozen: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(changes); !slices.Equal(got, []string{"foo/:canonical:repaired", "foo/claude-code:link:repaired"}) {
		t.Errorf("Sync in another checkout = %v", got)
	}
}

func TestUserFoldersThatMoveWithTheEnvironment(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "foo", "foo", "")
	elsewhere := filepath.Join(t.TempDir(), "claude-config")
	set := func(v string) {
		f.env.Getenv = func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": v}[k] }
	}
	set(elsewhere)
	ctx := t.Context()
	if _, err := f.installer(t, WithScope(User)).Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(elsewhere, "skills", "foo")
	for _, v := range []string{"", elsewhere} {
		set(v)
		in := f.installer(t, WithScope(User))
		st, err := in.List(ctx, ListRequest{Agents: agentsOf(t, "claude-code")})
		if err != nil {
			t.Fatalf("List with CLAUDE_CONFIG_DIR=%q = %v", v, err)
		}
		wantState := StateMoved
		if v == elsewhere {
			wantState = StateInstalled
		}
		if i := slices.IndexFunc(st, func(s Status) bool { return s.Skill == "foo" && s.State != StateExternal }); i < 0 || st[i].State != wantState {
			t.Errorf("List with CLAUDE_CONFIG_DIR=%q = %+v, want foo %s", v, st, wantState)
		}
		if v == "" {
			if bad, err := in.Verify(ctx); err != nil || len(bad) != 1 || bad[0].State != StateMoved {
				t.Errorf("Verify = %+v, %v, want foo moved", bad, err)
			}
		}
	}
	// Sync without the variable moves the link into today's folder.
	set("")
	in := f.installer(t, WithScope(User))
	changes, err := in.Sync(ctx, SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := actions(changes)
	for _, want := range []string{"foo/claude-code:link:installed", "foo/claude-code:link:removed"} {
		if !slices.Contains(got, want) {
			t.Errorf("Sync = %v, want %s", got, want)
		}
	}
	if _, err := os.Lstat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link where the folder was is still there: %v", err)
	}
	if got := readFile(t, filepath.Join(f.env.Home, ".claude", "skills", "foo", "SKILL.md")); got != skillMD("foo") {
		t.Errorf("foo in today's folder = %q", got)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after the move = %+v, %v", bad, err)
	}
	// And back, with the variable set again; remove works wherever it is.
	set(elsewhere)
	if _, err := f.installer(t, WithScope(User)).Remove(ctx, RemoveRequest{Names: []string{"foo"}}); err != nil {
		t.Errorf("Remove after the folder moved = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(f.env.Home, ".claude", "skills", "foo")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove left the link: %v", err)
	}
}

func TestLocalFoldersAreCopiedUnderTheArchiveRules(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	ctx := t.Context()
	// A link to a file of the skill becomes a copy of it; .git is left out.
	src := f.writeSkill(t, "linked", "linked", "")
	os.WriteFile(filepath.Join(src, "notes.md"), []byte("notes"), 0o644)
	os.Symlink("notes.md", filepath.Join(src, "alias.md"))
	os.MkdirAll(filepath.Join(src, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("ref"), 0o644)
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	canonical := f.canonicalOf("linked")
	if fi, err := os.Lstat(filepath.Join(canonical, "alias.md")); err != nil || !fi.Mode().IsRegular() || readFile(t, filepath.Join(canonical, "alias.md")) != "notes" {
		t.Errorf("alias.md = %v, %v, want a regular copy of notes.md", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(canonical, "SKILL.md")); err != nil || fi.Mode().Perm()&0o200 == 0 {
		t.Errorf("SKILL.md = %v, %v, want a file its owner can edit", fi, err)
	}
	if _, err := os.Stat(filepath.Join(canonical, ".git")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".git was copied: %v", err)
	}
	// Names the archive rules refuse are refused here too, naming the file.
	for name, file := range map[string]string{"colon": "a:b.md", "device name": "CON.md", "backslash": `a\b.md`} {
		src := f.writeSkill(t, "bad-"+strings.ReplaceAll(name, " ", "-"), "bad-"+strings.ReplaceAll(name, " ", "-"), "")
		os.WriteFile(filepath.Join(src, file), []byte("x"), 0o644)
		_, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")})
		if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), fmt.Sprintf("%q", file)) {
			t.Errorf("Add of a skill holding %s = %v, want ErrInvalidSource naming it", file, err)
		}
	}
	// A link out of the skill is refused.
	out := f.writeSkill(t, "escape", "escape", "")
	os.Symlink(filepath.Join(f.sources, "linked", "notes.md"), filepath.Join(out, "leak.md"))
	if _, err := in.Add(ctx, AddRequest{Sources: []string{out}, Agents: agentsOf(t, "codex")}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("Add of a skill linking out of itself = %v, want ErrInvalidSource", err)
	}
}

func TestArchivesAreReadOncePerSource(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{}
	var names []string
	for i := range 6 {
		name := fmt.Sprintf("s%d", i)
		names = append(names, name)
		files["kit-main/skills/"+name+"/SKILL.md"] = skillMD(name)
	}
	files["kit-main/.hidden/SKILL.md"] = skillMD("hidden")
	body := testarchive.TarGzFiles(t, files)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write(body)
	}))
	defer srv.Close()
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	in := f.installer(t, WithCache(c))
	ctx := t.Context()
	changes, err := in.Add(ctx, AddRequest{Sources: []string{srv.URL + "/kit.tgz"}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(names, "hidden") {
		if !slices.Contains(actions(changes), name+"/:canonical:installed") {
			t.Errorf("Add = %v, want %s installed", actions(changes), name)
		}
	}
	if got, err := c.Entries(t.Context()); err != nil || len(got) != 0 {
		t.Errorf("Add put %d skills in the cache (%v), want the archive extracted once and copied from", len(got), err)
	}
	// Sync reads the source once for all of its skills.
	requests.Store(0)
	os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Fatal(err)
	}
	if got := requests.Load(); got != 1 {
		t.Errorf("Sync of one URL holding %d skills made %d requests, want 1", len(names)+1, got)
	}
	if got, err := c.Entries(t.Context()); err != nil || len(got) != 0 {
		t.Errorf("Sync put %d skills in the cache (%v), want the archive extracted once and copied from", len(got), err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify = %+v, %v", bad, err)
	}
}

func TestCorruptLockFileSaysHowBack(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "foo", "foo", "")
	in := f.installer(t)
	req := AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}
	if _, err := in.Add(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	os.WriteFile(lockPath, []byte("{broken"), 0o644)
	_, err := in.Add(t.Context(), req)
	if !errors.Is(err, ErrInvalidLock) || !strings.Contains(err.Error(), "add adopts") {
		t.Fatalf("Add with a corrupt lock file = %v, want ErrInvalidLock saying how back", err)
	}
	// Doing what it says works.
	os.Remove(lockPath)
	if _, err := in.Add(t.Context(), req); err != nil {
		t.Errorf("Add after removing the corrupt lock file = %v", err)
	}
}

// TestCacheLimitsApply checks that the limits of the cache given with
// WithCache bound what the installer reads: downloads, archives and the
// folders it copies, each refused with nothing installed.
func TestCacheLimitsApply(t *testing.T) {
	body := testarchive.TarGzFiles(t, map[string]string{"kit/SKILL.md": skillMD("kit"), "kit/big.txt": strings.Repeat("x", 4096)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	archive := filepath.Join(t.TempDir(), "kit.tgz")
	if err := os.WriteFile(archive, body, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		limit  skill.DefaultMaterializerOption
		says   string // where the refusal happens: a download stops at the limit
		source func(f *fixture) string
	}{
		{"download over the archive size", skill.WithMaxArchiveSize(int64(len(body)) - 1), "/kit.tgz: source cannot be installed: download: ", func(*fixture) string { return srv.URL + "/kit.tgz" }},
		{"archive file over the archive size", skill.WithMaxArchiveSize(int64(len(body)) - 1), "larger than", func(*fixture) string { return archive }},
		{"archive file with a file over the file size", skill.WithMaxFileSize(4095), "per-file limit is 4095", func(*fixture) string { return archive }},
		{"archive file over the total size", skill.WithMaxTotalSize(2048), "more than 2048 bytes in all", func(*fixture) string { return archive }},
		{"folder with a file over the file size", skill.WithMaxFileSize(4095), "per-file limit is 4095", func(f *fixture) string {
			dir := f.writeSkill(t, "big", "big", "")
			os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("x", 4096)), 0o644)
			return dir
		}},
		{"git repository over the archive size", skill.WithMaxArchiveSize(1024), "#ref=main at ", func(*fixture) string {
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git:", err)
			}
			repo := filepath.Join(t.TempDir(), "repo")
			// git streams an uncompressed tar: well over 1 KiB.
			gitRepo(t, repo, map[string]string{"kit/SKILL.md": skillMD("kit"), "kit/notes.txt": strings.Repeat("x", 2048)})
			return "git+file://" + filepath.ToSlash(repo) + "#ref=main"
		}},
		{"folder over the entry count", skill.WithMaxArchiveEntries(2), "more than 2 entries", func(f *fixture) string {
			dir := f.writeSkill(t, "many", "many", "")
			os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644)
			os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o644)
			return dir
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			src := tt.source(f)
			in := f.installer(t, WithCache(skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")), tt.limit)))
			changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, skill.ErrArchiveLimit) || !errors.Is(err, ErrInvalidSource) {
				t.Fatalf("Add(%s) = %v, %v, want ErrInvalidSource and skill.ErrArchiveLimit", tt.name, actions(changes), err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Add(%s) = %v, want it refused where it says %q", tt.name, err, tt.says)
			}
			if _, err := os.Stat(filepath.Join(f.env.Project, ".claude", "skills")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Add(%s) refused, but .claude/skills exists (%v)", tt.name, err)
			}
			// The same source within the default limits installs.
			f2 := newFixture(t)
			if tt.name[:6] == "folder" || tt.name[:3] == "git" {
				src = tt.source(f2)
			}
			if _, err := f2.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Errorf("Add(%s) with the default limits = %v", tt.name, err)
			}
		})
	}
}

// TestReadOnlyOperationsSeeLockChanges checks that List and Verify, which
// read the lock file once while it keeps its stamp, see every change to
// it: one made by another Installer, and one written in place with the
// same size, whose change time differs.
func TestReadOnlyOperationsSeeLockChanges(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	ctx := t.Context()
	for _, name := range []string{"one", "two"} {
		if _, err := in.Add(ctx, AddRequest{Sources: []string{f.writeSkill(t, name, name, "")}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
	}
	installed := func() []string {
		t.Helper()
		st, err := in.List(ctx, ListRequest{Agents: agentsOf(t, "codex")})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range st {
			if s.State == StateInstalled {
				names = append(names, s.Skill)
			}
		}
		return names
	}
	if got := installed(); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("List = %v, want one and two installed", got)
	}
	if _, err := f.installer(t).Remove(ctx, RemoveRequest{Names: []string{"two"}}); err != nil {
		t.Fatal(err)
	}
	// Past the racy window (50 ms) of the lock file's last write: what
	// List reads next is kept.
	time.Sleep(60 * time.Millisecond)
	if got := installed(); !slices.Equal(got, []string{"one"}) {
		t.Errorf("List after another Installer removed two = %v, want one", got)
	}
	// The same bytes but one digest letter, written in place: same size,
	// same inode.
	lockPath := filepath.Join(f.env.Project, ".agents", "agentskills.lock")
	data, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"digest": "`)) + len(`"digest": "`)
	data[i] ^= 1
	fh, err := os.OpenFile(lockPath, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	bad, err := in.Verify(ctx)
	if err != nil || len(bad) != 1 || bad[0].State != StateModified {
		t.Errorf("Verify after the recorded digest changed in place = %v, %v, want one modified", bad, err)
	}
}

// TestNoOpSyncLeavesLockFile checks that a sync with nothing to do does
// not write the lock file again: it already holds what would be written.
func TestNoOpSyncLeavesLockFile(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{f.writeSkill(t, "one", "one", "")}, Agents: agentsOf(t, "claude-code", "codex")}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", "agentskills.lock")
	before, err := os.Stat(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := in.Sync(t.Context(), SyncRequest{})
	if err != nil || Changed(changes) {
		t.Fatalf("Sync = %v, %v, want nothing changed", actions(changes), err)
	}
	after, err := os.Stat(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a sync with nothing to do wrote the lock file again")
	}
}
