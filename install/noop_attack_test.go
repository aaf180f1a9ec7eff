package install

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestNoOpPathKeepsTheRules checks that a sync or add again whose source
// and canonical copy are unchanged (which stages nothing) still keeps
// every rule the staging path kept: an edited canonical copy fails with
// ErrModified, a user folder in place of an agent's link with
// ErrConflict, a missing link is made again, and with nothing to do the
// lock file keeps its bytes.
func TestNoOpPathKeepsTheRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sync    bool
		change  func(t *testing.T, canonical, link string)
		wantErr error
	}{
		{name: "sync, nothing changed", sync: true},
		{name: "add, nothing changed"},
		{name: "sync, canonical copy edited", sync: true, wantErr: ErrModified, change: func(t *testing.T, canonical, _ string) {
			os.WriteFile(filepath.Join(canonical, "notes.md"), []byte("mine\n"), 0o644)
		}},
		{name: "add, canonical copy edited", wantErr: ErrModified, change: func(t *testing.T, canonical, _ string) {
			os.WriteFile(filepath.Join(canonical, "SKILL.md"), []byte("---\nname: alpha\ndescription: mine\n---\n"), 0o644)
		}},
		{name: "sync, link replaced by a user folder", sync: true, wantErr: ErrConflict, change: func(t *testing.T, _, link string) {
			os.Remove(link)
			os.MkdirAll(link, 0o755)
			os.WriteFile(filepath.Join(link, "SKILL.md"), []byte("---\nname: alpha\ndescription: mine\n---\n"), 0o644)
		}},
		{name: "sync, link missing", sync: true, change: func(t *testing.T, _, link string) {
			os.Remove(link)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			src := f.writeSkill(t, "a", "alpha", "")
			in := f.installer(t)
			req := AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code", "codex")}
			if _, err := in.Add(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			canonical := filepath.Join(f.env.Project, ".agents", "skills", "alpha")
			link := filepath.Join(f.env.Project, ".claude", "skills", "alpha")
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s is not a link: %v, %v", link, fi, err)
			}
			lockBefore, err := os.ReadFile(in.lockPath())
			if err != nil {
				t.Fatal(err)
			}
			if tc.change != nil {
				tc.change(t, canonical, link)
			}
			if tc.sync {
				_, err = in.Sync(t.Context(), SyncRequest{})
			} else {
				_, err = in.Add(t.Context(), req)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("= %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
				t.Errorf("Verify = %+v, %v", bad, err)
			}
			if lockAfter, _ := os.ReadFile(in.lockPath()); !bytes.Equal(lockAfter, lockBefore) {
				t.Errorf("lock file changed:\n%s\nwant\n%s", lockAfter, lockBefore)
			}
		})
	}
}
