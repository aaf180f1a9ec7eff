package install

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// fixture is a temporary HOME and project, and a folder of source skills.
type fixture struct {
	env     Env
	sources string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{
		env:     Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "project"), Getenv: func(string) string { return "" }},
		sources: filepath.Join(base, "sources"),
	}
	for _, d := range []string{f.env.Home, f.env.Project, f.sources} {
		os.MkdirAll(d, 0o755)
	}
	return f
}

func skillMD(name string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\n# %s\n", name, name, name)
}

// writeSkill writes a skill folder under the sources.
func (f *fixture) writeSkill(t *testing.T, rel, name, extra string) string {
	t.Helper()
	dir := filepath.Join(f.sources, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(name)+extra), 0o644)
	os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\necho "+name+"\n"), 0o755)
	return dir
}

func (f *fixture) installer(t *testing.T, opts ...Option) *Installer {
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")))
	return New(f.env, append([]Option{WithCache(c), withChecker(nameChecker), WithLockDir(filepath.Join(f.env.Home, ".locks"))}, opts...)...)
}

// nameChecker names a skill after the name line of its SKILL.md.
func nameChecker(dir string) (string, []string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return "", nil, err
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\nname: "), "\n")
	return name, nil, nil
}

func agentsOf(t *testing.T, ids ...string) []Agent {
	var out []Agent
	for _, id := range ids {
		a, ok := LookupAgent(id)
		if !ok {
			t.Fatalf("no agent %s", id)
		}
		out = append(out, a)
	}
	return out
}

func actions(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, fmt.Sprintf("%s/%s:%s:%s", c.Skill, c.Agent, c.Kind, c.Action))
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAddLinksAgentsToOneCanonicalCopy(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "code-review", "")
	in := f.installer(t)
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"code-review/:canonical:installed", "code-review/claude-code:link:installed", "code-review/codex:canonical:installed"}
	if got := actions(changes); !slices.Equal(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "code-review")
	if got := readFile(t, filepath.Join(canonical, "SKILL.md")); got != skillMD("code-review") {
		t.Errorf("canonical SKILL.md = %q", got)
	}
	if fi, err := os.Stat(filepath.Join(canonical, "scripts", "run.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("script lost its executable bit: %v", err)
	}
	link := filepath.Join(f.env.Project, ".claude", "skills", "code-review")
	target, err := os.Readlink(link)
	if err != nil || filepath.IsAbs(target) {
		t.Fatalf("claude-code entry = %q, %v, want a relative link", target, err)
	}
	if got := readFile(t, filepath.Join(link, "SKILL.md")); got != skillMD("code-review") {
		t.Errorf("SKILL.md through the link = %q", got)
	}
	lock := readFile(t, filepath.Join(f.env.Project, ".agents", lockName))
	for _, want := range []string{`"code-review"`, `"source": "`, `"digest": "`, `"kind": "link"`, `"path": ".claude/skills/code-review"`} {
		if !strings.Contains(lock, want) {
			t.Errorf("lock file lacks %s:\n%s", want, lock)
		}
	}
	// A second run changes nothing and says so.
	again, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex")})
	if err != nil || Changed(again) {
		t.Errorf("second Add = %v, %v, want everything unchanged", actions(again), err)
	}
	if readFile(t, filepath.Join(f.env.Project, ".agents", lockName)) != lock {
		t.Errorf("second Add rewrote the lock file differently")
	}
}

