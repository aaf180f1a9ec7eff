package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// stampFolder makes a skill folder with nested folders, an executable
// file, an empty file and version-control metadata, and returns it.
func stampFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "x")
	files := map[string]string{
		"SKILL.md":          skillMD("x") + "Body.\n",
		"scripts/run.sh":    "#!/bin/sh\necho x\n",
		"refs/deep/note.md": "a note\n",
		"empty.txt":         "",
		".git/HEAD":         "ref: refs/heads/main\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stampDigest is folderStamps.digest, checked against skill.ContentDigest,
// returning how many folders it read.
func stampDigest(t *testing.T, s *folderStamps, in *Installer, dir string) int64 {
	t.Helper()
	before := s.read.Load()
	got, err := s.digest(t.Context(), in, dir, false)
	want, werr := skill.ContentDigest(t.Context(), dir)
	if err != nil || werr != nil || got != want {
		t.Fatalf("digest(%s) = %s, %v; want ContentDigest's %s (%v)", dir, got, err, want, werr)
	}
	return s.read.Load() - before
}

// settledStamps reads dir until the record vouches for it with no racy
// entry: a read then reads nothing.
func settledStamps(t *testing.T, s *folderStamps, in *Installer, dir string) {
	t.Helper()
	stampDigest(t, s, in, dir)
	cachetest.Settle()
	stampDigest(t, s, in, dir)
	if n := stampDigest(t, s, in, dir); n != 0 {
		t.Fatalf("digest(%s) of a settled record read %d folders, want 0", dir, n)
	}
}

// TestStampsDigest checks rule 16's digest: a stamped read gives
// skill.ContentDigest's digest, and a folder with a link is read by
// ContentDigest alone, with no record.
func TestStampsDigest(t *testing.T) {
	dir := stampFolder(t)
	d, f, err := hashStamped(t.Context(), dir, 100)
	want, _ := skill.ContentDigest(t.Context(), dir)
	if err != nil || d != want || f == nil || f.digest != want {
		t.Fatalf("hashStamped = %s, %v, %v; want %s and a record", d, f, err, want)
	}
	if got := len(f.entries); got != 8 { // ., SKILL.md, empty.txt, refs, refs/deep, note.md, scripts, run.sh
		t.Errorf("hashStamped recorded %d entries, want 8: %+v", got, f.entries)
	}
	if _, f, _ := hashStamped(t.Context(), dir, 3); f != nil {
		t.Errorf("hashStamped over the entry limit kept a record: %+v", f)
	}
	if err := os.Symlink("SKILL.md", filepath.Join(dir, "link.md")); err != nil {
		t.Skip(err)
	}
	d, f, err = hashStamped(t.Context(), dir, 100)
	want, _ = skill.ContentDigest(t.Context(), dir)
	if err != nil || d != want || f != nil {
		t.Errorf("hashStamped with a link = %s, %v, %v; want %s and no record", d, f, err, want)
	}
}

// TestStampsNoticeChanges checks rule 16: a settled record stands for
// reading the folder until a stat shows a change; each change here is
// noticed, the folder read again and its new digest returned.
func TestStampsNoticeChanges(t *testing.T) {
	changes := []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"same size, times set back", func(t *testing.T, dir string) {
			rewrite(t, filepath.Join(dir, "SKILL.md"), strings.ToUpper(skillMD("x")+"Body.\n"))
		}},
		{"truncated and refilled to the same size", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "refs", "deep", "note.md")
			fi, _ := os.Stat(p)
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("a nota\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
		{"replaced by a rename", func(t *testing.T, dir string) {
			tmp := filepath.Join(dir, "scripts", ".new")
			os.WriteFile(tmp, []byte("#!/bin/sh\necho y\n"), 0o755)
			if err := os.Rename(tmp, filepath.Join(dir, "scripts", "run.sh")); err != nil {
				t.Fatal(err)
			}
		}},
		{"made executable", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "empty.txt"), 0o755)
		}},
		{"a file added", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "refs", "deep", "more.md"), []byte("more\n"), 0o644)
		}},
		{"a file removed", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "refs", "deep", "note.md"))
		}},
		{"a folder replaced by a link", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "refs"))
			os.Symlink("scripts", filepath.Join(dir, "refs"))
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			in := f.installer(t)
			s := in.stamps
			dir := stampFolder(t)
			settledStamps(t, s, in, dir)
			before, _ := skill.ContentDigest(t.Context(), dir)
			c.change(t, dir)
			if n := stampDigest(t, s, in, dir); n != 1 {
				t.Errorf("digest after the change read %d folders, want 1", n)
			}
			if after, _ := skill.ContentDigest(t.Context(), dir); after == before {
				t.Errorf("the change left the digest %s as it was", after)
			}
		})
	}
}

