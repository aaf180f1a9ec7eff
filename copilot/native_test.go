package copilot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// install lays out an npm install of @github/copilot under dir: the
// launcher, its link in node_modules/.bin, and the platform packages
// named, each with its native program name.
func install(t *testing.T, dir string, natives ...string) (bin string) {
	t.Helper()
	nm := filepath.Join(dir, "node_modules")
	for _, f := range append([]string{"@github/copilot/" + launcherFile}, natives...) {
		p := filepath.Join(nm, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin = filepath.Join(nm, ".bin", "copilot")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestNative checks which program runs for the one found: the platform
// package's native program for the npm launcher, whether found through
// its link or an npm shim, the program itself otherwise, and an error
// saying what to do for a launcher without its platform package.
func TestNative(t *testing.T) {
	t.Run("link to the launcher", func(t *testing.T) {
		dir := t.TempDir()
		bin := install(t, dir, "@github/copilot-linux-x64/copilot")
		if err := os.Symlink(filepath.Join("..", "@github", "copilot", launcherFile), bin); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		got, err := native(bin, "linux", "amd64")
		want := filepath.Join(dir, "node_modules", "@github", "copilot-linux-x64", "copilot")
		if real, _ := filepath.EvalSymlinks(want); err != nil || got != real {
			t.Errorf("native(%q) = %q, %v, want %q", bin, got, err, real)
		}
	})
	t.Run("npm shim on Windows", func(t *testing.T) {
		dir := t.TempDir()
		bin := install(t, dir, "@github/copilot-win32-arm64/copilot.exe") + ".cmd"
		if err := os.WriteFile(bin, []byte("@echo off\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := native(bin, "windows", "arm64")
		if err != nil || !strings.HasSuffix(got, filepath.Join("copilot-win32-arm64", "copilot.exe")) {
			t.Errorf("native(%q) = %q, %v, want the win32-arm64 package's copilot.exe", bin, got, err)
		}
	})
	t.Run("musl package", func(t *testing.T) {
		dir := t.TempDir()
		bin := install(t, dir, "@github/copilot-linuxmusl-arm64/copilot")
		os.WriteFile(bin, nil, 0o755)
		got, err := native(bin, "linux", "arm64")
		if err != nil || !strings.HasSuffix(got, filepath.Join("copilot-linuxmusl-arm64", "copilot")) {
			t.Errorf("native(%q) = %q, %v, want the musl package's program", bin, got, err)
		}
	})
	t.Run("another program", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "copilot")
		os.WriteFile(bin, nil, 0o755)
		if got, err := native(bin, "linux", "amd64"); err != nil || got != bin {
			t.Errorf("native(%q) = %q, %v, want it as it is", bin, got, err)
		}
	})
	t.Run("launcher without its package", func(t *testing.T) {
		dir := t.TempDir()
		bin := install(t, dir, "@github/copilot-darwin-x64/copilot")
		os.WriteFile(bin, nil, 0o755)
		_, err := native(bin, "linux", "amd64")
		var nf *driver.ProgramNotFoundError
		if err == nil || !strings.Contains(err.Error(), "copilot.Config.Command") || !strings.Contains(err.Error(), "reinstall @github/copilot") || !errors.As(err, &nf) || nf.Field != "copilot.Config.Command" {
			t.Errorf("native(%q) = %v, want an error saying to reinstall or set Config.Command", bin, err)
		}
	})
}
