package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// The limits of a run's outputs/: an agent that leaves more in its
// workspace has its run recorded as failed, with the limit as the reason.
// maxOutputFiles counts the files created or changed and the folders
// created; maxDepth bounds the folders of every tree walked (a
// workspace, a kept run), which cost an open per level of each.
const (
	maxOutputFiles = 10_000
	maxOutputBytes = 1 << 30
	maxDepth       = 64
)

// outputLimits bound a run's outputs/ (the tests lower them).
type outputLimits struct {
	files int
	bytes int64
}

// fileSum is a file's size and SHA-256, as a snapshot records it.
type fileSum struct {
	size int64
	sum  [sha256.Size]byte
}

// caseFile is one file of a case: its path in the skill and its place in
// the workspace.
type caseFile struct {
	src, place string
	index      int // in Case.Files
}

// caseFiles returns c's files with their places, sorted by place.
func caseFiles(c Case) []caseFile {
	out := make([]caseFile, 0, len(c.Files))
	for i, f := range c.Files {
		out = append(out, caseFile{src: f, place: c.FilePlace(f), index: i})
	}
	slices.SortFunc(out, func(a, b caseFile) int {
		if a.place < b.place {
			return -1
		}
		if a.place > b.place {
			return 1
		}
		return 0
	})
	return out
}

// errTooDeep is a tree deeper than maxDepth.
var errTooDeep = errors.New("too deep")

// badCaseFile is the error of the file cf of c, case ci of the suite,
// that cannot be read as a regular file of the skill (a link, maybe
// swapped in after the suite was checked).
func badCaseFile(ci int, c Case, cf caseFile, err error) error {
	return fmt.Errorf("%w: evals/evals.json: evals[%d] (id %s).files[%d]: %s: not a regular file of the skill: %v", ErrInvalidSuite, ci, c.ID, cf.index, cf.src, err)
}