func TestAddNeverTouchesWhatItDidNotCreate(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "code-review", "")
	mine := filepath.Join(f.env.Project, ".claude", "skills", "code-review")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "SKILL.md"), []byte("my own"), 0o644)
	in := f.installer(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex")})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), mine) {
		t.Fatalf("Add over a user's folder = %v, want a conflict naming %s", err, mine)
	}
	if got := readFile(t, filepath.Join(mine, "SKILL.md")); got != "my own" {
		t.Errorf("the user's skill changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "code-review")); err == nil {
		t.Errorf("a canonical copy was made although the request failed")
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", lockName)); err == nil {
		t.Errorf("the lock file was written although nothing was installed")
	}
	// The user's folder survives remove and sync too.
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"code-review"}}); err == nil {
		t.Errorf("Remove of a skill this tool did not install succeeded")
	}
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Errorf("Sync = %v", err)
	}
	if got := readFile(t, filepath.Join(mine, "SKILL.md")); got != "my own" {
		t.Errorf("the user's skill changed after remove/sync: %q", got)
	}
	// list reports it as external.
	st, err := in.List(t.Context(), ListRequest{Agents: agentsOf(t, "claude-code")})
	if err != nil || len(st) != 1 || st[0].State != StateExternal {
		t.Errorf("List = %+v, %v, want one external skill", st, err)
	}
}

func TestUpdateCopyRemove(t *testing.T) {
	f, src, in := installedReview(t, "claude-code", "windsurf")
	ctx := t.Context()
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("code-review")+"v2\n"), 0o644)
	changes, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Copy: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(changes); !slices.Equal(got, []string{"code-review/:canonical:updated", "code-review/claude-code:copy:installed"}) {
		t.Errorf("update changes = %v", got)
	}
	copied := filepath.Join(f.env.Project, ".claude", "skills", "code-review")
	if fi, err := os.Lstat(copied); err != nil || !fi.IsDir() {
		t.Fatalf("claude-code entry is not a copied folder: %v", err)
	}
	if !strings.HasSuffix(readFile(t, filepath.Join(copied, "SKILL.md")), "v2\n") {
		t.Errorf("copy does not hold the update")
	}
	windsurf := filepath.Join(f.env.Project, ".windsurf", "skills", "code-review")
	if !strings.HasSuffix(readFile(t, filepath.Join(windsurf, "SKILL.md")), "v2\n") {
		t.Errorf("the windsurf link does not show the update")
	}
	// Remove for one agent keeps the canonical copy for the other.
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"code-review"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(copied); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the copy survived remove: %v", err)
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "code-review")
	if _, err := os.Stat(canonical); err != nil {
		t.Errorf("the canonical copy went while windsurf still links to it")
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"code-review"}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{canonical, windsurf} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s survived the last remove", p)
		}
	}
}

func TestListVerifyStates(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	ctx := t.Context()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		src := f.writeSkill(t, name, name, "")
		if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills")
	os.WriteFile(filepath.Join(canonical, "beta", "SKILL.md"), []byte("edited"), 0o644)
	os.Remove(filepath.Join(f.env.Project, ".claude", "skills", "gamma"))
	os.MkdirAll(filepath.Join(f.env.Project, ".claude", "skills", "mine"), 0o755)
	st, err := in.List(ctx, ListRequest{Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]State{}
	for _, s := range st {
		got[s.Skill] = s.State
	}
	want := map[string]State{"alpha": StateInstalled, "beta": StateModified, "gamma": StateMissing, "mine": StateExternal}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List states = %v, want %v", got, want)
	}
	bad, err := in.Verify(ctx)
	if err != nil || len(bad) != 2 {
		t.Errorf("Verify = %+v, %v, want beta and gamma", bad, err)
	}
	// Sync restores the missing one, but keeps the edited one unless
	// forced, which backs it up first.
	if _, err := in.Sync(ctx, SyncRequest{}); !errors.Is(err, ErrModified) {
		t.Fatalf("Sync over an edited skill = %v, want ErrModified", err)
	}
	if got := readFile(t, filepath.Join(canonical, "beta", "SKILL.md")); got != "edited" {
		t.Errorf("Sync replaced the edited skill: %q", got)
	}
	changes, err := in.Sync(ctx, SyncRequest{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	backups := 0
	for _, c := range changes {
		if c.Backup != "" {
			backups++
			if got := readFile(t, filepath.Join(c.Backup, "SKILL.md")); got != "edited" {
				t.Errorf("backup %s holds %q, want the edit", c.Backup, got)
			}
		}
	}
	if backups != 1 {
		t.Errorf("forced Sync = %v, want one backup", changes)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after sync = %+v, %v", bad, err)
	}
}

func TestSyncFrozenFailsOnDrift(t *testing.T) {
	f, src, in := installedReview(t, "claude-code")
	if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync without drift = %v", err)
	}
	lock := readFile(t, filepath.Join(f.env.Project, ".agents", lockName))
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skillMD("code-review")+"drift\n"), 0o644)
	_, err := in.Sync(t.Context(), SyncRequest{Frozen: true})
	if !errors.Is(err, ErrDrift) {
		t.Fatalf("frozen Sync after the source changed = %v, want ErrDrift", err)
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "code-review", "SKILL.md")
	if strings.Contains(readFile(t, canonical), "drift") || readFile(t, filepath.Join(f.env.Project, ".agents", lockName)) != lock {
		t.Errorf("a failed frozen sync changed something")
	}
}