// TestStampsRacy checks rule 16's racy rule: an entry whose change time
// lies within the racy window of when its stamp was taken is read again
// though its stamp is unchanged; out of the window it is not.
func TestStampsRacy(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	s := in.stamps
	dir := stampFolder(t)
	stampDigest(t, s, in, dir)
	rec := s.folders[dir]
	var newest int64
	for _, e := range rec.entries {
		newest = max(newest, e.stamp.Ctime)
	}
	for _, c := range []struct {
		name  string
		taken int64
		read  int64
	}{
		{"taken as the newest entry changed", newest, 1},
		{"taken within the window after it", newest + int64(25*time.Millisecond), 1},
		{"taken long after it", newest + 3e9, 0},
	} {
		r := *rec
		r.taken = c.taken
		s.folders[dir] = &r
		if n := stampDigest(t, s, in, dir); n != c.read {
			t.Errorf("%s: digest read %d folders, want %d", c.name, n, c.read)
		}
	}
}

// TestStampsRecordKept checks that the record is kept in the skill
// cache: a new Installer on the same cache reads nothing of a settled
// folder, and the record names the folders by the scope.
func TestStampsRecordKept(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	dir := stampFolder(t)
	settledStamps(t, in.stamps, in, dir)
	in.stamps.save(in)
	again := f.installer(t)
	if n := stampDigest(t, again.stamps, again, dir); n != 0 {
		t.Errorf("a new Installer read %d folders, want 0: the record is kept", n)
	}
	other := newFixture(t)
	elsewhere := New(other.env, WithCache(in.cache))
	if n := stampDigest(t, elsewhere.stamps, elsewhere, dir); n != 1 {
		t.Errorf("an Installer of another scope read %d folders, want 1: each scope has its record", n)
	}
}

