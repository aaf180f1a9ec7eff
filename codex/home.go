package codex

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// linkedFromUser are the entries of the user's Codex home that the managed
// home links to: the login, and the instructions, prompts and rules Codex
// reads but does not write.
var linkedFromUser = []string{"auth.json", "AGENTS.md", "AGENTS.override.md", "prompts", "rules"}

// configSource records, in a managed home, the SHA-256 of the user's
// config.toml that was last copied there.
const configSource = ".agentadaptor-config.sha256"

// homeKey names the managed home of a skill set: its fingerprint, the
// folders it links to, the user's Codex home and whether the user's skills
// are included.
func homeKey(rs driver.ResolvedSkills, userHome string, userSkills bool) string {
	extra := []string{userHome}
	if userSkills {
		extra = append(extra, "with the user's skills")
	}
	return agentdir.Key(folders(), rs, extra...)
}

// home prepares the managed Codex home for rs and returns it (see "The
// managed Codex home" in the package doc). Every step is idempotent and
// safe to race with another run preparing the same home. The run holds a
// lease on the home until it calls release, so that a collection of the
// cache keeps it.
func home(ctx context.Context, root string, rs driver.ResolvedSkills, userHome string, userSkills bool) (dir string, release func(), err error) {
	return agentdir.Use(ctx, root, folders(), homeKey(rs, userHome, userSkills), func(l *agentdir.Lease) (string, error) {
		return prepare(ctx, l.Dir(), rs, userHome, userSkills)
	})
}

// prepare brings the managed home dir up to date, under the run's lease.
func prepare(ctx context.Context, dir string, rs driver.ResolvedSkills, userHome string, userSkills bool) (string, error) {
	if err := agentdir.MakeFolders("managed Codex home", dir); err != nil {
		return "", err
	}
	userDir := ""
	if userSkills {
		userDir = filepath.Join(userHome, "skills")
	}
	want, err := agentdir.SkillLinks(ctx, rs, userDir)
	if err != nil {
		return "", err
	}
	// Codex lists skills by their front matter's name, wherever they sit
	// in the folder: one of the user's listed by the name of one of ours
	// must be ours.
	if userDir != "" {
		if err := checkShadowsOf(ctx, rs, []string{userDir}); err != nil {
			return "", err
		}
	}
	if err := agentdir.SyncLinks(filepath.Join(dir, "skills"), want); err != nil {
		return "", fmt.Errorf("managed Codex home %s: %w", dir, err)
	}
	if err := syncConfig(dir, userHome); err != nil {
		return "", fmt.Errorf("managed Codex home %s: %w", dir, err)
	}
	for _, name := range linkedFromUser {
		if err := agentdir.MirrorLink(filepath.Join(dir, name), filepath.Join(userHome, name)); err != nil {
			return "", fmt.Errorf("managed Codex home %s: %w", dir, err)
		}
	}
	return dir, nil
}

// syncConfig keeps the managed home's config.toml a copy of the user's:
// copied again whenever the user's changes, so Codex's own edits to the
// managed copy last until then; removed when the user has none.
func syncConfig(dir, userHome string) error {
	managed := filepath.Join(dir, "config.toml")
	source := filepath.Join(dir, configSource)
	data, err := readConfig(filepath.Join(userHome, "config.toml"))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(source); serr == nil {
			os.Remove(managed)
			os.Remove(source)
		}
		return nil
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	digest := []byte(hex.EncodeToString(sum[:]))
	if last, err := os.ReadFile(source); err == nil && bytes.Equal(last, digest) {
		if _, err := os.Stat(managed); err == nil {
			return nil
		}
	}
	if err := atomicfile.Write(managed, data, 0o600); err != nil {
		return err
	}
	return atomicfile.Write(source, digest, 0o600)
}

// maxConfigSize bounds the user's config.toml.
const maxConfigSize = 1 << 20

// readConfig reads the user's config.toml: a regular file (a FIFO or a
// device would block or never end) of at most maxConfigSize bytes.
func readConfig(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the user's %s is not a regular file; Codex settings must be one", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("read the user's %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read the user's %s: %w", path, err)
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("the user's %s is over %d bytes; that is no Codex configuration", path, maxConfigSize)
	}
	return data, nil
}
