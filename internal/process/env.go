package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// MergeEnv returns base with add applied: an entry of add replaces every
// entry of base with the same name, and later entries of add win.
func MergeEnv(base, add []string) []string {
	out := slices.Clone(base)
	for _, kv := range add {
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool {
			n, _, _ := strings.Cut(e, "=")
			return n == name
		})
		out = append(out, kv)
	}
	return out
}

// Getenv returns the value of name in env, the last entry winning, or "".
func Getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if n, v, ok := strings.Cut(env[i], "="); ok && n == name {
			return v
		}
	}
	return ""
}

// HomeDir is the user's home folder in env, the environment of an agent
// that reads it there: $HOME (%USERPROFILE% on Windows), else this
// process's home folder ("" when it has none).
func HomeDir(env []string) string {
	name := "HOME"
	if runtime.GOOS == "windows" {
		name = "USERPROFILE"
	}
	if home := Getenv(env, name); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

// LookPath finds the program name as exec.LookPath does, but on the PATH
// of env (the program's environment) rather than this process's, and
// returns an absolute path, so that it is never taken relative to the
// program's working folder.
func LookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", err
		}
		return filepath.Abs(p)
	}
	for _, dir := range filepath.SplitList(Getenv(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}
