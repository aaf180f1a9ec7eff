package extract

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScratchDamagedBetweenPassesIsRefused damages, between the two
// passes over a tar.gz, the scratch file's bytes of SKILL.md: the second
// pass must refuse them, since the SHA-256 it returns is the first pass's
// and must describe what is on disk.
func TestScratchDamagedBetweenPassesIsRefused(t *testing.T) {
	body := []byte("---\nname: kit\ndescription: a kit\n---\nRun `echo hello` to greet.\n")
	data := gz(t, tarBytes(t, tReg("SKILL.md", string(body))))
	opts := testOptions()
	opts.Format = formatTarGz
	scratchPath := filepath.Join(t.TempDir(), "scratch")
	opts.Scratch = func() (*os.File, error) { return os.OpenFile(scratchPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600) }
	root, _ := openRoot(t)

	// extractTar, split between the passes.
	src, scratch, release, err := firstTarPass(t.Context(), bytes.NewReader(data), int64(len(data)), true, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	p := newPlan(opts)
	c := &counter{ctx: t.Context(), r: src, limit: opts.MaxTotalSize}
	if err := planTar(c, p, true); err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(io.NewSectionReader(scratch, 0, c.n))
	if err != nil {
		t.Fatal(err)
	}
	at := int64(bytes.Index(raw, body)) + int64(len(body)) - 3
	if _, err := scratch.WriteAt([]byte("X"), at); err != nil {
		t.Fatal(err)
	}
	files, err := writeTar(t.Context(), io.NewSectionReader(scratch, 0, c.n), p, root, opts)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "scratch copy of the archive changed") {
		t.Errorf("second pass over a damaged scratch file = %v, %v, want ErrFormat", files, err)
	}
}
