package agentdir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestKey checks rule 8: the keys are the bytes the drivers hashed before
// the kit (values recorded from the drivers' own code), so no mount or
// home moves.
func TestKey(t *testing.T) {
	rs := driver.ResolvedSkills{Fingerprint: "fp-1", Entries: []driver.ResolvedSkill{
		{RuntimeName: "review", Path: "/c/1/review"}, {RuntimeName: "tone", Path: "/c/2/tone"},
	}}
	tests := []struct {
		name  string
		kind  Kind
		rs    driver.ResolvedSkills
		extra []string
		want  string
	}{
		{"claude mount", ClaudeMount, rs, nil, "08aeb10ec86700f4c37caeebb35dbe19"},
		{"empty claude mount", ClaudeMount, driver.ResolvedSkills{}, nil, "3426d70c3b7fcffd8a5b6e984273eedf"},
		{"codex home with the user's skills", CodexHome, rs, []string{"/u/.codex", "with the user's skills"}, "bfc21b9331ee3e43bf16716b990d7625"},
		{"codex home", CodexHome, rs, []string{"/u/.codex"}, "4c360ecb6c343aa0939972013a73ff40"},
		{"empty codex home", CodexHome, driver.ResolvedSkills{}, []string{""}, "399cb279b7c244190b306f12ee7c9d0d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Key(tt.kind, tt.rs, tt.extra...); got != tt.want {
				t.Errorf("Key(%v, %+v, %q) = %s, want %s", tt.kind, tt.rs, tt.extra, got, tt.want)
			}
		})
	}
	// Framing: moving a byte from one field to the next changes the key.
	a := Key(ClaudeMount, driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{RuntimeName: "ab", Path: "c"}}})
	b := Key(ClaudeMount, driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{RuntimeName: "a", Path: "bc"}}})
	if a == b || !ValidKey(a) {
		t.Errorf("keys %s and %s of different sets; want two valid keys", a, b)
	}
}

// TestPublish checks rule 9.
func TestPublish(t *testing.T) {
	root := t.TempDir()
	l := acquire(t, root, ClaudeMount, key)
	fill := func(content string) func(string) error {
		return func(staging string) error { return os.WriteFile(filepath.Join(staging, "f"), []byte(content), 0o644) }
	}
	holds := func(content string) func(string) bool {
		return func(dir string) bool {
			b, err := os.ReadFile(filepath.Join(dir, "f"))
			return err == nil && string(b) == content
		}
	}
	dir, err := Publish(l, holds("one"), fill("one"))
	if err != nil || dir != l.Dir() || !holds("one")(dir) {
		t.Fatalf("Publish = %s, %v; want %s holding one", dir, err, l.Dir())
	}
	// Whole: reused, fill not called.
	if _, err := Publish(l, holds("one"), func(string) error { return errors.New("filled again") }); err != nil {
		t.Errorf("Publish of a whole folder = %v, want it reused", err)
	}
	// Not whole: replaced, and nothing is left beside it.
	if dir, err := Publish(l, holds("two"), fill("two")); err != nil || !holds("two")(dir) {
		t.Errorf("Publish over a broken folder = %v, want it replaced", err)
	}
	// A fill that fails leaves no staging.
	if _, err := Publish(l, holds("three"), func(string) error { return errors.New("MARK-FILL") }); err == nil || !strings.Contains(err.Error(), "MARK-FILL") {
		t.Errorf("Publish with a failing fill = %v, want its error", err)
	}
	if names, _ := ReadNames(l.Base()); !slices.Equal(names, []string{kindFile, key, key + leaseSuffix}) {
		t.Errorf("%s holds %v, want only the kind file, the folder and its lease", l.Base(), names)
	}
}

// TestPublishRace checks rule 9 with runs racing to publish one folder:
// each gets the same whole folder.
func TestPublishRace(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			l, err := Acquire(t.Context(), root, ClaudeMount, key)
			if err != nil {
				errs[i] = err
				return
			}
			defer l.Release()
			intact := func(dir string) bool { _, err := os.Stat(filepath.Join(dir, "f")); return err == nil }
			_, errs[i] = Publish(l, intact, func(staging string) error { return os.WriteFile(filepath.Join(staging, "f"), nil, 0o644) })
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	names, _ := ReadNames(filepath.Join(root, "mounts", "claude"))
	if !slices.Equal(names, []string{kindFile, key, key + leaseSuffix}) {
		t.Errorf("after the race the kind's folder holds %v, want the kind file, the folder and its lease", names)
	}
}

