package install

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestGitFetchBounded adds a small skill from a repository that also
// holds 4 MiB of unrelated data, under a 1 MiB archive size limit: a
// server that filters blobs (uploadpack.allowFilter) sends only the
// skill's and the add succeeds; from one that does not, git is stopped
// at the limit and nothing is installed.
func TestGitFetchBounded(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	const limit = 1 << 20
	repo := filepath.Join(t.TempDir(), "repo")
	big := make([]byte, 4<<20)
	rand.NewChaCha8([32]byte{2}).Read(big)
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "data/big.bin": string(big)})
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=main&path=skills/alpha"
	for _, filter := range []string{"false", "true"} {
		t.Run("uploadpack.allowFilter="+filter, func(t *testing.T) {
			if out, err := exec.Command("git", "-C", repo, "config", "uploadpack.allowFilter", filter).CombinedOutput(); err != nil {
				t.Fatalf("git config: %v\n%s", err, out)
			}
			f := newFixture(t)
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)), skill.WithMaxArchiveSize(limit))), WithLockDir(t.TempDir()))
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")})
			if filter == "true" {
				if err != nil {
					t.Fatalf("Add(%s) from a server that filters = %v", src, err)
				}
				return
			}
			var over *extract.LimitError
			if !errors.Is(err, ErrInvalidSource) || !errors.As(err, &over) || over.Max != limit || !strings.Contains(err.Error(), "git fetched more than") {
				t.Fatalf("Add(%s) = %v, want ErrInvalidSource and a limit error of %d bytes for the fetch", src, err, limit)
			}
			if _, err := os.Stat(filepath.Join(f.env.Project, ".agents")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused Add left %s/.agents (%v)", f.env.Project, err)
			}
			t.Logf("error: %v", err)
		})
	}
}
