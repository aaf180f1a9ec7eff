package install_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// A sync of a pinned source whose cached tree was changed after it was
// published (the skill cache serves pinned sources without the network)
// installs the genuine bytes, keeps the lock file's digest, and verify
// then passes.
func TestSyncAfterCachedTreeChanged(t *testing.T) {
	const genuine = "---\nname: remote\ndescription: the remote skill\n---\nGenuine instructions.\n"
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": genuine, "references/a.md": "reference\n"})
	sum := sha256.Sum256(body)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	source := srv.URL + "/remote.tgz#sha256=" + hex.EncodeToString(sum[:])
	claude, _ := install.LookupAgent("claude-code")

	for _, change := range cachetest.Changes() {
		t.Run(change.Name, func(t *testing.T) {
			base := t.TempDir()
			env := install.Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "project"), Getenv: func(string) string { return "" }}
			for _, d := range []string{env.Home, env.Project} {
				os.MkdirAll(d, 0o755)
			}
			c := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
			in := install.New(env, install.WithCache(c), install.WithLockDir(filepath.Join(env.Home, ".locks")))
			if _, err := in.Add(t.Context(), install.AddRequest{Sources: []string{source}, Agents: []install.Agent{claude}}); err != nil {
				t.Fatalf("Add(%s) = %v", source, err)
			}
			lockPath := filepath.Join(env.Project, ".agents", "agentskills.lock")
			lock, err := os.ReadFile(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := c.Entries(t.Context())
			if err != nil || len(entries) != 1 {
				t.Fatalf("the skill cache holds %+v, %v; want one tree", entries, err)
			}
			installed := filepath.Join(env.Project, ".agents", "skills", "remote")
			want := cachetest.Tree(t, installed)
			cachetest.Settle()
			change.Apply(t, entries[0].Dir)
			// The installed copies are gone: sync installs them again,
			// from the cache when it holds the pinned content.
			cachetest.Writable(filepath.Join(env.Project, ".agents"))
			os.RemoveAll(installed)
			os.RemoveAll(filepath.Join(env.Project, ".claude"))
			if _, err := in.Sync(t.Context(), install.SyncRequest{}); err != nil {
				t.Fatalf("Sync = %v", err)
			}
			if got := cachetest.Tree(t, installed); len(got) != len(want) || got["SKILL.md"] != want["SKILL.md"] || got["references/a.md"] != want["references/a.md"] {
				t.Errorf("Sync after %s installed %q, want %q", change.Name, got, want)
			}
			if after, _ := os.ReadFile(lockPath); string(after) != string(lock) {
				t.Errorf("Sync after %s changed the lock file:\n%s\nwant\n%s", change.Name, after, lock)
			}
			if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
				t.Errorf("Verify after Sync = %+v, %v", bad, err)
			}
		})
	}
}
