package skill

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// ArchiveFileSkills lists the skills in the archive file at archivePath:
// the folders holding a SKILL.md at the archive's root or at most depth
// levels below it, as subpaths for [WithSubpath] ("" for the root), sorted.
// The whole archive is checked under the default limits first, without
// writing anything; an archive that breaks a rule fails as
// materialization would.
func ArchiveFileSkills(ctx context.Context, archivePath string, depth int) ([]string, error) {
	f, err := os.Open(archivePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > DefaultMaxArchiveSize {
		return nil, fmt.Errorf("%w: archive is larger than %d bytes", ErrArchiveLimit, DefaultMaxArchiveSize)
	}
	files, err := extract.Archive(ctx, f, info.Size(), nil, extract.Options{
		MaxFileSize:  DefaultMaxFileSize,
		MaxTotalSize: DefaultMaxTotalSize,
		MaxEntries:   DefaultMaxArchiveEntries,
		AnyTree:      true,
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, file := range files {
		if path.Base(file.Path) != "SKILL.md" {
			continue
		}
		dir := path.Dir(file.Path)
		if dir == "." {
			dir = ""
		}
		if n := strings.Count(dir, "/") + 1; dir != "" && n > depth {
			continue
		}
		out = append(out, dir)
	}
	slices.Sort(out)
	return out, nil
}
