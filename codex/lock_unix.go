//go:build unix

package codex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// firstRun makes runs in a home that has no skills/.system yet take turns
// (rule 5 of the managed home): it returns at once when the home has its
// built-in skills, and otherwise holds a file lock on the home until the
// returned function is called, waiting for it as long as ctx allows.
func firstRun(ctx context.Context, home string) (unlock func(), err error) {
	if ready(home) {
		return func() {}, nil
	}
	f, err := os.OpenFile(filepath.Join(home, ".agentadaptor-first-run.lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("managed Codex home %s: %w", home, err)
	}
	if err := filelock.Lock(ctx, f); err != nil {
		f.Close()
		if err == ctx.Err() {
			return nil, err // ctx is done
		}
		return nil, fmt.Errorf("managed Codex home %s: lock: %w", home, err)
	}
	return func() { f.Close() }, nil
}

// ready reports whether Codex has installed its built-in skills in home:
// the marker file it writes with them is there (Codex 0.169.0 fills
// skills/.system in place, so the folder alone says less).
func ready(home string) bool {
	_, err := os.Stat(filepath.Join(home, "skills", ".system", ".codex-system-skills.marker"))
	return !errors.Is(err, fs.ErrNotExist)
}

// nonBlock opens a file without blocking on a FIFO.
const nonBlock = unix.O_NONBLOCK
