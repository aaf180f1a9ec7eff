//go:build windows

package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// makeJunction makes path a directory junction (a mount point) to target,
// which Windows allows without the privilege symbolic links need. The
// reparse point is set through the file system API
// (FSCTL_SET_REPARSE_POINT), never through a shell, on a new folder under
// a hidden name beside path (the name placeLink stages links under), which
// is then renamed into place: a crash leaves at most that leftover.
//
// Untested on Windows: CI has no Windows machine, so this file is vetted
// and compiled only (.ci/run). The buffer it sets is checked on every
// system against the documented layout (TestMountPointReparseBuffer); that
// Windows accepts it, that os.Readlink gives the target back (ourJunction
// relies on it), and that the rename moves the junction, not what it leads
// to, have not been seen to hold.
func makeJunction(path, target string) error {
	abs, err := filepath.Abs(target)
	if err != nil {
		return err
	}
	buf, err := mountPointReparseBuffer(abs)
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".link-"+randomSuffix())
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	if err := setReparsePoint(tmp, buf); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("make junction %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp) // the junction, never what it leads to
		return err
	}
	return nil
}

// setReparsePoint sets the reparse point buf on the empty folder dir.
func setReparsePoint(dir string, buf []byte) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(abs, `\\`) {
		abs = `\\?\` + abs // no MAX_PATH limit; abs is clean
	}
	name, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(name, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	var n uint32
	return windows.DeviceIoControl(h, windows.FSCTL_SET_REPARSE_POINT, &buf[0], uint32(len(buf)), nil, 0, &n, nil)
}
