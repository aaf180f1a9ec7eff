package agentdir

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// settledSnap reads dirs as a snapshot taken an hour from now, so that
// the folders count as settled (rule 12) without waiting.
func settledSnap(t *testing.T, dirs ...string) *Snapshot {
	t.Helper()
	s := Snap(dirs...)
	if s == nil {
		t.Fatalf("Snap(%q) = nil", dirs)
	}
	s.at = s.at.Add(time.Hour)
	return s
}

func skipWithoutChangeTimes(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no change times on " + runtime.GOOS + ": every check is a full one (rule 12)")
	}
}

// TestStamp checks rule 12: a stamp is taken as current only for the
// same want, the same state of every folder, and folders that had
// settled when it was read; a link in its place is not read.
func TestStamp(t *testing.T) {
	skipWithoutChangeTimes(t)
	tests := []struct {
		name   string
		change func(t *testing.T, l *Lease, dir string)
		want   string
		fresh  bool
	}{
		{"nothing changed", func(*testing.T, *Lease, string) {}, "w", true},
		{"another want", func(*testing.T, *Lease, string) {}, "v", false},
		{"an entry added", func(t *testing.T, _ *Lease, dir string) {
			os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
		}, "w", false},
		{"an entry added and removed", func(t *testing.T, _ *Lease, dir string) {
			os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
			os.Remove(filepath.Join(dir, "x"))
		}, "w", false},
		{"a link made anew", func(t *testing.T, _ *Lease, dir string) {
			os.Remove(filepath.Join(dir, "a"))
			os.Symlink("/elsewhere", filepath.Join(dir, "a"))
		}, "w", false},
		{"mode changed", func(t *testing.T, _ *Lease, dir string) { os.Chmod(dir, 0o700) }, "w", false},
		{"folder replaced", func(t *testing.T, _ *Lease, dir string) {
			os.Rename(dir, dir+".old")
			os.Mkdir(dir, 0o755)
			os.Symlink("/target", filepath.Join(dir, "a"))
		}, "w", false},
		{"stamp is a link", func(t *testing.T, l *Lease, _ string) {
			p := l.stampPath("n")
			os.Rename(p, p+".real")
			os.Symlink(p+".real", p)
		}, "w", false},
		{"stamp cut short", func(t *testing.T, l *Lease, _ string) {
			data, _ := os.ReadFile(l.stampPath("n"))
			os.WriteFile(l.stampPath("n"), data[:len(data)-3], 0o600)
		}, "w", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := acquire(t, t.TempDir(), GeminiHome, key)
			dir := filepath.Join(t.TempDir(), "skills")
			os.Mkdir(dir, 0o755)
			os.Symlink("/target", filepath.Join(dir, "a"))
			l.Stamp("n", "w", settledSnap(t, dir))
			if !l.Unchanged("n", "w", dir) {
				t.Fatal("Unchanged right after Stamp = false")
			}
			tt.change(t, l, dir)
			if got := l.Unchanged("n", tt.want, dir); got != tt.fresh {
				t.Errorf("Unchanged after %s = %v, want %v", tt.name, got, tt.fresh)
			}
		})
	}
}

// TestStampUnsettled checks rule 12: a snapshot of a folder that changed
// a moment before it was read is not written, so a later change in the
// same tick of the file system's clock cannot go unseen.
func TestStampUnsettled(t *testing.T) {
	skipWithoutChangeTimes(t)
	l := acquire(t, t.TempDir(), GeminiHome, key)
	dir := filepath.Join(t.TempDir(), "skills")
	os.Mkdir(dir, 0o755)
	// Read as if a moment after the folder changed, whatever the load of
	// the machine made of the time between the two calls.
	s := Snap(dir)
	s.at = time.Unix(0, s.ctimes[0]).Add(settleFine / 2)
	l.Stamp("n", "w", s)
	if _, err := os.Lstat(l.stampPath("n")); err == nil {
		t.Error("a snapshot of a folder made a moment ago was written as a stamp")
	}
	if l.Unchanged("n", "w", dir) {
		t.Error("Unchanged without a stamp = true")
	}
}

