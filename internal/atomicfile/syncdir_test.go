package atomicfile

import (
	"os"
	"runtime"
	"testing"
)

// TestSyncDir covers rule 1's last step and the platform note: a folder
// is flushed on Unix (a missing one is an error there), and not at all on
// Windows.
func TestSyncDir(t *testing.T) {
	r, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := syncDir(r, "."); err != nil {
		t.Errorf("syncDir(root, %q) = %v, want nil", ".", err)
	}
	err = syncDir(r, "absent")
	if runtime.GOOS == "windows" && err != nil {
		t.Errorf("syncDir(root, %q) on Windows = %v, want nil (folders are not flushed)", "absent", err)
	}
	if runtime.GOOS != "windows" && err == nil {
		t.Errorf("syncDir(root, %q) = nil, want an error: the folder was opened and flushed", "absent")
	}
}
