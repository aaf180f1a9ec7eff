package qwen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillsDir is the folder of a mount that holds its skills, the one named
// in skills.directories.
const skillsDir = "skills"

// maxDefaults is the largest system-defaults file of the user's the
// driver reads.
const maxDefaults = 1 << 20

// mount returns the skills folder of rs's mount under root, holding one
// link per skill (a copy where links cannot be made), and the release of
// the run's lease on it (rules 1 and 2 of "Mounting skills").
func mount(ctx context.Context, root string, rs driver.ResolvedSkills) (dir string, release func(), err error) {
	m, release, err := agentdir.Use(ctx, root, agentdir.QwenMount, agentdir.Key(agentdir.QwenMount, rs), func(l *agentdir.Lease) (string, error) {
		return agentdir.Mount(ctx, l, skillsDir, rs, skill.ContentDigest)
	})
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(m, skillsDir), release, nil
}

// systemDefaultsPath is the system-defaults file Qwen Code 0.24.4 reads
// in env on goos: $QWEN_CODE_SYSTEM_DEFAULTS_PATH, else system-defaults.json
// beside the system settings file ($QWEN_CODE_SYSTEM_SETTINGS_PATH, else
// the platform's).
func systemDefaultsPath(env []string, goos string) string {
	if p := process.Getenv(env, "QWEN_CODE_SYSTEM_DEFAULTS_PATH"); p != "" {
		return p
	}
	settings := process.Getenv(env, "QWEN_CODE_SYSTEM_SETTINGS_PATH")
	if settings == "" {
		switch goos {
		case "darwin":
			settings = "/Library/Application Support/QwenCode/settings.json"
		case "windows":
			settings = `C:\ProgramData\qwen-code\settings.json`
		default:
			settings = "/etc/qwen-code/settings.json"
		}
	}
	return filepath.Join(filepath.Dir(settings), "system-defaults.json")
}

// readDefaults reads the user's system-defaults file at path as a JSON
// object; a missing file is an empty one.
func readDefaults(path string) (map[string]any, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the system defaults %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDefaults+1))
	if err != nil {
		return nil, fmt.Errorf("read the system defaults %s: %w", path, err)
	}
	if len(b) > maxDefaults {
		return nil, fmt.Errorf("the system defaults %s are larger than %d bytes", path, maxDefaults)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the system defaults %s are not a JSON object (comments are not supported here): %v", path, err)
	}
	return m, nil
}

// withSkillsDir returns the settings m with dir added to the end of
// skills.directories, and the folders listed there before.
func withSkillsDir(m map[string]any, dir string) (out map[string]any, listed []string, err error) {
	out = make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	skills := map[string]any{}
	if v, ok := m["skills"]; ok {
		s, ok := v.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("the system defaults' skills is not an object")
		}
		for k, v := range s {
			skills[k] = v
		}
	}
	var dirs []any
	if v, ok := skills["directories"]; ok {
		list, ok := v.([]any)
		if !ok {
			return nil, nil, fmt.Errorf("the system defaults' skills.directories is not a list")
		}
		for _, d := range list {
			if s, ok := d.(string); ok {
				listed = append(listed, s)
			}
		}
		dirs = append(dirs, list...)
	}
	skills["directories"] = append(dirs, dir)
	out["skills"] = skills
	return out, listed, nil
}

// writeDefaults writes the run's system-defaults file, the user's (read
// from env on goos) with skillsDir added, into a new folder of its own
// under the temporary folder. It returns the file, the folders the
// user's file listed, and the removal of the file.
func writeDefaults(env []string, goos, skillsDir string) (path string, listed []string, remove func(), err error) {
	user := systemDefaultsPath(env, goos)
	m, err := readDefaults(user)
	if err != nil {
		return "", nil, nil, err
	}
	m, listed, err = withSkillsDir(m, skillsDir)
	if err != nil {
		return "", nil, nil, fmt.Errorf("%s: %w", user, err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", nil, nil, err
	}
	dir, err := os.MkdirTemp("", "agentadaptor-qwen-")
	if err != nil {
		return "", nil, nil, fmt.Errorf("create the run's system defaults: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "system-defaults.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		remove()
		return "", nil, nil, fmt.Errorf("write the run's system defaults: %w", err)
	}
	return path, listed, remove, nil
}
