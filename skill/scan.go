package skill

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// dirScanConfig collects DirScanOption values.
type dirScanConfig struct {
	ignore    map[string]bool
	prefix    string
	skillFile string
}

// DirScanOption configures LocalSkillsFromDir. Hosts that need non-default
// behaviour (custom key prefix, exact-name exclusions, custom SKILL.md
// filename) chain options into the call.
type DirScanOption func(*dirScanConfig)

// WithDirIgnore declares directory names that the scan must skip. Useful
// for filtering generated or dependency directories such as
// "node_modules".
//
// Multiple WithDirIgnore options accumulate; matching is exact
// (case-sensitive), not glob-style. Default: none beyond hidden entries.
func WithDirIgnore(names ...string) DirScanOption {
	return func(c *dirScanConfig) {
		for _, n := range names {
			c.ignore[n] = true
		}
	}
}

// WithDirSkillFile overrides the per-directory marker file name. Default
// "SKILL.md". Setting it to, for example, "AGENT.md" lets the scan identify
// directories that follow a different convention. This option only changes
// discovery; callers remain responsible for ensuring each returned
// directory has the files required by its eventual consumer.
func WithDirSkillFile(name string) DirScanOption {
	return func(c *dirScanConfig) { c.skillFile = name }
}

// WithDirSkillKeyPrefix prepends prefix to every Skill.Key produced by the
// scan. A prefix of "team/" turns a directory named "code-review" into key
// "team/code-review". Prefixes that already end with "/" are honoured
// verbatim; other prefixes get a "/" separator appended.
//
// Empty prefix is the default and produces bare directory names.
func WithDirSkillKeyPrefix(prefix string) DirScanOption {
	return func(c *dirScanConfig) {
		if prefix != "" && !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		c.prefix = prefix
	}
}

// LocalSkillsFromDir scans root and produces one Skill per subdirectory
// that contains the SKILL marker file (default "SKILL.md"). The scan is
// deterministic: subdirectories are processed in lexical order, so the
// returned slice is stable across runs on the same filesystem.
//
// Each produced Skill has:
//   - Key: directory basename, optionally prefixed via WithDirSkillKeyPrefix
//   - Source: the same local-directory source Dir builds, pointing at the
//     absolute path of the subdirectory
//   - Required / Reason / Metadata: zero values (the scan does NOT parse
//     SKILL.md frontmatter; hosts that need that should post-process the
//     slice)
//
// Subdirectories without a SKILL marker file are silently skipped so the
// scan tolerates a mixed root (some skills, some plain directories). Hidden
// entries (starting with ".") are skipped by default; pass WithDirIgnore to
// skip additional names. The scan goes one level deep; a symbolic link to a
// directory counts as a subdirectory, and the marker must be a regular file
// (or a link to one).
//
// Error semantics:
//   - root doesn't exist or isn't a directory → error
//   - root is unreadable (permission) → error
//   - individual subdirectory unreadable → error (better to fail loudly
//     than silently miss a skill the host expected)
//
// The returned []Skill feeds the skill options via SkillsAsRefs:
//
//	skills, err := skill.LocalSkillsFromDir("/opt/skills")
//	if err != nil { return err }
//	agent := adaptor.New(drv,
//	    adaptor.WithSkills(skill.SkillsAsRefs(skills)...),
//	)
func LocalSkillsFromDir(root string, opts ...DirScanOption) ([]Skill, error) {
	c := dirScanConfig{ignore: make(map[string]bool), skillFile: "SKILL.md"}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("scan skills in %q: %w", root, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("scan skills: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("scan skills: %s is not a directory", abs)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("scan skills: %w", err)
	}
	var skills []Skill
	for _, e := range entries { // os.ReadDir sorts by name
		name := e.Name()
		if strings.HasPrefix(name, ".") || c.ignore[name] {
			continue
		}
		dir := filepath.Join(abs, name)
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("scan skills: %w", err)
		}
		if !fi.IsDir() {
			continue
		}
		f, err := os.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("scan skills: subdirectory unreadable: %w", err)
		}
		_, err = f.Readdirnames(1)
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("scan skills: subdirectory %s unreadable: %w", dir, err)
		}
		marker, err := os.Stat(filepath.Join(dir, c.skillFile))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("scan skills: %w", err)
		}
		if !marker.Mode().IsRegular() {
			continue
		}
		skills = append(skills, Skill{Key: c.prefix + name, Source: PathSource{Path: dir}})
	}
	return skills, nil
}
