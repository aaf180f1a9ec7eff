package agentdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/treecmp"
)

// SkillLinks maps each folder name of a home's skills folder to the
// folder it links to, for [SyncLinks]: the run's skills by runtime name,
// then the user's own skill folders in userDir ("" for none; a missing
// folder has none), hidden ones left out. A user skill named like one of
// the run's must have its content, else a *driver.ShadowError; with it,
// ours stays linked under the name.
func SkillLinks(ctx context.Context, rs driver.ResolvedSkills, userDir string) (map[string]string, error) {
	want := make(map[string]string, len(rs.Entries))
	for _, e := range rs.Entries {
		want[e.RuntimeName] = e.Path
	}
	if userDir == "" {
		return want, nil
	}
	entries, err := os.ReadDir(userDir)
	if errors.Is(err, fs.ErrNotExist) {
		return want, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the user's skills in %s: %w", userDir, err)
	}
	for _, de := range entries {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue // the agent's own (Codex's .system), and hidden folders
		}
		theirs := filepath.Join(userDir, name)
		if fi, err := os.Stat(theirs); err != nil || !fi.IsDir() {
			continue
		}
		ours, clash := want[name]
		if !clash {
			want[name] = theirs
			continue
		}
		same, err := treecmp.Equal(ctx, ours, theirs)
		if err != nil {
			return nil, fmt.Errorf("compare skill %q with the user's %s: %w", name, theirs, err)
		}
		if !same {
			return nil, &driver.ShadowError{Name: name, Ours: ours, Theirs: theirs}
		}
	}
	return want, nil
}