// TestMountShape checks rule 10 for a path of one folder (an OpenCode
// config folder's skills/) and of two (Claude Code's .claude/skills).
func TestMountShape(t *testing.T) {
	src := t.TempDir()
	a := cachetest.WriteSkill(t, src, "a", "A")
	digest := func(context.Context, string) (string, error) { return "d", nil }
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a", RuntimeName: "a", Path: a, Digest: "d"}}}
	for _, sub := range []string{"skills", ".claude/skills"} {
		t.Run(sub, func(t *testing.T) {
			l := acquire(t, t.TempDir(), ClaudeMount, key)
			dir, err := Mount(t.Context(), l, sub, rs, digest)
			if err != nil {
				t.Fatal(err)
			}
			skills := filepath.Join(dir, filepath.FromSlash(sub))
			if target, err := os.Readlink(filepath.Join(skills, "a")); err != nil || target != a {
				t.Errorf("mounted a -> %q, %v; want %s", target, err, a)
			}
			if fi, err := os.Stat(skills); err != nil || fi.Mode().Perm() != 0o555 {
				t.Errorf("skills folder %v, %v; want mode 0555", fi, err)
			}
			if ok, err := MountIntact(t.Context(), dir, sub, rs, digest); !ok {
				t.Errorf("MountIntact = false, %v; want true", err)
			}
			// Anything else in the mount makes it broken.
			os.Chmod(skills, 0o755)
			os.WriteFile(filepath.Join(dir, "extra"), nil, 0o644)
			if ok, _ := MountIntact(t.Context(), dir, sub, rs, digest); ok {
				t.Error("MountIntact of a mount with an extra file = true")
			}
			if dir, err = Mount(t.Context(), l, sub, rs, digest); err != nil {
				t.Fatal(err)
			}
			if names, _ := ReadNames(dir); !slices.Equal(names, []string{strings.Split(sub, "/")[0]}) {
				t.Errorf("rebuilt mount holds %v", names)
			}
		})
	}
}

// TestSyncLinks checks rule 11.
func TestSyncLinks(t *testing.T) {
	dir, src := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	a, b := cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B")
	if err := SyncLinks(dir, map[string]string{"a": a, "b": b}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".system", "x"), 0o755) // the agent's own
	os.MkdirAll(filepath.Join(dir, "theirs"), 0o755)       // someone else's
	if err := SyncLinks(dir, map[string]string{"a": b}); err != nil {
		t.Fatal(err)
	}
	if names, _ := ReadNames(dir); !slices.Equal(names, []string{".system", "a", "theirs"}) {
		t.Errorf("skills folder holds %v, want .system, a and theirs", names)
	}
	if target, _ := os.Readlink(filepath.Join(dir, "a")); target != b {
		t.Errorf("a -> %s, want %s", target, b)
	}
	if err := SyncLinks(dir, map[string]string{"theirs": a}); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("SyncLinks over a folder of someone else's = %v, want an error saying to remove it", err)
	}
}

// TestMirrorLink checks rule 11.
func TestMirrorLink(t *testing.T) {
	dir := t.TempDir()
	user, link := filepath.Join(dir, "user.json"), filepath.Join(dir, "managed.json")
	if err := MirrorLink(link, user); err != nil || exists(link) {
		t.Fatalf("MirrorLink to a missing file = %v, exists %v; want nothing made", err, exists(link))
	}
	os.WriteFile(user, []byte("u"), 0o600)
	if err := MirrorLink(link, user); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(link); err != nil || target != user {
		t.Errorf("link -> %q, %v; want %s", target, err, user)
	}
	os.Remove(user)
	if err := MirrorLink(link, user); err != nil || exists(link) {
		t.Errorf("MirrorLink after the file went = %v, link exists %v; want it removed", err, exists(link))
	}
	// A file the agent put in the link's place stays.
	os.WriteFile(user, []byte("u"), 0o600)
	os.WriteFile(link, []byte("newer"), 0o600)
	if err := MirrorLink(link, user); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(link); string(b) != "newer" {
		t.Errorf("the agent's file holds %q, want it left", b)
	}
}