// TestStampsRecordIgnored checks that a record cut short, damaged or
// malformed, or one listing what the folder does not hold, is ignored:
// the folder is read, and the digest is ContentDigest's.
func TestStampsRecordIgnored(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	dir := stampFolder(t)
	settledStamps(t, in.stamps, in, dir)
	good := encodeStamps(in.stamps.folders)
	if got := parseStamps(good); len(got) != 1 || !got[dir].same(in.stamps.folders[dir]) {
		t.Fatalf("parseStamps(encodeStamps(r)) = %+v, want r", got)
	}
	resum := func(body []byte) []byte {
		body = body[:bytes.LastIndex(body[:len(body)-1], []byte("\n"))+1]
		return fmt.Appendf(body, "sum %x\n", sha256.Sum256(body))
	}
	lines := strings.SplitAfter(string(good), "\n")
	hostile := map[string][]byte{
		"empty":             nil,
		"cut short":         good[:len(good)/2],
		"without its sum":   []byte(strings.Join(lines[:len(lines)-2], "")),
		"a byte changed":    bytes.Replace(good, []byte(" 1 "), []byte(" 2 "), 1),
		"another head":      resum(bytes.Replace(good, []byte(stampHead), []byte("agentadaptor install stat v0"), 1)),
		"a line lost":       resum([]byte(strings.Join(append(slices.Clone(lines[:3]), lines[4:]...), ""))),
		"a relative folder": resum(bytes.Replace(good, fmt.Appendf(nil, "%x", dir), fmt.Appendf(nil, "%x", "x"), 1)),
		"a path out":        resum(bytes.Replace(good, fmt.Appendf(nil, " %x\n", "empty.txt"), fmt.Appendf(nil, " %x\n", "../empty.txt"), 1)),
		"an entry twice":    resum([]byte(strings.Join(append(slices.Clone(lines[:4]), lines[3:]...), ""))),
		"a file as folder":  resum(bytes.Replace(good, []byte("\nf 0 "), []byte("\nd 0 "), 1)),
		"a short digest":    resum(bytes.Replace(good, []byte(in.stamps.folders[dir].digest), []byte("abc"), 1)),
	}
	for name, data := range hostile {
		if got := parseStamps(data); len(got) != 0 {
			t.Errorf("parseStamps(%s) = %d folders, want none", name, len(got))
		}
	}
	// A ghost: the record lists a file the folder does not hold, with
	// a digest of its own; the folder is read, not believed.
	ghost := *in.stamps.folders[dir]
	ghost.entries = append(ghost.entries, stampedEntry{path: "ghost.md", stamp: ghost.entries[1].stamp})
	ghost.digest = strings.Repeat("0", 64)
	in.stamps.folders[dir] = &ghost
	if n := stampDigest(t, in.stamps, in, dir); n != 1 {
		t.Errorf("digest with a ghost in the record read %d folders, want 1", n)
	}
}

// FuzzParseStamps checks that no record makes parseStamps panic, and
// that what it accepts encodes to a record it reads alike.
func FuzzParseStamps(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "x")
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "a", "b"), []byte("y"), 0o644)
	_, rec, _ := hashStamped(f.Context(), dir, 100)
	if rec != nil {
		f.Add(encodeStamps(map[string]*stampedFolder{dir: rec}))
	}
	f.Add([]byte(stampHead + "\nsum 00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := parseStamps(data)
		again := parseStamps(encodeStamps(got))
		if len(again) != len(got) {
			t.Fatalf("parseStamps(encodeStamps(r)) has %d folders, r has %d", len(again), len(got))
		}
		for dir, f := range got {
			if !again[dir].same(f) {
				t.Fatalf("parseStamps(encodeStamps(r))[%s] = %+v, want %+v", dir, again[dir], f)
			}
		}
	})
}

// TestSyncReadsNothingUnchanged checks rule 16 for a sync of a folder
// source with nothing to do: once the record has settled, a new
// Installer's Sync, frozen or not, reads no file of a source skill or a
// canonical copy (it neither checks, hashes, audits nor stages one),
// and still notices a source skill or a canonical copy changed to the
// same size with its times set back.
func TestSyncReadsNothingUnchanged(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"one", "two"} {
		f.writeSkill(t, "kit/"+name, name, "")
	}
	kit := filepath.Join(f.sources, "kit")
	root := cachetest.Root(t)
	agents := agentsOf(t, "claude-code", "codex")
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) = %v", kit, err)
	}
	for range 2 { // the first sync records, the second settles
		cachetest.Settle()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatalf("Sync() = %v", err)
		}
	}
	for _, frozen := range []bool{false, true} {
		in := trustInstaller(t, f, root, nil, Trust{})
		var opened []string
		in.staging = func(name string) { opened = append(opened, "staged "+name) }
		in.hashing = func(name string) { opened = append(opened, "hashed "+name) }
		in.auditing = func(name string) { opened = append(opened, "audited "+name) }
		changes, err := in.Sync(t.Context(), SyncRequest{Frozen: frozen})
		if err != nil || Changed(changes) {
			t.Fatalf("Sync(frozen %v) = %+v, %v; want no change", frozen, changes, err)
		}
		if n := in.stamps.read.Load(); n != 0 || len(opened) > 0 {
			t.Errorf("Sync(frozen %v) read %d folders and opened %q; want nothing read", frozen, n, opened)
		}
	}

	// A source skill changed to the same size, times set back: updated.
	src := filepath.Join(kit, "one", "scripts", "run.sh")
	rewrite(t, src, "#!/bin/sh\necho ONE\n")
	in := trustInstaller(t, f, root, nil, Trust{})
	changes, err := in.Sync(t.Context(), SyncRequest{})
	if err != nil || !hasAction(changes, "one", ActionUpdated) {
		t.Errorf("Sync() after the source changed = %+v, %v; want one updated", changes, err)
	}
	// A canonical copy changed so: modified, and the sync refuses it.
	cachetest.Settle()
	copyFile := filepath.Join(f.env.Project, ".agents", "skills", "two", "scripts", "run.sh")
	os.Chmod(copyFile, 0o755)
	rewrite(t, copyFile, "#!/bin/sh\necho TWO\n")
	_, err = trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{})
	if !errors.Is(err, ErrModified) {
		t.Errorf("Sync() after the canonical copy changed = %v, want ErrModified", err)
	}
	bad, err := trustInstaller(t, f, root, nil, Trust{}).Verify(t.Context())
	if err != nil || len(bad) == 0 || bad[0].Skill != "two" || bad[0].State != StateModified {
		t.Errorf("Verify() after the canonical copy changed = %+v, %v; want two modified", bad, err)
	}
}

