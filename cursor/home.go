package cursor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
)

// home prepares the overlay home for rs and returns it (see "The overlay
// home" in the package doc). Every step is idempotent and safe to race
// with another run preparing the same home. The run holds a lease on the
// home until it calls release.
func home(ctx context.Context, root string, rs driver.ResolvedSkills, userHome string) (dir string, release func(), err error) {
	key := agentdir.Key(folders(), rs, userHome)
	return agentdir.Use(ctx, root, folders(), key, func(l *agentdir.Lease) (string, error) {
		return prepare(l, rs, userHome)
	})
}

// prepare brings the overlay home of the lease l up to date.
func prepare(l *agentdir.Lease, rs driver.ResolvedSkills, userHome string) (string, error) {
	dir := l.Dir()
	cursorDir := filepath.Join(dir, ".cursor")
	if err := agentdir.MakeFolders("Cursor CLI overlay home", dir, cursorDir); err != nil {
		return "", err
	}
	userCursor := filepath.Join(userHome, ".cursor")
	if err := agentdir.MirrorDir(dir, userHome, ".cursor"); err != nil {
		return "", fmt.Errorf("Cursor CLI overlay home %s: %w", dir, err)
	}
	if err := agentdir.MirrorDir(cursorDir, userCursor, "skills"); err != nil {
		return "", fmt.Errorf("Cursor CLI overlay home %s: %w", dir, err)
	}
	want, err := wantedSkills(rs, filepath.Join(userCursor, "skills"))
	if err != nil {
		return "", err
	}
	if err := l.SyncLinks("skills", filepath.Join(cursorDir, "skills"), want); err != nil {
		return "", fmt.Errorf("Cursor CLI overlay home %s: %w", dir, err)
	}
	return dir, nil
}

// wantedSkills maps each folder name of the overlay's .cursor/skills to
// the folder it links to: the run's skills, and the user's own from
// userDir (~/.cursor/skills) under the other names. The shadow check has
// already refused a user skill of one of the run's names with other
// content, so under a shared name the run's copy is linked.
func wantedSkills(rs driver.ResolvedSkills, userDir string) (map[string]string, error) {
	want := make(map[string]string, len(rs.Entries))
	entries, err := os.ReadDir(userDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the user's skills in %s: %w", userDir, err)
	}
	for _, de := range entries {
		if name := de.Name(); !strings.HasPrefix(name, ".") {
			want[name] = filepath.Join(userDir, name)
		}
	}
	for _, e := range rs.Entries {
		want[e.RuntimeName] = e.Path
	}
	return want, nil
}