func TestNestedFolderAndLinkedParent(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/skills/alpha", "alpha", "")
	f.writeSkill(t, "kit/skills/beta", "beta", "")
	f.writeSkill(t, "kit/tools", "tools", "")
	// The project's .claude folder is itself a link to another folder of
	// the project.
	elsewhere := filepath.Join(f.env.Project, "config", "claude-real")
	os.MkdirAll(elsewhere, 0o755)
	os.Symlink(elsewhere, filepath.Join(f.env.Project, ".claude"))
	in := f.installer(t)
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "claude-code"), Skills: []string{"alpha", "tools"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 4 {
		t.Errorf("changes = %v, want alpha and tools, each canonical and linked", actions(changes))
	}
	for _, name := range []string{"alpha", "tools"} {
		link := filepath.Join(f.env.Project, ".claude", "skills", name)
		if got := readFile(t, filepath.Join(link, "SKILL.md")); got != skillMD(name) {
			t.Errorf("%s through a link under a linked folder = %q", name, got)
		}
	}
	if _, err := os.Lstat(filepath.Join(f.env.Project, ".agents", "skills", "beta")); err == nil {
		t.Errorf("beta was installed although not selected")
	}
}

func TestArchiveAndURLSources(t *testing.T) {
	f := newFixture(t)
	data := testarchive.TarGzFiles(t, map[string]string{
		"pack/skills/alpha/SKILL.md": skillMD("alpha"),
		"pack/skills/beta/SKILL.md":  skillMD("beta"),
	})
	archive := filepath.Join(f.sources, "pack.bin") // found by content, not extension
	os.WriteFile(archive, data, 0o644)
	single := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("solo")})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(single) }))
	defer srv.Close()
	sum := sha256.Sum256(single)
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{archive}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(archive) = %v", err)
	}
	for _, name := range []string{"alpha", "beta"} {
		if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", name, "SKILL.md")); got != skillMD(name) {
			t.Errorf("%s from the archive = %q", name, got)
		}
	}
	good := srv.URL + "/solo.tgz#sha256=" + hex.EncodeToString(sum[:])
	if _, err := in.Add(ctx, AddRequest{Sources: []string{good}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(URL with the right digest) = %v", err)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "solo", "SKILL.md")); got != skillMD("solo") {
		t.Errorf("solo from the URL = %q", got)
	}
	bad := srv.URL + "/solo.tgz#sha256=" + strings.Repeat("0", 64)
	if _, err := in.Add(ctx, AddRequest{Sources: []string{bad}, Agents: agentsOf(t, "codex")}); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("Add(URL with a wrong digest) = %v, want a SHA-256 mismatch", err)
	}
	if _, err := in.Add(ctx, AddRequest{Sources: []string{srv.URL + "/x#sha256=abc"}}); err == nil {
		t.Errorf("Add(URL with a malformed digest) succeeded")
	}
}

func TestCheckerRefusesUnusableSkills(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "code-review", "")
	in := f.installer(t, withChecker(func(string) (string, []string, error) {
		return "", []string{"description: required", "name: required"}, nil
	}))
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
	if err == nil || !strings.Contains(err.Error(), "description: required; name: required") {
		t.Errorf("Add of an unusable skill = %v, want its problems listed", err)
	}
}