// TestSyncLeavesLockFile checks that a sync with nothing to do leaves
// the lock file as it is, not written again (even one formatted by
// hand), and that a sync that changes an entry (the source changed, an
// entry edited by hand) or has work to do (a link removed) writes it.
func TestSyncLeavesLockFile(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"one", "two"} {
		f.writeSkill(t, "kit/"+name, name, "")
	}
	kit := filepath.Join(f.sources, "kit")
	root := cachetest.Root(t)
	agents := agentsOf(t, "claude-code", "codex")
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) = %v", kit, err)
	}
	path := filepath.Join(f.env.Project, ".agents", lockName)
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The same entries, formatted otherwise: one line.
	var v any
	if err := json.Unmarshal(written, &v); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(v)
	if err := os.WriteFile(path, compact, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	sync := func(what string) {
		t.Helper()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatalf("Sync() %s = %v", what, err)
		}
	}
	sync("with nothing to do, the file formatted otherwise")
	if got, _ := os.ReadFile(path); string(got) != string(written) {
		t.Errorf("lock file formatted otherwise after a sync with nothing to do =\n%s\nwant it in standard form\n%s", got, written)
	}
	before, _ = os.Stat(path)
	sync("with nothing to do")
	got, _ := os.ReadFile(path)
	after, _ := os.Stat(path)
	if string(got) != string(written) || !os.SameFile(before, after) {
		t.Errorf("a sync with nothing to do wrote the lock file:\n%s", got)
	}

	// A link removed: repaired, and the lock file written.
	if err := os.Remove(filepath.Join(f.env.Project, ".claude", "skills", "one")); err != nil {
		t.Fatal(err)
	}
	sync("after a link was removed")
	if got, _ := os.ReadFile(path); string(got) != string(written) {
		t.Errorf("lock file after a repair =\n%s\nwant\n%s", got, written)
	}

	// An entry edited by hand, with nothing to do on disk: the sync
	// records the entry as it finds the skill (not lenient).
	edited := strings.Replace(string(written), `"digest": `, `"lenient": true,
      "digest": `, 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	sync("after an entry was edited")
	if got, _ := os.ReadFile(path); string(got) != string(written) {
		t.Errorf("lock file after a sync of an edited entry =\n%s\nwant\n%s", got, written)
	}

	// The source changed: the skill updated, its new digest recorded.
	cachetest.Settle()
	rewrite(t, filepath.Join(kit, "one", "scripts", "run.sh"), "#!/bin/sh\necho ONE\n")
	sync("after the source changed")
	lock, err := readLock(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := skill.ContentDigest(t.Context(), filepath.Join(kit, "one"))
	if err != nil || lock.Skills["one"].Digest != d {
		t.Errorf("lock file after the source changed records %s for one, want %s (%v)", lock.Skills["one"].Digest, d, err)
	}
}

// hasAction reports whether changes hold the canonical copy of name
// with action.
func hasAction(changes []Change, name string, action Action) bool {
	for _, c := range changes {
		if c.Skill == name && c.Agent == "" && c.Action == action {
			return true
		}
	}
	return false
}

// rewrite replaces the file at p with body and sets its times back to
// what they were, as touch -d does: only its change time tells.
func rewrite(t *testing.T, p, body string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), fi.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestAddAuditsByStagingDigest checks that Add reads a folder source's
// skill once: the report kept for its content is looked up by the digest
// staging computes as it copies, not by hashing the skill first; a skill
// whose report is not kept is audited from its staged copy and, refused,
// is skipped with nothing of it installed.
func TestAddAuditsByStagingDigest(t *testing.T) {
	root := cachetest.Root(t)
	agents := agentsOf(t, "claude-code")
	first := newFixture(t)
	for _, name := range []string{"one", "two"} {
		first.writeSkill(t, "kit/"+name, name, "")
	}
	if _, err := trustInstaller(t, first, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(first.sources, "kit")}, Agents: agents}); err != nil {
		t.Fatalf("Add(first) = %v", err)
	}

	f := newFixture(t)
	for _, name := range []string{"one", "two"} {
		f.writeSkill(t, "kit/"+name, name, "")
	}
	f.writeSkill(t, "kit/bad", "bad", malicious)
	in := trustInstaller(t, f, root, nil, Trust{})
	var opened []string
	var mu sync.Mutex // skills are staged at the same time
	note := func(what string) { mu.Lock(); opened = append(opened, what); mu.Unlock() }
	in.staging = func(name string) { note("staged " + name) }
	in.hashing = func(name string) { note("hashed " + name) }
	in.auditing = func(name string) { note("audited " + name) }
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agents})
	var refused *trust.RefusedError
	if !errors.As(err, &refused) || len(refused.Refusals) != 1 || refused.Refusals[0].Skill != "bad" {
		t.Fatalf("Add() = %v, want bad refused", err)
	}
	if !hasAction(changes, "one", ActionInstalled) || !hasAction(changes, "two", ActionInstalled) || !slices.ContainsFunc(changes, func(c Change) bool { return c.Skill == "bad" && c.Action == ActionSkipped }) {
		t.Errorf("Add() changes = %+v, want one and two installed, bad skipped", changes)
	}
	want := []string{"audited SKILL.md", "audited scripts/run.sh"} // bad's staged copy
	for range 3 {                                                  // one, two and bad
		want = append(want, "staged SKILL.md", "staged scripts/run.sh")
	}
	slices.Sort(opened)
	slices.Sort(want)
	if !slices.Equal(opened, want) {
		t.Errorf("Add() opened %q, want %q: each skill read once, to be staged, and only bad's staged copy audited", opened, want)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "bad")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused skill's canonical copy: %v, want none", err)
	}

	// Strict: the refusal found after staging stops the request, and
	// nothing is changed.
	g := newFixture(t)
	g.writeSkill(t, "kit/one", "one", "")
	g.writeSkill(t, "kit/bad", "bad", malicious)
	changes, err = trustInstaller(t, g, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(g.sources, "kit")}, Agents: agents, Strict: true})
	if !errors.As(err, &refused) || len(changes) > 0 {
		t.Fatalf("Add(strict) = %+v, %v; want no change reported and a *trust.RefusedError", changes, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(g.env.Project, ".agents")); len(entries) > 0 {
		t.Errorf("Add(strict) refused left %v in .agents; want nothing changed", entries)
	}
}

