//go:build windows

package install

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// makeJunction makes path a directory junction to target, which Windows
// allows without the privilege symbolic links need.
func makeJunction(path, target string) error {
	abs, err := filepath.Abs(target)
	if err != nil {
		return err
	}
	out, err := exec.Command("cmd", "/c", "mklink", "/J", path, abs).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mklink /J %s: %v: %s", path, err, out)
	}
	return nil
}
