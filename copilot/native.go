package copilot

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/driver"
)

// launcherFile is the npm launcher of @github/copilot 1.0.102, the file
// the `copilot` npm puts on PATH links to.
const launcherFile = "npm-loader.js"

// native returns the program to run for path, the program found for
// Config.Command on goos and goarch: the native program of the platform
// package beside it when path is the npm launcher (a link to
// npm-loader.js, or an npm shim in node_modules/.bin or beside a global
// node_modules), else path itself. A launcher without its platform
// package is an error saying how to install it.
func native(path, goos, goarch string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	var scope string // the node_modules/@github folder of the launcher
	switch {
	case filepath.Base(real) == launcherFile:
		scope = filepath.Dir(filepath.Dir(real))
	case filepath.Base(filepath.Dir(real)) == ".bin":
		scope = filepath.Join(filepath.Dir(filepath.Dir(real)), "@github")
	default:
		global := filepath.Join(filepath.Dir(real), "node_modules", "@github", "copilot", launcherFile)
		if _, err := os.Stat(global); err != nil {
			return path, nil
		}
		scope = filepath.Dir(filepath.Dir(global))
	}
	if _, err := os.Stat(filepath.Join(scope, "copilot", launcherFile)); err != nil {
		return path, nil // not the launcher of @github/copilot
	}
	platforms := map[string][]string{"linux": {"linux", "linuxmusl"}, "darwin": {"darwin"}, "windows": {"win32"}}[goos]
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	name := "copilot"
	if goos == "windows" {
		name += ".exe"
	}
	var tried []string
	for _, p := range platforms {
		exe := filepath.Join(scope, "copilot-"+p+"-"+arch, name)
		if fi, err := os.Stat(exe); err == nil && fi.Mode().IsRegular() {
			return exe, nil
		}
		tried = append(tried, exe)
	}
	return "", nativeMissing{&driver.ProgramNotFoundError{Command: path, Agent: "GitHub Copilot CLI", Package: "@github/copilot", Field: "copilot.Config.Command",
		Err: fmt.Errorf("%s is the npm launcher of GitHub Copilot CLI, and its native program for %s/%s is missing (looked for %v)", path, goos, goarch, tried)}}
}

// nativeMissing is the npm launcher found without its native program: a
// *driver.ProgramNotFoundError, so that a caller with its own name for
// Config.Command (its Field) words the error itself, said with what to
// reinstall.
type nativeMissing struct{ *driver.ProgramNotFoundError }

func (e nativeMissing) Error() string {
	return fmt.Sprintf("copilot: %v: reinstall %s with its optional dependencies, or set %s to the native program", e.Err, e.Package, e.Field)
}

func (e nativeMissing) Unwrap() error { return e.ProgramNotFoundError }