func TestUserScope(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "code-review", "")
	in := f.installer(t, WithScope(User))
	if _, err := in.Add(context.Background(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex")}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".agents/skills/code-review/SKILL.md", ".claude/skills/code-review/SKILL.md", ".agents/" + lockName} {
		if _, err := os.Stat(filepath.Join(f.env.Home, p)); err != nil {
			t.Errorf("user scope lacks %s: %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(f.env.Project); len(entries) != 0 {
		t.Errorf("user scope wrote into the project")
	}
}

func TestDefaultCheckerUsesLenientRules(t *testing.T) {
	f := newFixture(t)
	good := f.writeSkill(t, "folder-name", "code-review", "") // name differs from the folder: a warning
	colon := filepath.Join(f.sources, "colon")
	os.MkdirAll(colon, 0o755)
	os.WriteFile(filepath.Join(colon, "SKILL.md"), []byte("---\nname: colon\ndescription: Use when: reviewing\n---\nbody\n"), 0o644)
	bad := filepath.Join(f.sources, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("---\nname: bad\n---\nno description\n"), 0o644)
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")))
	in := New(f.env, WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")))
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{good, colon}, Agents: agentsOf(t, "codex")})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(changes); !slices.Equal(got, []string{"code-review/:canonical:installed", "code-review/codex:canonical:installed", "colon/:canonical:installed", "colon/codex:canonical:installed"}) {
		t.Errorf("changes = %v", got)
	}
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{bad}, Agents: agentsOf(t, "codex")}); err == nil || !strings.Contains(err.Error(), "description") {
		t.Errorf("Add of a skill without a description = %v, want it refused naming the field", err)
	}
}

// TestDownloadProgress checks that a URL download that takes longer than a
// second by a fake clock shows a progress line ending with done, and that
// one taking the second shows nothing.
func TestDownloadProgress(t *testing.T) {
	f := newFixture(t)
	single := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("slow")})
	clk := newFakeClock()
	// A server that, once the download's progress report has started,
	// takes delay by clk between the first bytes and the rest.
	server := func(delay time.Duration) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write(single[:10])
			w.(http.Flusher).Flush()
			<-clk.started
			clk.advance(delay)
			w.Write(single[10:])
		}))
	}
	srv := server(slowDelay)
	defer srv.Close()
	var progress bytes.Buffer
	in := withFakeClock(f.installer(t, WithProgress(&progress)), clk)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{srv.URL + "/slow.tgz"}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "downloading "+srv.URL+"/slow.tgz") || !strings.HasSuffix(progress.String(), "done\n") {
		t.Errorf("progress = %q, want a line for the slow download", progress.String())
	}
	progress.Reset()
	fast := server(fastDelay)
	defer fast.Close()
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{fast.URL + "/fast.tgz"}, Agents: agentsOf(t, "codex")}); err == nil {
		t.Errorf("the same skill name from another URL was accepted")
	}
	if progress.Len() != 0 {
		t.Errorf("a fast download printed progress: %q", progress.String())
	}
}

