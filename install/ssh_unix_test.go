//go:build unix

package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestSSHUserKept adds a skill from git+ssh://git@HOST/... through an
// ssh stand-in that records the user it is asked to connect as and
// serves a local repository: the lock file records git@, and a sync from
// an empty cache connects as git again, not as the local user (rule 10).
func TestSSHUserKept(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	bin := t.TempDir()
	log := filepath.Join(bin, "users.log")
	// GIT_SSH_VARIANT=simple: the arguments are USER@HOST and the command.
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >>" + log + "\n" +
		"cmd=$(printf '%s' \"$2\" | sed 's/^git-upload-pack /upload-pack /')\n" +
		"eval \"exec " + real + " $cmd\"\n"
	ssh := filepath.Join(bin, "ssh-standin")
	if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_SSH_COMMAND", ssh)
	t.Setenv("GIT_SSH_VARIANT", "simple")

	src := "git+ssh://git@git.example.test" + filepath.ToSlash(repo) + "#ref=main"
	if _, err := f.remoteInstaller(t, cachetest.Root(t)).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil || lock.Skills["alpha"] == nil || lock.Skills["alpha"].Source != src {
		t.Fatalf("lock entry of alpha = %+v, %v, want the source %s, with its user", lock.Skills["alpha"], err, src)
	}
	os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills"))
	if _, err := f.remoteInstaller(t, cachetest.Root(t)).Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatalf("Sync from an empty cache = %v", err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	users := strings.Fields(string(data))
	if len(users) < 2 {
		t.Fatalf("ssh was asked for %q, want a connection for the add and one for the sync", users)
	}
	for _, u := range users {
		if u != "git@git.example.test" {
			t.Errorf("ssh was asked to connect as %q, want git@git.example.test (all: %q)", u, users)
		}
	}
}