// TestStampsSourceWithinLimits checks that the record vouches for a
// source skill only within the cache's limits: a skill with a file over
// MaxFileSize gets no digest from it, and is read as staging reads it.
func TestStampsSourceWithinLimits(t *testing.T) {
	f := newFixture(t)
	dir := f.writeSkill(t, "kit/x", "x", strings.Repeat("x", 200))
	c := candidate{dir: dir, root: filepath.Join(f.sources, "kit"), noLinks: true}
	for _, tc := range []struct {
		max  int64
		want bool
	}{{1 << 20, true}, {100, false}} {
		in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)), skill.WithMaxFileSize(tc.max))))
		want, _ := skill.ContentDigest(t.Context(), dir)
		if got := in.stamps.sourceDigest(t.Context(), in, &c); (got == want) != tc.want || (got != "" && got != want) {
			t.Errorf("sourceDigest with MaxFileSize %d = %q, want the digest: %v", tc.max, got, tc.want)
		}
	}
}

// TestStampedSourceLinkAbove checks that a sync takes a folder source's
// skills from the record only while the folders above each in the source
// are folders: the folder holding a skill, moved away and linked back,
// has the source read again.
func TestStampedSourceLinkAbove(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/group/x", "x", "")
	kit := filepath.Join(f.sources, "kit")
	root := cachetest.Root(t)
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "claude-code"), Skills: []string{"x"}}); err != nil {
		t.Fatalf("Add(%s) = %v", kit, err)
	}
	for range 2 {
		cachetest.Settle()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatalf("Sync() = %v", err)
		}
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	in := trustInstaller(t, f, root, nil, Trust{})
	src := lock.Skills["x"].Source
	if r := in.stampedSource(t.Context(), src, []string{"x"}, lock, nil); r == nil || len(r.skills) != 1 || r.skills[0].name != "x" {
		t.Fatalf("stampedSource(%s) of a settled record = %+v, want x", src, r)
	}
	away := filepath.Join(t.TempDir(), "group")
	if err := os.Rename(filepath.Join(kit, "group"), away); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(away, filepath.Join(kit, "group")); err != nil {
		t.Skip(err)
	}
	if r := in.stampedSource(t.Context(), src, []string{"x"}, lock, nil); r != nil {
		t.Errorf("stampedSource(%s) with a link above the skill = %+v, want nil: the source is read", src, r)
	}
}

