package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

func resolved(dirs ...string) driver.ResolvedSkills {
	var rs driver.ResolvedSkills
	for _, d := range dirs {
		name := filepath.Base(d)
		rs.Entries = append(rs.Entries, driver.ResolvedSkill{Key: name, RuntimeName: name, Path: d})
		rs.Fingerprint += name + ";"
	}
	return rs
}

func links(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			target = "(not a link)"
		}
		out[e.Name()] = target
	}
	return out
}

func TestHome(t *testing.T) {
	root, src, user := t.TempDir(), t.TempDir(), t.TempDir()
	a, b := cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B")
	mine := cachetest.WriteSkill(t, filepath.Join(user, "skills"), "mine", "M")
	os.MkdirAll(filepath.Join(user, "skills", ".system", "x"), 0o755)
	os.WriteFile(filepath.Join(user, "config.toml"), []byte("model = \"m1\"\n"), 0o600)
	os.WriteFile(filepath.Join(user, "auth.json"), []byte(`{"OPENAI_API_KEY":"k"}`), 0o600)

	h, err := homeNow(t.Context(), root, resolved(a, b), user, true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": a, "b": b, "mine": mine}
	if got := links(t, filepath.Join(h, "skills")); !mapsEqual(got, want) {
		t.Errorf("skills = %v, want %v", got, want)
	}
	if got, _ := os.ReadFile(filepath.Join(h, "config.toml")); string(got) != "model = \"m1\"\n" {
		t.Errorf("config.toml = %q, want the user's", got)
	}
	if target, err := os.Readlink(filepath.Join(h, "auth.json")); err != nil || target != filepath.Join(user, "auth.json") {
		t.Errorf("auth.json -> %q, %v; want a link to the user's", target, err)
	}

	// The same set is the same home; another set, or no user skills,
	// another one.
	if h2, err := homeNow(t.Context(), root, resolved(a, b), user, true); err != nil || h2 != h {
		t.Errorf("second home = %q, %v; want %q", h2, err, h)
	}
	h3, err := homeNow(t.Context(), root, resolved(a), user, false)
	if err != nil || h3 == h {
		t.Fatalf("home of another set = %q, %v", h3, err)
	}
	if got := links(t, filepath.Join(h3, "skills")); !mapsEqual(got, map[string]string{"a": a}) {
		t.Errorf("skills without the user's = %v, want a only", got)
	}

	// The user's changes reach the home on the next run: a new skill, a
	// removed one, a new config; Codex's own entries stay.
	os.MkdirAll(filepath.Join(h, "skills", ".system", "codex-own"), 0o755)
	os.RemoveAll(mine)
	newer := cachetest.WriteSkill(t, filepath.Join(user, "skills"), "newer", "N")
	os.WriteFile(filepath.Join(user, "config.toml"), []byte("model = \"m2\"\n"), 0o600)
	if _, err := homeNow(t.Context(), root, resolved(a, b), user, true); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"a": a, "b": b, "newer": newer, ".system": "(not a link)"}
	if got := links(t, filepath.Join(h, "skills")); !mapsEqual(got, want) {
		t.Errorf("skills after the user's changes = %v, want %v", got, want)
	}
	if got, _ := os.ReadFile(filepath.Join(h, "config.toml")); string(got) != "model = \"m2\"\n" {
		t.Errorf("config.toml = %q, want the user's new one", got)
	}
	// Codex's edit of the managed copy lasts while the user's is unchanged.
	os.WriteFile(filepath.Join(h, "config.toml"), []byte("model = \"m2\"\n[projects]\n"), 0o600)
	homeNow(t.Context(), root, resolved(a, b), user, true)
	if got, _ := os.ReadFile(filepath.Join(h, "config.toml")); string(got) != "model = \"m2\"\n[projects]\n" {
		t.Errorf("config.toml = %q, want Codex's edit kept", got)
	}
	// A login that replaced the link is kept, not relinked.
	os.Remove(filepath.Join(h, "auth.json"))
	os.WriteFile(filepath.Join(h, "auth.json"), []byte(`{"tokens":"newer"}`), 0o600)
	homeNow(t.Context(), root, resolved(a, b), user, true)
	if got, _ := os.ReadFile(filepath.Join(h, "auth.json")); string(got) != `{"tokens":"newer"}` {
		t.Errorf("auth.json = %q, want the newer login kept", got)
	}
}