// TestPublishLosesTheRace checks rule 9 when another run publishes while
// this one fills its staging: a whole folder of the winner's is used, a
// broken one replaced.
func TestPublishLosesTheRace(t *testing.T) {
	holds := func(dir string) bool {
		b, err := os.ReadFile(filepath.Join(dir, "f"))
		return err == nil && string(b) == "ours"
	}
	tests := []struct {
		name   string
		winner string // what the other run publishes
		want   string // what the folder holds after
	}{
		{"whole", "ours", "ours"},
		{"broken", "theirs", "ours"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := acquire(t, t.TempDir(), ClaudeMount, key)
			dir, err := Publish(l, holds, func(staging string) error {
				if err := os.Mkdir(l.Dir(), 0o700); err != nil {
					return err
				}
				os.WriteFile(filepath.Join(l.Dir(), "f"), []byte(tt.winner), 0o644)
				return os.WriteFile(filepath.Join(staging, "f"), []byte("ours"), 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != tt.want {
				t.Errorf("published folder holds %q, want %q", b, tt.want)
			}
			if names, _ := ReadNames(l.Base()); !slices.Equal(names, []string{kindFile, key, key + leaseSuffix}) {
				t.Errorf("%s holds %v, want only the kind file, the folder and its lease", l.Base(), names)
			}
		})
	}
}

// TestUse checks that a build that fails releases the lease, and one that
// succeeds holds it until release.
func TestUse(t *testing.T) {
	root := t.TempDir()
	leased := func() bool { return inUse(filepath.Join(root, "mounts", "claude", key+leaseSuffix)) }
	if _, _, err := Use(t.Context(), root, ClaudeMount, key, func(*Lease) (string, error) { return "", errors.New("MARK-BUILD") }); err == nil || !strings.Contains(err.Error(), "MARK-BUILD") || leased() {
		t.Errorf("Use with a failing build = %v, leased %v; want its error and no lease", err, leased())
	}
	dir, release, err := Use(t.Context(), root, ClaudeMount, key, func(l *Lease) (string, error) { return l.Dir(), nil })
	if err != nil || dir != filepath.Join(root, "mounts", "claude", key) || !leased() {
		t.Fatalf("Use = %s, %v, leased %v; want the key's folder, leased", dir, err, leased())
	}
	release()
	if leased() {
		t.Error("the lease is held after release")
	}
}

// TestMountIntact checks rule 10's cases of a mount that is not whole.
func TestMountIntact(t *testing.T) {
	src := t.TempDir()
	a, b := cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B")
	digest := func(_ context.Context, dir string) (string, error) {
		data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		return string(data), err
	}
	want, _ := digest(t.Context(), a)
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a", RuntimeName: "a", Path: a, Digest: want}}}
	tests := []struct {
		name  string
		spoil func(skills string)
		whole bool
	}{
		{"as made", func(string) {}, true},
		{"a faithful copy", func(skills string) {
			os.Remove(filepath.Join(skills, "a"))
			os.CopyFS(filepath.Join(skills, "a"), os.DirFS(a))
		}, true},
		{"a changed copy", func(skills string) {
			os.Remove(filepath.Join(skills, "a"))
			os.CopyFS(filepath.Join(skills, "a"), os.DirFS(b))
		}, false},
		{"a link elsewhere", func(skills string) { os.Remove(filepath.Join(skills, "a")); os.Symlink(b, filepath.Join(skills, "a")) }, false},
		{"another skill", func(skills string) { os.Symlink(b, filepath.Join(skills, "b")) }, false},
		{"a skill missing", func(skills string) { os.Remove(filepath.Join(skills, "a")); os.Symlink(b, filepath.Join(skills, "b")) }, false},
		{"a link for the skills folder", func(skills string) {
			os.Rename(skills, skills+".real")
			os.Symlink(skills+".real", skills)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := acquire(t, t.TempDir(), ClaudeMount, key)
			dir, err := Mount(t.Context(), l, ".claude/skills", rs, digest)
			if err != nil {
				t.Fatal(err)
			}
			skills := filepath.Join(dir, ".claude", "skills")
			os.Chmod(skills, 0o755)
			tt.spoil(skills)
			if ok, err := MountIntact(t.Context(), dir, ".claude/skills", rs, digest); ok != tt.whole {
				t.Errorf("MountIntact = %v, %v; want %v", ok, err, tt.whole)
			}
		})
	}
}

// TestLinks checks Link and MirrorLink with links already there.
func TestLinks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "l")
	for range 2 {
		if err := Link(p, "/target/one"); err != nil {
			t.Fatalf("Link = %v, want a link made or kept", err)
		}
	}
	if err := Link(p, "/target/two"); err == nil {
		t.Error("Link over a link elsewhere = nil, want an error")
	}
	user := filepath.Join(dir, "user")
	os.WriteFile(user, nil, 0o600)
	if err := MirrorLink(p, user); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(p); target != user {
		t.Errorf("MirrorLink left %s -> %s, want %s", p, target, user)
	}
	// A copy where a link cannot be made: here, a link exists already.
	if err := LinkOrCopy(p, dir); err == nil {
		t.Error("LinkOrCopy over an entry = nil, want an error")
	}
}

// TestMirrorDir checks rule 11 for a whole folder: every entry of the
// user's is linked but those excepted, an entry the user no longer has is
// unlinked, and what the agent made stays.
func TestMirrorDir(t *testing.T) {
	dir, user := t.TempDir(), t.TempDir()
	for _, n := range []string{"a", "b", "skills"} {
		os.WriteFile(filepath.Join(user, n), []byte(n), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "own"), []byte("own"), 0o600)
	if err := MirrorDir(dir, user, "skills"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(user, "b"))
	if err := MirrorDir(dir, user, "skills"); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "a")); err != nil || target != filepath.Join(user, "a") {
		t.Errorf("a -> %q, %v; want a link to the user's", target, err)
	}
	for _, n := range []string{"b", "skills"} {
		if exists(filepath.Join(dir, n)) {
			t.Errorf("%s is in the mirror; want it left out", n)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "own")); string(b) != "own" {
		t.Errorf("the agent's own file holds %q, want it left", b)
	}
	if err := MirrorDir(dir, filepath.Join(user, "missing")); err != nil {
		t.Errorf("MirrorDir of a missing user folder = %v, want nil", err)
	}
}
