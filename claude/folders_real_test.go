package claude_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/clitest"
	"github.com/agentadaptor/agentadaptor/internal/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// mounts returns the skill mounts under the rig's cache.
func (r *rig) mounts(t *testing.T) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(filepath.Join(r.cache, "mounts", "claude"))
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") {
			out = append(out, filepath.Join(r.cache, "mounts", "claude", e.Name()))
		}
	}
	return out
}

// A run holds its mount: a collection while it runs keeps the mount and
// the tree it links to, however old; once the run is over, both go.
func TestRealRunHoldsItsMount(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.Stall()))
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	ctx, cancel := context.WithCancel(clitest.RunCtx(t))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, "wait for it")
		done <- err
	}()
	for deadline := time.Now().Add(60 * time.Second); len(r.server.MessageRequests()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("claude never asked the model")
		}
	}
	c := skill.NewCache(skill.WithSkillCacheRoot(r.cache))
	mounts := r.mounts(t)
	if len(mounts) != 1 {
		t.Fatalf("mounts %v while the run runs, want one", mounts)
	}
	if removed, err := c.CollectDriverFolders(t.Context(), time.Nanosecond); err != nil || len(removed) != 0 {
		t.Errorf("CollectDriverFolders(1ns) during the run = %+v, %v; want nothing removed", removed, err)
	}
	if removed, err := c.GC(t.Context(), time.Nanosecond); err != nil || len(removed) != 0 {
		t.Errorf("GC(1ns) during the run = %+v, %v; want the linked tree kept", removed, err)
	}
	if folders, err := c.DriverFolders(t.Context()); err != nil || len(folders) != 1 || !folders[0].InUse || folders[0].Agent != "claude-code" || folders[0].Dir != mounts[0] {
		t.Errorf("DriverFolders during the run = %+v, %v; want the mount in use", folders, err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end 30s after cancellation")
	}
	removed, err := c.CollectDriverFolders(t.Context(), time.Nanosecond)
	if err != nil || len(removed) != 1 || removed[0].Dir != mounts[0] {
		t.Fatalf("CollectDriverFolders(1ns) after the run = %+v, %v; want %s removed", removed, err, mounts[0])
	}
	if trees, err := c.GC(t.Context(), time.Nanosecond); err != nil || len(trees) != 1 || trees[0].Name != "review" {
		t.Errorf("GC(1ns) after the run = %+v, %v; want the review tree removed", trees, err)
	}
	if left := r.mounts(t); len(left) != 0 {
		t.Errorf("mounts left: %v", left)
	}
}

// Every folder from the cache root down to the mount must be the user's
// own and writable by no one else, or the run fails before the agent
// starts, naming the folder.
func TestRealForeignMountFoldersAreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ownership and modes are not checked on Windows (see the package doc)")
	}
	r := newRig(t, modeltest.Always(modeltest.Text("ok")))
	refs := adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R")))
	if _, err := r.agent(t, r.config(), refs).Run(clitest.RunCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	mounts := r.mounts(t)
	if len(mounts) != 1 {
		t.Fatalf("mounts %v, want one", mounts)
	}
	isRoot := os.Geteuid() == 0
	chown := func(p string) error { return os.Chown(p, 12345, 12345) }
	chmod := func(mode fs.FileMode) func(string) error { return func(p string) error { return os.Chmod(p, mode) } }
	tests := []struct {
		name     string
		folder   string
		spoil    func(string) error
		restore  func(string) error
		root     bool
		mentions string
	}{
		{"mounts of another user", filepath.Join(r.cache, "mounts"), chown, func(p string) error { return os.Chown(p, 0, 0) }, true, "belongs to user 12345"},
		{"mounts/claude of another user", filepath.Join(r.cache, "mounts", "claude"), chown, func(p string) error { return os.Chown(p, 0, 0) }, true, "belongs to user 12345"},
		{"the mount of another user", mounts[0], chown, func(p string) error { return os.Chown(p, 0, 0) }, true, "belongs to user 12345"},
		{"mounts writable by its group", filepath.Join(r.cache, "mounts"), chmod(0o770), chmod(0o700), false, "may be written by its group"},
		{"mounts/claude writable by all", filepath.Join(r.cache, "mounts", "claude"), chmod(0o777), chmod(0o700), false, "may be written"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && !isRoot {
				t.Skip("giving a folder to another user needs root")
			}
			if err := tc.spoil(tc.folder); err != nil {
				t.Fatal(err)
			}
			defer tc.restore(tc.folder)
			before := len(r.server.Requests())
			_, err := r.agent(t, r.config(), refs).Run(clitest.RunCtx(t), "x")
			if err == nil || !strings.Contains(err.Error(), tc.folder) || !strings.Contains(err.Error(), tc.mentions) {
				t.Fatalf("run with %s = %v, want it refused naming %s and saying %q", tc.name, err, tc.folder, tc.mentions)
			}
			if n := len(r.server.Requests()); n != before {
				t.Errorf("the refused run reached the model (%d requests)", n-before)
			}
			if left := r.processes(); len(left) > 0 {
				t.Errorf("processes of the refused run: %v", left)
			}
		})
	}
}