// TestStampedSyncWithinLimits checks that a skill the record found
// usable is taken from it only within the cache's limits: a sync under
// a smaller MaxFileSize refuses it as a sync that reads it does.
func TestStampedSyncWithinLimits(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/x", "x", strings.Repeat("x", 2000))
	kit := filepath.Join(f.sources, "kit")
	root := cachetest.Root(t)
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cachetest.Settle()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	small := func(root string) *Installer {
		return New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(root), skill.WithMaxFileSize(100))), WithLockDir(filepath.Join(f.env.Home, ".locks")))
	}
	_, fresh := small(cachetest.Root(t)).Sync(t.Context(), SyncRequest{})
	_, stamped := small(root).Sync(t.Context(), SyncRequest{})
	if fresh == nil || stamped == nil {
		t.Errorf("Sync() under MaxFileSize 100: without a record %v, with one %v; want both refused", fresh, stamped)
	}
}

// TestStampsOnlyOnStampableFS checks that the record is trusted only on
// a file system whose change times no user can set back: where
// stampableFS says no, a settled record vouches for nothing, and a
// sync reads every folder.
func TestStampsOnlyOnStampableFS(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/x", "x", "")
	root := cachetest.Root(t)
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cachetest.Settle()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, stampable := range []bool{true, false} {
		in := trustInstaller(t, f, root, nil, Trust{})
		var asked []string
		in.stampable = func(dir string) bool { asked = append(asked, dir); return stampable }
		if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatal(err)
		}
		if n := in.stamps.read.Load(); (n == 0) != stampable || len(asked) == 0 {
			t.Errorf("Sync() on a file system stampable %v read %d folders (asked of %q); want them read: %v", stampable, n, asked, !stampable)
		}
	}
}

