package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAddMovesPin adds a GitHub source (a stand-in API, GITHUB_API_URL) at
// one ref, then at another that names a newer commit: the second add
// reports the move as `pinned NAME: OLD -> NEW`, with both commits
// shortened, and installs the newer content.
func TestAddMovesPin(t *testing.T) {
	const (
		commitA = "0123456789abcdef0123456789abcdef01234567"
		commitB = "89abcdef0123456789abcdef0123456789abcdef"
	)
	dir := t.TempDir()
	refs := map[string]string{"v1": commitA, "v2": commitB}
	tarballs := map[string][]byte{}
	for ref, commit := range refs {
		kit := filepath.Join(dir, commit+".tgz")
		writeTgz(t, kit, map[string]string{
			"o-skills-" + commit[:7] + "/skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha at " + ref + ".\n---\n",
		})
		b, err := os.ReadFile(kit)
		if err != nil {
			t.Fatal(err)
		}
		tarballs[commit] = b
	}
	archive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := tarballs[r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	defer archive.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/o/skills/commits/{ref}", func(w http.ResponseWriter, r *http.Request) {
		commit, ok := refs[r.PathValue("ref")]
		if !ok {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		fmt.Fprint(w, commit)
	})
	mux.HandleFunc("GET /repos/o/skills/tarball/{commit}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, archive.URL+"/o-skills/"+r.PathValue("commit"), http.StatusFound)
	})
	api := httptest.NewServer(mux)
	defer api.Close()
	t.Setenv("GITHUB_API_URL", api.URL)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	project := t.TempDir()
	t.Chdir(project)

	add := func(source string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := []string{"add", source, "-a", "claude-code"}
		if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("run(%q) = %d, stderr %q; want 0", args, code, stderr.String())
		}
		return stdout.String()
	}
	add("o/skills@v1")
	second := add("o/skills@v2")
	if want := regexp.MustCompile(`(?m)^pinned +alpha: 0123456789ab -> 89abcdef0123$`); !want.MatchString(second) {
		t.Errorf("add o/skills@v2 printed %q, want a line matching %q", second, want)
	}
	if got, err := os.ReadFile(filepath.Join(project, ".agents", "skills", "alpha", "SKILL.md")); err != nil || !strings.Contains(string(got), "Alpha at v2.") {
		t.Errorf("alpha after the second add = %q, %v; want the content at v2", got, err)
	}
	lock, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil || !strings.Contains(string(lock), commitB) || strings.Contains(string(lock), commitA) {
		t.Errorf("lock file = %s, %v; want alpha pinned to %s only", lock, err, commitB)
	}
	// Adding at the same ref again moves nothing and says no pin line.
	if third := add("o/skills@v2"); strings.Contains(third, "pinned") {
		t.Errorf("add at the same ref again printed %q, want no pinned line", third)
	}
}