// filesDigest returns the digest of c's files in the skill folder dir:
// each place with its content's SHA-256. ci is c's index in the suite.
func filesDigest(ctx context.Context, dir string, c Case, ci int) (string, error) {
	files := caseFiles(c)
	if len(files) == 0 {
		return "", nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	h := sha256.New()
	for _, cf := range files {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		f, _, err := readfile.OpenNoLink(root, filepath.FromSlash(cf.src))
		if err != nil {
			return "", badCaseFile(ci, c, cf, err)
		}
		fh := sha256.New()
		_, err = io.Copy(fh, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("case %s: file %s: %w", c.ID, cf.src, err)
		}
		fmt.Fprintf(h, "%q %x\n", cf.place, fh.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyCaseFiles copies c's files from the skill folder dir into the
// workspace ws, each at its place. ci is c's index in the suite.
func copyCaseFiles(dir, ws string, c Case, ci int) error {
	if len(c.Files) == 0 {
		return nil
	}
	src, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer dst.Close()
	for _, cf := range caseFiles(c) {
		in, fi, err := readfile.OpenNoLink(src, filepath.FromSlash(cf.src))
		if err != nil {
			return badCaseFile(ci, c, cf, err)
		}
		err = copyCaseFile(in, fi, dst, cf)
		in.Close()
		if err != nil {
			return fmt.Errorf("case %s: file %s: %w", c.ID, cf.src, err)
		}
	}
	return nil
}

func copyCaseFile(in *os.File, fi fs.FileInfo, dst *os.Root, cf caseFile) error {
	_, err := writeIn(dst, cf.place, in, -1, plainMode(fi))
	return err
}

// plainMode is the mode a copied file gets: 0644, or 0755 for an
// executable one.
func plainMode(fi fs.FileInfo) os.FileMode {
	if fi.Mode()&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// writeIn creates the file name (slash-separated) of dst, with its
// folders, holding what r holds, up to limit+1 bytes when limit is not
// negative; it returns the bytes written. The file must not be there.
func writeIn(dst *os.Root, name string, r io.Reader, limit int64, mode os.FileMode) (int64, error) {
	local := filepath.FromSlash(name)
	if d := filepath.Dir(local); d != "." {
		if err := dst.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
	}
	w, err := dst.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	if limit >= 0 {
		r = io.LimitReader(r, limit+1)
	}
	n, err := io.Copy(w, r)
	return n, errors.Join(err, w.Close())
}

// snapshot records every regular file below ws (links are not followed)
// by its slash-separated path.
func snapshot(ctx context.Context, ws string) (map[string]fileSum, error) {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	snap := map[string]fileSum{}
	err = walkRegular(ctx, root, func(name string, f *os.File, fi fs.FileInfo) error {
		h := sha256.New()
		n, err := io.Copy(h, f)
		if err != nil {
			return err
		}
		var s fileSum
		s.size = n
		h.Sum(s.sum[:0])
		snap[name] = s
		return nil
	})
	return snap, err
}

// errSkip is returned by walkRegular's visit to leave a file without
// reading it.
var errSkip = errors.New("skip")

// walkRegular calls visit with each regular file below root, opened
// without following links (a link, a FIFO, a device is passed over, and
// so is a file replaced by one of them as it is walked), in lexical
// order, stopping at the first error visit returns.
func walkRegular(ctx context.Context, root *os.Root, visit func(name string, f *os.File, fi fs.FileInfo) error) error {
	return walkTree(ctx, root, nil, visit)
}

// walkTree walks root as walkRegular does, calling dir (when not nil)
// with each folder below it first. A folder more than maxDepth deep is an
// error.
func walkTree(ctx context.Context, root *os.Root, dir func(name string) error, visit func(name string, f *os.File, fi fs.FileInfo) error) error {
	return fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if name == "." {
				return nil
			}
			if strings.Count(name, "/") >= maxDepth {
				return fmt.Errorf("%s: %w: more than %d folders deep", name, errTooDeep, maxDepth)
			}
			if dir != nil {
				return dir(name)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, fi, err := readfile.OpenNoLink(root, filepath.FromSlash(name))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, readfile.ErrNotRegular) {
				return nil // gone, or something else put in its place
			}
			return err
		}
		defer f.Close()
		if err := visit(name, f, fi); err != nil && err != errSkip {
			return err
		}
		return nil
	})
}

// collectOutputs copies to out (a folder it creates) the regular files of
// the workspace ws that are not in snap as they are: the files the agent
// created or changed. Modes are 0644, or 0755 for an executable file. It
// fails over lim's files or bytes.
func collectOutputs(ctx context.Context, ws string, snap map[string]fileSum, out string, lim outputLimits) error {
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	dst, err := os.OpenRoot(out)
	if err != nil {
		return err
	}
	defer dst.Close()
	// The folders holding the case's files were not created.
	had := map[string]bool{}
	for name := range snap {
		for d := path.Dir(name); d != "." && !had[d]; d = path.Dir(d) {
			had[d] = true
		}
	}
	files, total := 0, int64(0)
	tooMany := func() error {
		return fmt.Errorf("outputs: %w: more than %d files and folders created or changed in the workspace", errTooLarge, lim.files)
	}
	dir := func(name string) error {
		if !had[name] {
			if files++; files > lim.files {
				return tooMany()
			}
		}
		return nil
	}
	err = walkTree(ctx, root, dir, func(name string, f *os.File, fi fs.FileInfo) error {
		if old, ok := snap[name]; ok && old.size == fi.Size() {
			h := sha256.New()
			if _, err := io.Copy(h, io.LimitReader(f, old.size+1)); err != nil {
				return err
			}
			var sum [sha256.Size]byte
			h.Sum(sum[:0])
			if sum == old.sum {
				return errSkip
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
		}
		if files++; files > lim.files {
			return tooMany()
		}
		n, err := writeIn(dst, name, f, lim.bytes-total, plainMode(fi))
		total += n
		if err != nil {
			return err
		}
		if total > lim.bytes {
			return fmt.Errorf("outputs: %w: more than %d bytes created or changed in the workspace", errTooLarge, lim.bytes)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errTooLarge) && ctx.Err() == nil {
		// An error of the file system, which names no folder.
		err = fmt.Errorf("outputs: %s: %w", ws, err)
	}
	return err
}

// recordDeletions writes into the run folder dir the deletedFile of
// the files of snap no longer in the workspace ws as regular files; none
// is written when every one is there.
func recordDeletions(ws string, snap map[string]fileSum, dir string) error {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	var gone []string
	for name := range snap {
		if fi, err := root.Lstat(filepath.FromSlash(name)); err != nil || !fi.Mode().IsRegular() {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	slices.Sort(gone)
	return os.WriteFile(filepath.Join(dir, deletedFile), []byte(strings.Join(gone, "\n")+"\n"), 0o644)
}

// applyDeletions removes from the workspace ws the case files the kept
// run dir records as deleted by its agent (its deletedFile).
func applyDeletions(dir, ws string) error {
	b, err := readSmall(filepath.Join(dir, deletedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, name := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("%s: %q is no place in a workspace", filepath.Join(dir, deletedFile), name)
		}
		if err := root.Remove(filepath.FromSlash(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// overlay copies every regular file below from into the folder to, which
// must not hold them: a kept run's outputs over its case's files, to grade
// it again.
func overlay(ctx context.Context, from, to string) error {
	src, err := os.OpenRoot(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenRoot(to)
	if err != nil {
		return err
	}
	defer dst.Close()
	_, err = copyTree(ctx, src, dst, treeCopy{replace: true}) // over a case file the run changed
	return err
}

// treeCopy says how copyTree copies a tree; the zero value copies its
// regular files, and the folders that hold them, into dst.
type treeCopy struct {
	// under is the folder of dst the files go to ("" for dst itself),
	// which must exist.
	under string
	// folders copies every folder, empty ones too.
	folders bool
	// skip, when set, leaves out the files it names.
	skip func(name string) bool
	// replace removes the file at a place before writing it.
	replace bool
	// linkFrom and linkTo, when set, are the paths of src and of dst's
	// under: each file is hard-linked where the file system allows it,
	// and copied elsewhere.
	linkFrom, linkTo string
}

// copyTree copies the regular files below src into dst as o says:
// walked as walkTree walks (no link followed, no file replaced by one
// opened, at most maxDepth deep), written by writeIn with plainMode. It
// returns the names of the files copied, slash-separated, in lexical
// order. Every tree copy of the package is made by it, or, for a run's
// outputs, which it counts and bounds, by collectOutputs through the
// same walkTree and writeIn.
func copyTree(ctx context.Context, src, dst *os.Root, o treeCopy) ([]string, error) {
	place := func(name string) string { return path.Join(filepath.ToSlash(o.under), name) }
	var dir func(name string) error
	if o.folders {
		dir = func(name string) error { return dst.MkdirAll(filepath.FromSlash(place(name)), 0o755) }
	}
	var files []string
	err := walkTree(ctx, src, dir, func(name string, f *os.File, fi fs.FileInfo) error {
		if o.skip != nil && o.skip(name) {
			return errSkip
		}
		to := place(name)
		if o.replace {
			dst.Remove(filepath.FromSlash(to))
		}
		files = append(files, name)
		if o.linkFrom != "" {
			if d := path.Dir(to); d != "." {
				if err := dst.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
					return err
				}
			}
			from, link := filepath.Join(o.linkFrom, filepath.FromSlash(name)), filepath.Join(o.linkTo, filepath.FromSlash(name))
			if os.Link(from, link) == nil {
				return nil
			}
		}
		_, err := writeIn(dst, to, f, -1, plainMode(fi))
		return err
	})
	return files, err
}

// openUp gives the owner read, write and search permission on every
// folder below the workspace ws, and read permission on every regular
// file, through an os.Root (no link leads out): an agent may have taken
// them away, which would hide its outputs and keep its workspace from
// being removed. Errors are ignored: what stays closed fails later,
// saying why.
func openUp(ws string) {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return
	}
	defer root.Close()
	// A stack, not a recursion: a tree of any depth is opened up.
	stack := []string{"."}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		root.Chmod(dir, 0o700)
		f, err := root.Open(dir)
		if err != nil {
			continue
		}
		entries, _ := f.ReadDir(-1)
		f.Close()
		for _, e := range entries {
			name := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				stack = append(stack, name)
			case e.Type().IsRegular():
				if fi, err := e.Info(); err == nil && fi.Mode().Perm()&0o400 == 0 {
					root.Chmod(name, fi.Mode().Perm()|0o600)
				}
			}
		}
	}
}

// removeWorkspace removes the workspace ws, whatever the agent did to
// its permissions.
func removeWorkspace(ws string) {
	if os.RemoveAll(ws) != nil {
		openUp(ws)
		os.RemoveAll(ws)
	}
}

// Workspaces are folders of the temporary folder named
// workspacePrefix+RANDOM, each beside its lock file, the same name with
// lockSuffix, locked while the workspace is in use. [sweepWorkspaces]
// removes those a killed process left.
const (
	workspacePrefix = "agentskills-eval-"
	lockSuffix      = ".lock"
	// staleAfter is the age of a lock file over which its workspace,
	// when unlocked, is a leftover.
	staleAfter = 24 * time.Hour
)

// newWorkspace creates an empty workspace in the temporary folder and
// locks it; release removes both.
func newWorkspace() (ws string, release func(), err error) {
	for range 10 {
		lf, err := os.CreateTemp("", workspacePrefix+"*"+lockSuffix)
		if err != nil {
			return "", nil, fmt.Errorf("workspace: %w", err)
		}
		if err := filelock.TryLock(lf); err != nil {
			lf.Close()
			os.Remove(lf.Name())
			return "", nil, fmt.Errorf("workspace: %s: %w", lf.Name(), err)
		}
		ws := strings.TrimSuffix(lf.Name(), lockSuffix)
		if err := os.Mkdir(ws, 0o700); err != nil {
			lf.Close()
			os.Remove(lf.Name())
			if errors.Is(err, fs.ErrExist) {
				continue // a leftover of that name: another
			}
			return "", nil, fmt.Errorf("workspace: %w", err)
		}
		return ws, func() {
			removeWorkspace(ws)
			os.Remove(lf.Name())
			lf.Close()
		}, nil
	}
	return "", nil, fmt.Errorf("workspace: %w: no free name in %s", fs.ErrExist, os.TempDir())
}

// sweepWorkspaces removes the workspaces of the temporary folder that a
// process killed while it ran left: those whose lock file is older than
// staleAfter, is this user's, and is not locked. Errors are ignored.
func sweepWorkspaces() {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, workspacePrefix) || !strings.HasSuffix(name, lockSuffix) || !e.Type().IsRegular() {
			continue
		}
		lock := filepath.Join(tmp, name)
		fi, err := os.Lstat(lock)
		if err != nil || time.Since(fi.ModTime()) < staleAfter || !ownedByUs(fi) {
			continue
		}
		lf, err := os.OpenFile(lock, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if filelock.TryLock(lf) == nil {
			removeWorkspace(strings.TrimSuffix(lock, lockSuffix))
			os.Remove(lock)
		}
		lf.Close()
	}
}
