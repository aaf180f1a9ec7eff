package qwen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillsDir is the folder of a mount that holds its skills, the one named
// in skills.directories.
const skillsDir = "skills"

// maxDefaults is the largest system-defaults file of the user's the
// driver reads.
const maxDefaults = 1 << 20

// defaultsFile names the run's system-defaults file beside its mount
// (rule 13 of internal/agentdir): one per content.
const defaultsFile = "system-defaults-*.json"

// mount returns the skills folder of rs's mount under root, holding one
// link per skill (a copy where links cannot be made), the run's
// system-defaults file naming it (see [defaults]), the folders the user's
// system defaults listed, and the release of the run's lease on both
// (rules 1 and 2 of "Mounting skills").
func mount(ctx context.Context, root string, rs driver.ResolvedSkills, env []string, goos string, noMemory bool) (dir, defaultsPath string, listed []string, release func(), err error) {
	m, release, err := agentdir.Use(ctx, root, folders(), agentdir.Key(folders(), rs), func(l *agentdir.Lease) (string, error) {
		m, err := agentdir.Mount(ctx, l, skillsDir, rs, skill.ContentDigest)
		if err != nil {
			return "", err
		}
		var data []byte
		if data, listed, err = defaults(env, goos, filepath.Join(m, skillsDir), noMemory); err != nil {
			return "", err
		}
		defaultsPath, err = l.File(defaultsFile, data)
		return m, err
	})
	if err != nil {
		return "", "", nil, nil, err
	}
	return filepath.Join(m, skillsDir), defaultsPath, listed, release, nil
}

// systemDefaultsPath is the system-defaults file Qwen Code 0.24.4 reads
// in env on goos: $QWEN_CODE_SYSTEM_DEFAULTS_PATH, else system-defaults.json
// beside the system settings file ($QWEN_CODE_SYSTEM_SETTINGS_PATH, else
// the platform's).
func systemDefaultsPath(env []string, goos string) string {
	if p := process.Getenv(env, "QWEN_CODE_SYSTEM_DEFAULTS_PATH"); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(systemSettingsPath(env, goos)), "system-defaults.json")
}

// systemSettingsPath is the system settings file Qwen Code 0.24.4 reads
// in env on goos: $QWEN_CODE_SYSTEM_SETTINGS_PATH, else the platform's.
func systemSettingsPath(env []string, goos string) string {
	if p := process.Getenv(env, "QWEN_CODE_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	switch goos {
	case "darwin":
		return "/Library/Application Support/QwenCode/settings.json"
	case "windows":
		return `C:\ProgramData\qwen-code\settings.json`
	}
	return "/etc/qwen-code/settings.json"
}

// readDefaults reads the user's system-defaults file at path as a JSON
// object; a missing file is an empty one.
func readDefaults(path string) (map[string]any, error) {
	b, err := readfile.Small(path, maxDefaults)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the system defaults: %w", err)
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
	skills, err := section(m, "skills")
	if err != nil {
		return nil, nil, err
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
	return with(m, "skills", skills), listed, nil
}

// withoutMemory returns the settings m with managed memory extraction
// turned off (memory.enableManagedAutoMemory false).
func withoutMemory(m map[string]any) (map[string]any, error) {
	memory, err := section(m, "memory")
	if err != nil {
		return nil, err
	}
	memory["enableManagedAutoMemory"] = false
	return with(m, "memory", memory), nil
}

// section returns a copy of the object m holds under name, or an empty
// one.
func section(m map[string]any, name string) (map[string]any, error) {
	v, ok := m[name]
	if !ok {
		return map[string]any{}, nil
	}
	s, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the system defaults' %s is not an object", name)
	}
	return maps.Clone(s), nil
}

// with returns a copy of m with v under name.
func with(m map[string]any, name string, v any) map[string]any {
	out := maps.Clone(m)
	out[name] = v
	return out
}

// defaults returns the run's system defaults (rule 2 of "Mounting
// skills"): the user's, read from env on goos, with skillsDir added to
// skills.directories unless it is "", and managed memory extraction
// turned off when noMemory; and the folders the user's file listed.
func defaults(env []string, goos, skillsDir string, noMemory bool) (data []byte, listed []string, err error) {
	user := systemDefaultsPath(env, goos)
	m, err := readDefaults(user)
	if err != nil {
		return nil, nil, err
	}
	if skillsDir != "" {
		if m, listed, err = withSkillsDir(m, skillsDir); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", user, err)
		}
	}
	if noMemory {
		if m, err = withoutMemory(m); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", user, err)
		}
	}
	data, err = json.MarshalIndent(m, "", "  ")
	return data, listed, err
}

// writeDefaults writes the system defaults of a run without skills (see
// [defaults]) into a new folder of its own under the temporary folder. It
// returns the file and its removal.
func writeDefaults(env []string, goos string, noMemory bool) (path string, remove func(), err error) {
	b, _, err := defaults(env, goos, "", noMemory)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "agentadaptor-qwen-")
	if err != nil {
		return "", nil, fmt.Errorf("create the run's system defaults: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "system-defaults.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		remove()
		return "", nil, fmt.Errorf("write the run's system defaults: %w", err)
	}
	return path, remove, nil
}

// prepare gives the run its skills and its system defaults, as
// "Mounting skills" says, and checks that no other skill shadows one of
// them (rule 1 of "Checks"). It returns the agent's environment, which
// names the run's system defaults, and the function to call once the run
// is over. A run without skills and without Config.NoMemoryExtraction
// needs neither: env is returned as it is.
func (d *qwenDriver) prepare(ctx context.Context, req *driver.Request, env []string, workspace string) ([]string, func(), error) {
	noMemory := d.c.NoMemoryExtraction
	if len(req.Skills.Entries) == 0 {
		if !noMemory {
			return env, func() {}, nil
		}
		path, remove, err := writeDefaults(env, runtime.GOOS, true)
		if err != nil {
			return nil, nil, fmt.Errorf("qwen: %w", err)
		}
		return process.MergeEnv(env, []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + path}), remove, nil
	}
	mountDir, path, listed, release, err := mount(ctx, launch.RunCacheRoot(req, d.c.CacheRoot), req.Skills, env, runtime.GOOS, noMemory)
	if err != nil {
		return nil, nil, fmt.Errorf("qwen: %w", err)
	}
	named, err := settingsDirs(env, workspace)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("qwen: %w", err)
	}
	if err := checkShadows(ctx, req.Skills, mountDir, otherSkillsDirs(env, workspace, append(listed, named...))); err != nil {
		release()
		return nil, nil, err
	}
	return process.MergeEnv(env, []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + path}), release, nil
}