func TestHomeClashWithUserSkill(t *testing.T) {
	root, src, user := t.TempDir(), t.TempDir(), t.TempDir()
	ours := cachetest.WriteSkill(t, src, "review", "ours")
	cachetest.WriteSkill(t, filepath.Join(user, "skills"), "review", "theirs")
	_, err := homeNow(t.Context(), root, resolved(ours), user, true)
	var se *driver.ShadowError
	if !errors.As(err, &se) || se.Ours != ours || se.Theirs != filepath.Join(user, "skills", "review") {
		t.Fatalf("home = %v, want a *driver.ShadowError naming both folders", err)
	}
	// Left out, the user's skills cannot clash.
	if _, err := homeNow(t.Context(), root, resolved(ours), user, false); err != nil {
		t.Errorf("home without the user's skills = %v", err)
	}
	// The same content is fine, and ours is the one linked.
	os.RemoveAll(filepath.Join(user, "skills", "review"))
	cachetest.WriteSkill(t, filepath.Join(user, "skills"), "review", "ours")
	h, err := homeNow(t.Context(), root, resolved(ours), user, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := links(t, filepath.Join(h, "skills")); got["review"] != ours {
		t.Errorf("review -> %q, want ours", got["review"])
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// BenchmarkHome200Warm is the per-run cost of a managed home that is
// ready: the links checked against the set and the user's skills, the
// configuration and login checked.
func BenchmarkHome200Warm(b *testing.B) {
	root, src, user := b.TempDir(), b.TempDir(), b.TempDir()
	var dirs []string
	for i := range 200 {
		dirs = append(dirs, cachetest.WriteSkill(b, src, fmt.Sprintf("s%03d", i), "x"))
	}
	os.WriteFile(filepath.Join(user, "config.toml"), []byte("model = \"m\"\n"), 0o600)
	rs := resolved(dirs...)
	if _, err := homeNow(b.Context(), root, rs, user, true); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := homeNow(b.Context(), root, rs, user, true); err != nil {
			b.Fatal(err)
		}
	}
}

// Codex lists skills by their front matter's name, anywhere under a root:
// one of the user's, or the repository's, listed under the name of one of
// ours with other content is refused.
func TestClashByListedName(t *testing.T) {
	root, src := t.TempDir(), t.TempDir()
	ours := cachetest.WriteSkill(t, src, "review", "ours")
	user, ws := t.TempDir(), t.TempDir()
	// A folder of another name, deeper down, whose front matter says review.
	other := filepath.Join(user, "skills", "team", "review-old")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "SKILL.md"), []byte("---\nname: review\ndescription: old\n---\ntheirs\n"), 0o644)
	_, err := homeNow(t.Context(), root, resolved(ours), user, true)
	var se *driver.ShadowError
	if !errors.As(err, &se) || se.Theirs != other {
		t.Fatalf("home = %v, want a *driver.ShadowError naming %s", err, other)
	}
	repo := filepath.Join(ws, ".agents", "skills", "x", "y")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "SKILL.md"), []byte("---\nname: review\ndescription: repo\n---\nrepo\n"), 0o644)
	err = checkShadows(t.Context(), listedNames(resolved(ours)), otherSkillsDirs(ws, t.TempDir()))
	if !errors.As(err, &se) || se.Theirs != repo {
		t.Fatalf("checkShadows = %v, want a *driver.ShadowError naming %s", err, repo)
	}
	// Hidden folders are not read, and a loop of links ends.
	os.RemoveAll(filepath.Join(ws, ".agents", "skills", "x"))
	os.MkdirAll(filepath.Join(ws, ".agents", "skills", ".hidden", "review"), 0o755)
	os.WriteFile(filepath.Join(ws, ".agents", "skills", ".hidden", "review", "SKILL.md"), []byte("---\nname: review\ndescription: d\n---\n"), 0o644)
	os.Symlink(filepath.Join(ws, ".agents"), filepath.Join(ws, ".agents", "skills", "loop"))
	if err := checkShadows(t.Context(), listedNames(resolved(ours)), otherSkillsDirs(ws, t.TempDir())); err != nil {
		t.Errorf("checkShadows = %v, want nil", err)
	}
}

func TestHomeRefusesOddConfig(t *testing.T) {
	for name, make := range map[string]func(p string){
		"too big": func(p string) { f, _ := os.Create(p); f.Truncate(maxConfigSize + 1); f.Close() },
		"a FIFO":  func(p string) { mkfifo(t, p) },
	} {
		t.Run(name, func(t *testing.T) {
			user := t.TempDir()
			make(filepath.Join(user, "config.toml"))
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if _, err := homeNow(ctx, t.TempDir(), resolved(), user, true); err == nil || !strings.Contains(err.Error(), "config.toml") {
				t.Errorf("home = %v, want an error naming config.toml", err)
			}
		})
	}
}

// homeNow prepares the managed home and releases its lease at once.
func homeNow(ctx context.Context, root string, rs driver.ResolvedSkills, userHome string, userSkills bool) (string, error) {
	dir, release, err := home(ctx, root, rs, userHome, userSkills)
	if err == nil {
		release()
	}
	return dir, err
}