// TestStampsDevsForgottenAfterFailedOp checks that the file system
// answers of an operation that failed before saving (a source gone) are
// not trusted by the next on the same Installer: the file system may
// have been remounted since, so the next asks again.
func TestStampsDevsForgottenAfterFailedOp(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/x", "x", "")
	f.writeSkill(t, "zz/y", "y", "")
	root := cachetest.Root(t)
	for _, src := range []string{"kit", "zz"} {
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, src)}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		cachetest.Settle()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	in := trustInstaller(t, f, root, nil, Trust{})
	in.stampable = func(string) bool { return true }
	if err := os.RemoveAll(filepath.Join(f.sources, "zz")); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Sync(t.Context(), SyncRequest{}); err == nil {
		t.Fatal("Sync() with a source gone succeeded")
	}
	// List hashes folders from several goroutines, each of which may ask.
	var (
		mu    sync.Mutex
		asked []string
	)
	in.stampable = func(dir string) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, dir)
		return false
	}
	before := in.stamps.read.Load()
	if _, err := in.List(t.Context(), ListRequest{}); err != nil {
		t.Fatal(err)
	}
	if n := in.stamps.read.Load() - before; len(asked) == 0 || n == 0 {
		t.Errorf("List() after a failed Sync() asked of %q and read %d folders; want the file system asked again and the folders read", asked, n)
	}
}

// TestStampedReadOpensWhatItStamped checks that a stamped read vouches
// only for the file it stamped: a file replaced after its stat, by a
// link or by another file, has the folder read by skill.ContentDigest.
func TestStampedReadOpensWhatItStamped(t *testing.T) {
	dir := t.TempDir()
	p, other := filepath.Join(dir, "SKILL.md"), filepath.Join(dir, "other.md")
	for _, replace := range []func() error{
		func() error { os.Remove(p); return os.Symlink(other, p) },
		func() error { return os.Rename(other, p) },
	} {
		for _, q := range []string{p, other} {
			if err := os.WriteFile(q, []byte("text\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := skillcache.StampOf(fi); !ok {
			t.Skip("no stamps on this platform")
		}
		if err := replace(); err != nil {
			t.Fatal(err)
		}
		w := &stampWalk{ctx: t.Context(), max: 10, f: &stampedFolder{}}
		if err := w.file(p, "SKILL.md", fi); !errors.Is(err, errNoStamps) {
			t.Errorf("file() of a file replaced after its stat = %v, want errNoStamps", err)
		}
	}
}

// TestSyncRewritesLockFileReadOtherwise checks that a sync with nothing
// to do writes, in standard form, a lock file edited into one that Go's
// JSON decodes otherwise than it reads: a key in another case beside
// the real one (matched case-insensitively), a key twice (the last
// kept), a key unknown; the entries stay as decoded.
func TestSyncRewritesLockFileReadOtherwise(t *testing.T) {
	for name, edit := range map[string]func([]byte) []byte{
		"a key in another case": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"source":`), []byte(`"SOURCE": "https://example.com/what-a-reader-sees", "source":`), 1)
		},
		"a key alone in another case": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"source":`), []byte(`"Source":`), 1)
		},
		"a key twice": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"source":`), []byte(`"source": "https://example.com/what-a-reader-sees", "source":`), 1)
		},
		"an unknown key": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"source":`), []byte(`"mirror": "https://example.com/what-a-reader-sees", "source":`), 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			in := f.installer(t)
			src := f.writeSkill(t, "foo", "foo", "")
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
				t.Fatal(err)
			}
			written, err := os.ReadFile(in.lockPath())
			if err != nil {
				t.Fatal(err)
			}
			edited := edit(written)
			if bytes.Equal(edited, written) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(in.lockPath(), edited, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(in.lockPath()); !bytes.Equal(got, written) {
				t.Errorf("lock file after a sync with nothing to do =\n%s\nwant it in standard form:\n%s", got, written)
			}
		})
	}
}