func TestHostileLockFileCannotSteerRemoval(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "precious")
	os.MkdirAll(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("x"), 0o644)
	for name, lock := range map[string]string{
		"name escapes":   `{"version":1,"skills":{"../../../precious":{"source":"x","digest":"d","agents":{"claude-code":{"kind":"copy","path":".claude/skills/../../../precious"}}}}}`,
		"path elsewhere": fmt.Sprintf(`{"version":1,"skills":{"review":{"source":"x","digest":"d","agents":{"claude-code":{"kind":"copy","path":%q}}}}}`, victim),
		"unknown agent":  `{"version":1,"skills":{"review":{"source":"x","digest":"d","agents":{"evil":{"kind":"copy","path":".evil/review"}}}}}`,
		"unknown kind":   `{"version":1,"skills":{"review":{"source":"x","digest":"d","agents":{"claude-code":{"kind":"rm-rf","path":".claude/skills/review"}}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			os.MkdirAll(filepath.Join(f.env.Project, ".agents"), 0o755)
			os.WriteFile(filepath.Join(f.env.Project, ".agents", lockName), []byte(lock), 0o644)
			in := f.installer(t)
			for _, n := range []string{"../../../precious", "review"} {
				if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{n}}); err == nil {
					t.Errorf("Remove(%q) with a hostile lock file succeeded", n)
				}
			}
			if _, err := in.List(t.Context(), ListRequest{}); err == nil {
				t.Errorf("List with a hostile lock file succeeded")
			}
			if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
				t.Fatalf("a hostile lock file removed %s: %v", victim, err)
			}
		})
	}
}

func TestOwnershipFollowsWhatIsThere(t *testing.T) {
	setup := func(t *testing.T, copyMode bool) (*fixture, *Installer, string, string) {
		f := newFixture(t)
		src := f.writeSkill(t, "foo", "foo", "")
		in := f.installer(t)
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex"), Copy: copyMode}); err != nil {
			t.Fatal(err)
		}
		return f, in, src, filepath.Join(f.env.Project, ".claude", "skills", "foo")
	}
	userFolder := func(t *testing.T, p string) {
		os.RemoveAll(p)
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "mine.txt"), []byte("precious"), 0o644)
	}
	kept := func(t *testing.T, p string) {
		t.Helper()
		if got := readFile(t, filepath.Join(p, "mine.txt")); got != "precious" {
			t.Fatalf("the user's folder at %s was changed", p)
		}
	}
	t.Run("user folder replaces our link, then sync", func(t *testing.T) {
		_, in, _, link := setup(t, false)
		userFolder(t, link)
		if _, err := in.Sync(t.Context(), SyncRequest{}); !errors.Is(err, ErrConflict) {
			t.Errorf("Sync = %v, want a conflict", err)
		}
		kept(t, link)
		if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}}); err == nil {
			t.Errorf("Remove over the user's folder succeeded")
		}
		kept(t, link)
	})
	t.Run("user link replaces ours, then remove", func(t *testing.T) {
		f, in, _, link := setup(t, false)
		mine := filepath.Join(f.sources, "mine")
		os.MkdirAll(mine, 0o755)
		os.Remove(link)
		os.Symlink(mine, link)
		if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}}); err == nil {
			t.Errorf("Remove of a link the user made succeeded")
		}
		if target, _ := os.Readlink(link); target != mine {
			t.Errorf("the user's link changed: %q", target)
		}
	})
	t.Run("edited copy, then remove or relink", func(t *testing.T) {
		_, in, src, copied := setup(t, true)
		os.WriteFile(filepath.Join(copied, "notes.md"), []byte("my edits"), 0o644)
		if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"foo"}}); err == nil {
			t.Errorf("Remove of an edited copy succeeded")
		}
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); !errors.Is(err, ErrModified) {
			t.Errorf("Add switching an edited copy to a link = %v, want ErrModified", err)
		}
		if got := readFile(t, filepath.Join(copied, "notes.md")); got != "my edits" {
			t.Errorf("the edits are gone")
		}
	})
	t.Run("copy to link and back", func(t *testing.T) {
		_, in, src, p := setup(t, true)
		changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("copy was not turned into a link: %v", err)
		}
		if got := actions(changes); !slices.Contains(got, "foo/claude-code:link:installed") {
			t.Errorf("changes = %v", got)
		}
		changes, err = in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Copy: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := actions(changes); !slices.Contains(got, "foo/claude-code:copy:installed") {
			t.Errorf("changes = %v, want the copy reported as installed", got)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			t.Errorf("link was not turned into a copy: %v", err)
		}
	})
	t.Run("linked canonical folder", func(t *testing.T) {
		f := newFixture(t)
		victim := t.TempDir()
		os.MkdirAll(filepath.Join(f.env.Project, ".agents"), 0o755)
		os.Symlink(victim, filepath.Join(f.env.Project, ".agents", "skills"))
		src := f.writeSkill(t, "foo", "foo", "")
		if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err == nil {
			t.Errorf("Add through a linked .agents/skills succeeded")
		}
		if entries, _ := os.ReadDir(victim); len(entries) != 0 {
			t.Errorf("Add wrote through the link: %v", entries)
		}
	})
}

func TestAddIsAllOrNothing(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/a", "a", "")
	b := f.writeSkill(t, "kit/b", "b", "")
	// A name the archive rules refuse fails the whole source (a link out
	// of the source only skips its skill: TestLinkedSkillFiles).
	os.WriteFile(filepath.Join(b, "a:b.md"), []byte("x"), 0o644)
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "claude-code")}); !errors.Is(err, ErrInvalidSource) {
		t.Fatalf("Add of a kit with a file named a:b.md = %v, want ErrInvalidSource", err)
	}
	for _, p := range []string{".agents/skills/a", ".claude/skills/a", ".agents/" + lockName} {
		if _, err := os.Lstat(filepath.Join(f.env.Project, p)); err == nil {
			t.Errorf("a failed add left %s", p)
		}
	}
}

func TestSyncURLSource(t *testing.T) {
	f := newFixture(t)
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("remote")})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	var requests int
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		requests++
		return http.DefaultTransport.RoundTrip(r)
	})}
	in := f.installer(t, WithHTTPClient(client))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{srv.URL + "/remote.tgz"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if requests != 1 {
		t.Errorf("the configured HTTP client made %d requests, want 1", requests)
	}
	if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync of a URL source = %v", err)
	}
	body = testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("remote") + "changed upstream\n"})
	if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), "differs from the lock file: recorded ") {
		t.Errorf("frozen Sync after the URL's content changed = %v, want ErrDrift saying what the lock file records", err)
	}
	if strings.Contains(readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "remote", "SKILL.md")), "changed") {
		t.Errorf("a failed frozen sync installed the new content")
	}
}

func TestLeftoverPatternSparesUserNames(t *testing.T) {
	for name, want := range map[string]bool{
		".foo.stage-0123456789ab": true, ".foo.link-0123456789ab": true,
		".foo.stage-notes": false, ".foo.stage-0123456789abc": false, "foo.stage-0123456789ab": false, ".foo.stage-0123456789AB": false,
	} {
		if got := isLeftover(name); got != want {
			t.Errorf("isLeftover(%q) = %v, want %v", name, got, want)
		}
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestFind(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/alpha", "alpha", "")
	f.writeSkill(t, "kit/group/beta", "beta", "")
	in := f.installer(t)
	got, err := in.Find(t.Context(), FindRequest{Source: filepath.Join(f.sources, "kit")})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key)
		ps, ok := s.Source.(skill.PathSource)
		if !ok || !isSkill(ps.Path) {
			t.Errorf("Find gave %q a source %#v, want a skill folder", s.Key, s.Source)
		}
	}
	if strings.Join(keys, ",") != "alpha,beta" {
		t.Errorf("Find keys = %q, want alpha,beta", keys)
	}
	if got, err := in.Find(t.Context(), FindRequest{Source: filepath.Join(f.sources, "kit"), Skills: []string{"beta"}}); err != nil || len(got) != 1 || got[0].Key != "beta" {
		t.Errorf("Find(only beta) = %v, %v", got, err)
	}
	if _, err := in.Find(t.Context(), FindRequest{Source: filepath.Join(f.sources, "nope")}); err == nil {
		t.Error("Find of a missing source succeeded")
	}
	// Nothing was installed.
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Find wrote into the project: %v", err)
	}
}

// isSkill reports whether dir holds a regular SKILL.md.
func isSkill(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "SKILL.md"))
	return err == nil && fi.Mode().IsRegular()
}

// installedReview returns a fixture, the source folder of its skill
// code-review and an installer that has installed it for the agents ids.
func installedReview(t *testing.T, ids ...string) (*fixture, string, *Installer) {
	t.Helper()
	f := newFixture(t)
	src := f.writeSkill(t, "review", "code-review", "")
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, ids...)}); err != nil {
		t.Fatal(err)
	}
	return f, src, in
}
