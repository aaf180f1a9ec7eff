package qwen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// maxSettings is the largest settings file of the user's or the
// project's that the driver reads.
const maxSettings = 1 << 20

// settingsDirs returns the folders named in skills.directories of the
// user's settings ($QWEN_HOME/settings.json, else ~/.qwen/settings.json)
// and of the project's (.qwen/settings.json in workspace, which Qwen Code
// does not read when the workspace is the home folder), as written there
// ([resolveDir] resolves them). A missing file names none; one that
// cannot be read is an error naming it.
func settingsDirs(env []string, workspace string) ([]string, error) {
	home := homeDir(env)
	files := []string{filepath.Join(qwenHome(env, workspace), "settings.json")}
	if !sameFolder(workspace, home) {
		files = append(files, filepath.Join(workspace, ".qwen", "settings.json"))
	}
	var dirs []string
	for _, f := range files {
		listed, err := listedDirs(f)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, listed...)
	}
	return dirs, nil
}

// listedDirs reads skills.directories from the settings file path (JSON
// with comments, as Qwen Code reads it).
func listedDirs(path string) ([]string, error) {
	b, err := readfile.Small(path, maxSettings)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Qwen Code's settings, read for the skill folders they name: %w", err)
	}
	var s struct {
		Skills struct {
			Directories json.RawMessage `json:"directories"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(stripComments(b), &s); err != nil {
		return nil, fmt.Errorf("Qwen Code's settings %s are not JSON the driver can read (%v); fix the file, which Qwen Code would refuse too", path, err)
	}
	var list []any
	if len(s.Skills.Directories) > 0 && json.Unmarshal(s.Skills.Directories, &list) != nil {
		return nil, nil // not a list: Qwen Code reads none
	}
	var out []string
	for _, v := range list {
		if d, ok := v.(string); ok && strings.TrimSpace(d) != "" {
			out = append(out, strings.TrimSpace(d))
		}
	}
	return out, nil
}

// stripComments blanks out the comments (// to the end of the line, and
// /* */) and a leading byte order mark of a JSON text, outside strings,
// as Qwen Code does before it parses a settings file.
func stripComments(b []byte) []byte {
	out := []byte(strings.TrimPrefix(string(b), "\ufeff"))
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// envVar is a reference to an environment variable in a settings string:
// $NAME or ${NAME}.
var envVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+)\})`)

// resolveDir resolves a folder named in settings as Qwen Code 0.24.4
// does: $NAME and ${NAME} become the variable's value in env when it is
// set, then the path is resolved as [resolvePath] says.
func resolveDir(env []string, workspace, d string) string {
	d = envVar.ReplaceAllStringFunc(d, func(m string) string {
		sub := envVar.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if up := strings.ToUpper(name); up == "SESSION_ID" || up == "QWEN_CODE_SESSION_ID" {
			return m
		}
		if v := process.Getenv(env, name); v != "" {
			return v
		}
		return m
	})
	return resolvePath(env, workspace, d)
}

// resolvePath resolves a path as Qwen Code 0.24.4 does: a leading ~ (or
// %userprofile%) is the home folder, and a relative path is taken from
// the workspace, its working folder.
func resolvePath(env []string, workspace, d string) string {
	home := homeDir(env)
	switch lower := strings.ToLower(d); {
	case d == "~" || lower == "%userprofile%":
		d = home
	case strings.HasPrefix(d, "~/") || strings.HasPrefix(d, `~\`):
		d = filepath.Join(home, d[2:])
	case strings.HasPrefix(lower, "%userprofile%/") || strings.HasPrefix(lower, `%userprofile%\`):
		d = filepath.Join(home, d[len("%userprofile%/"):])
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(workspace, d)
	}
	return filepath.Clean(d)
}

// homeDir is the home folder of the agent's environment env: $HOME, else
// this process's.
func homeDir(env []string) string {
	home := process.Getenv(env, "HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return home
}

// qwenHome is Qwen Code's folder of the user's settings and skills:
// $QWEN_HOME, resolved as a settings folder is, else ~/.qwen.
func qwenHome(env []string, workspace string) string {
	if q := process.Getenv(env, "QWEN_HOME"); q != "" {
		return resolvePath(env, workspace, q)
	}
	return filepath.Join(homeDir(env), ".qwen")
}

// sameFolder reports whether a and b are the same folder, links
// resolved.
func sameFolder(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