// TestMountStamped checks rules 10 and 12 together: however a stamped
// mount is spoiled, the next Mount finds it and makes it whole again.
func TestMountStamped(t *testing.T) {
	skipWithoutChangeTimes(t)
	src := t.TempDir()
	a, b := cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B")
	digest := func(_ context.Context, dir string) (string, error) {
		data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		return string(data), err
	}
	want, _ := digest(t.Context(), a)
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a", RuntimeName: "a", Path: a, Digest: want}}}
	const sub = ".claude/skills"
	for _, tt := range []struct {
		name  string
		spoil func(dir, skills string)
	}{
		{"a link elsewhere", func(_, skills string) {
			os.Remove(filepath.Join(skills, "a"))
			os.Symlink(b, filepath.Join(skills, "a"))
		}},
		{"another skill", func(_, skills string) { os.Symlink(b, filepath.Join(skills, "b")) }},
		{"a changed copy", func(_, skills string) {
			os.Remove(filepath.Join(skills, "a"))
			os.CopyFS(filepath.Join(skills, "a"), os.DirFS(b))
		}},
		{"something beside the skills", func(dir, _ string) { os.WriteFile(filepath.Join(dir, "extra"), nil, 0o644) }},
		{"a link for the skills folder", func(_, skills string) {
			os.Rename(skills, skills+".real")
			os.Symlink(skills+".real", skills)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := acquire(t, t.TempDir(), ClaudeMount, key)
			dir, err := Mount(t.Context(), l, sub, rs, digest)
			if err != nil {
				t.Fatal(err)
			}
			l.Stamp("mount", mountDigest(sub, rs), settledSnap(t, mountDirs(dir, sub)...))
			if !l.Unchanged("mount", mountDigest(sub, rs), mountDirs(dir, sub)...) {
				t.Fatal("a stamped mount is not taken as unchanged")
			}
			skills := filepath.Join(dir, filepath.FromSlash(sub))
			os.Chmod(skills, 0o755)
			tt.spoil(dir, skills)
			if dir, err = Mount(t.Context(), l, sub, rs, digest); err != nil {
				t.Fatal(err)
			}
			if ok, err := MountIntact(t.Context(), dir, sub, rs, digest); !ok {
				t.Errorf("Mount of a stamped mount with %s returned a broken one (%v)", tt.name, err)
			}
		})
	}
}

// TestMountIntactLinks checks that a mount holding a copy is not one
// that rule 12 stamps: its content can change without its folders.
func TestMountIntactLinks(t *testing.T) {
	src := t.TempDir()
	a := cachetest.WriteSkill(t, src, "a", "A")
	digest := func(context.Context, string) (string, error) { return "d", nil }
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a", RuntimeName: "a", Path: a, Digest: "d"}}}
	l := acquire(t, t.TempDir(), QwenMount, key)
	dir, err := Mount(t.Context(), l, "skills", rs, digest)
	if err != nil {
		t.Fatal(err)
	}
	if ok, links, err := mountIntact(t.Context(), dir, "skills", rs, digest); !ok || !links {
		t.Errorf("mountIntact of a mount of links = %v, %v, %v; want true, true", ok, links, err)
	}
	skills := filepath.Join(dir, "skills")
	os.Chmod(skills, 0o755)
	os.Remove(filepath.Join(skills, "a"))
	os.CopyFS(filepath.Join(skills, "a"), os.DirFS(a))
	if ok, links, err := mountIntact(t.Context(), dir, "skills", rs, digest); !ok || links {
		t.Errorf("mountIntact of a mount with a copy = %v, %v, %v; want true, false", ok, links, err)
	}
}

// TestLeaseSyncLinks checks rules 11 and 12: a stamped skills folder is
// left alone while it and the want stay as they were, and brought back
// to the want when either changes.
func TestLeaseSyncLinks(t *testing.T) {
	skipWithoutChangeTimes(t)
	src := t.TempDir()
	a, b := cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B")
	l := acquire(t, t.TempDir(), GeminiHome, key)
	dir := filepath.Join(t.TempDir(), "skills")
	want := map[string]string{"a": a}
	if err := l.SyncLinks("skills", dir, want); err != nil {
		t.Fatal(err)
	}
	l.Stamp("skills", linksDigest(want), settledSnap(t, dir))
	os.Remove(filepath.Join(dir, "a"))
	if err := l.SyncLinks("skills", dir, want); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "a")); err != nil || target != a {
		t.Errorf("a removed from a stamped folder: a -> %q, %v after SyncLinks; want %s", target, err, a)
	}
	l.Stamp("skills", linksDigest(want), settledSnap(t, dir))
	want = map[string]string{"a": a, "b": b}
	if err := l.SyncLinks("skills", dir, want); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "b")); err != nil || target != b {
		t.Errorf("b wanted after a stamp: b -> %q, %v; want %s", target, err, b)
	}
}
