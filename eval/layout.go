package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// iterationFile is an iteration's iteration.json.
type iterationFile struct {
	// SkillDigest is the content digest of the skill the iteration is of.
	SkillDigest string `json:"skill_digest"`
	// Agents are the agent folders the last Run wrote in it (with
	// several agents), so that the next one removes those it does not
	// write again.
	Agents []string `json:"agents,omitempty"`
}

// lockOut creates out when missing, refuses one that is not a folder,
// and locks it for one Run or Triggers at a time; the returned function
// unlocks it.
func lockOut(ctx context.Context, out string) (func(), error) {
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("Out: %w: %s is not a folder", ErrInvalidRequest, out)
	}
	if err := os.MkdirAll(filepath.Join(out, runsDir), 0o755); err != nil {
		return nil, err
	}
	// The kept runs are no file to commit (see the package doc: whoever
	// can write them can change the results).
	ignore := filepath.Join(out, runsDir, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(ignore, []byte("*\n"), 0o644); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(filepath.Join(out, runsDir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	// What a Run that crashed left half written: nothing else uses it
	// while the lock is held.
	if err := removeLeftovers(filepath.Join(out, runsDir), ".tmp-", ".old-"); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// openIteration returns the folder of the iteration of the skill of
// content digest, creating it: the newest iteration when it records that
// digest, else the next one. It removes what an interrupted write of it
// left.
func openIteration(out, digest string) (string, *iterationFile, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return "", nil, err
	}
	newest := 0
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), "iteration-"); ok && e.IsDir() {
			if k, err := strconv.Atoi(n); err == nil && k > newest && strconv.Itoa(k) == n {
				newest = k
			}
		}
	}
	if newest > 0 {
		dir := filepath.Join(out, "iteration-"+strconv.Itoa(newest))
		var it iterationFile
		if readJSON(filepath.Join(dir, "iteration.json"), &it) == nil && it.SkillDigest == digest {
			return dir, &it, removeLeftovers(dir, ".new-", ".old-")
		}
	}
	dir := filepath.Join(out, "iteration-"+strconv.Itoa(newest+1))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, err
	}
	it := &iterationFile{SkillDigest: digest}
	return dir, it, writeJSON(filepath.Join(dir, "iteration.json"), it)
}

// removeLeftovers removes the staging folders of dir, named with one of
// prefixes, that an interrupted write left.
func removeLeftovers(dir string, prefixes ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(e.Name(), p) }) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// runPlace is where a run's files go in its iteration, relative to it:
// [AGENT/]eval-ID/CONFIG[/run-K].
func runPlace(multi bool, d *doneRun, runs int) string {
	p := filepath.Join("eval-"+d.res.caseID.String(), string(d.res.config))
	if multi {
		p = filepath.Join(d.res.agent, p)
	}
	if runs > 1 {
		p = filepath.Join(p, "run-"+strconv.Itoa(d.res.run))
	}
	return p
}

// writeIteration writes the runs done and the benchmark into the
// iteration dir, replacing its eval folders, agent folders and
// benchmark.json as a whole: they are built in a staging folder beside
// them and moved in once complete, and what the last Run wrote there
// is removed.
func writeIteration(dir string, it *iterationFile, done []*doneRun, agents []string, runs int, bench *Benchmark) error {
	multi := len(agents) > 1
	stage, err := os.MkdirTemp(dir, ".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	for _, d := range done {
		place := filepath.Join(stage, runPlace(multi, d, runs))
		if err := os.MkdirAll(filepath.Join(place, "outputs"), 0o755); err != nil {
			return err
		}
		if err := linkRun(d.dir, place); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(place, "grading.json"), d.grading); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(stage, "benchmark.json"), bench); err != nil {
		return err
	}
	if multi {
		for _, id := range agents {
			if err := os.MkdirAll(filepath.Join(stage, id), 0o755); err != nil {
				return err
			}
			if err := writeJSON(filepath.Join(stage, id, "benchmark.json"), bench.PerAgent[id]); err != nil {
				return err
			}
		}
	}
	old, err := os.MkdirTemp(dir, ".old-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(old)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if name == "benchmark.json" || strings.HasPrefix(name, "eval-") || slices.Contains(it.Agents, name) || slices.Contains(agents, name) {
			if err := os.Rename(filepath.Join(dir, name), filepath.Join(old, name)); err != nil {
				return err
			}
		}
	}
	staged, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	for _, e := range staged {
		if err := os.Rename(filepath.Join(stage, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	it.Agents = nil
	if multi {
		it.Agents = slices.Clone(agents)
	}
	return writeJSON(filepath.Join(dir, "iteration.json"), it)
}

// linkRun puts the files of the run folder src (but its run.json and
// kept gradings) into dst: hard links where it can, copies elsewhere.
func linkRun(src, dst string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	return walkRegular(context.Background(), root, func(name string, f *os.File, fi fs.FileInfo) error {
		if name == runMarker || name == deletedFile || strings.HasPrefix(name, gradingsDir+"/") {
			return errSkip
		}
		from, to := filepath.Join(src, filepath.FromSlash(name)), filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if os.Link(from, to) == nil {
			return nil
		}
		w, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if err != nil {
			return err
		}
		_, err = io.Copy(w, f)
		return errors.Join(err, w.Close())
	})
}
