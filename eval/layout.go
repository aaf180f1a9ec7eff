package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// iterationFile is an iteration's iteration.json.
type iterationFile struct {
	// SkillDigest is the content digest of the skill the iteration is of.
	SkillDigest string `json:"skill_digest"`
	// Agents are the agent folders the last Run (or unit) wrote in it
	// (with several agents), so that the next Run removes those it does
	// not write again.
	Agents []string `json:"agents,omitempty"`
	// Plan fixes the units of the last Run or unit that wrote in it, for
	// Collect.
	Plan *plan `json:"plan,omitempty"`
}

// lockOut creates out when missing, refuses one that is not a folder,
// and locks it: for one Run or Triggers at a time, or, shared, for
// units, which a Run or Triggers waits for (and they for it). The
// returned function unlocks it.
func lockOut(ctx context.Context, out string, shared bool) (func(), error) {
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
	lock := filelock.Lock
	if shared {
		lock = filelock.LockShared
	}
	if err := lock(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	if shared {
		return func() { f.Close() }, nil // other units' staging is theirs
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
// content digest: the newest iteration when it records that digest,
// else the next one, created whole with its iteration.json by a rename,
// so that callers racing to create it all get the one that won. Unless
// shared (a unit, which other units may be writing beside), it removes
// what an interrupted write of the iteration left.
func openIteration(out, digest string, shared bool) (string, *iterationFile, error) {
	for attempt := 0; ; attempt++ {
		newest, err := newestIteration(out)
		if err != nil {
			return "", nil, err
		}
		if newest > 0 {
			dir := filepath.Join(out, "iteration-"+strconv.Itoa(newest))
			var it iterationFile
			if readIterationFile(dir, &it) == nil && it.SkillDigest == digest {
				if shared {
					return dir, &it, nil
				}
				return dir, &it, removeLeftovers(dir, ".new-", ".old-")
			}
		}
		dir := filepath.Join(out, "iteration-"+strconv.Itoa(newest+1))
		it := &iterationFile{SkillDigest: digest}
		err = createWhole(filepath.Join(out, runsDir), dir, func(stage string) error {
			return writeJSON(filepath.Join(stage, "iteration.json"), it)
		})
		if err == nil {
			return dir, it, nil
		}
		if !isExist(err) || attempt >= 100 {
			return "", nil, err
		}
		// Another made that iteration first: it may be of this content.
	}
}

// readIterationFile reads the iteration.json of the iteration dir into
// it. Units record their plan in it as they finish (writeUnit), each
// replacing it whole: a read that finds the file replaced as it was
// opened reads it again, so that a unit does not take the iteration of
// its own content for another's, and make one more. A rename replaces
// the file at once: the first read again is at once, each after it a
// little later (0.1 ms more each time, half a second in all), so that
// writers that finish one after another cannot use up the reads.
func readIterationFile(dir string, it *iterationFile) error {
	name := filepath.Join(dir, "iteration.json")
	for attempt := 0; ; attempt++ {
		err := readJSON(name, it)
		if err == nil || !errors.Is(err, readfile.ErrNotRegular) || attempt >= 100 {
			return err
		}
		if fi, serr := os.Lstat(name); serr == nil && !fi.Mode().IsRegular() {
			return err // not a file: not a replacement under way
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Microsecond)
	}
}

// newestIteration is the largest N of out's iteration-N folders, 0 for
// none.
func newestIteration(out string) (int, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return 0, err
	}
	newest := 0
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), "iteration-"); ok && e.IsDir() {
			if k, err := strconv.Atoi(n); err == nil && k > newest && strconv.Itoa(k) == n {
				newest = k
			}
		}
	}
	return newest, nil
}

// createWhole creates the folder dir with what fill writes in it, in a
// staging folder of tmp renamed to dir once filled: it fails, wrapping
// fs.ErrExist or ENOTEMPTY, when dir exists and is not empty.
func createWhole(tmp, dir string, fill func(stage string) error) error {
	stage, err := os.MkdirTemp(tmp, ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := os.Chmod(stage, 0o755); err != nil {
		return err
	}
	if err := fill(stage); err != nil {
		return err
	}
	return os.Rename(stage, dir)
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

// runPlace is where the run d of plan p goes in its iteration, relative
// to it: [AGENT/]eval-ID/CONFIG[/run-K].
func runPlace(p *plan, d *doneRun) string {
	return filepath.FromSlash(p.dir(d.res.agent, d.res.caseID, d.res.config, d.res.run))
}

// writeRun writes the run folder of d at place: its files (see
// linkRun), outputs/ even when empty, and grading.json.
func writeRun(d *doneRun, place string) error {
	if err := os.MkdirAll(filepath.Join(place, "outputs"), 0o755); err != nil {
		return err
	}
	if err := linkRun(d.dir, place); err != nil {
		return err
	}
	return writeJSON(filepath.Join(place, "grading.json"), d.grading)
}

// writeIteration writes the runs done of plan p and the benchmark into
// the iteration dir, replacing its eval folders, agent folders and
// benchmark.json as a whole: they are built in a staging folder beside
// them and moved in once complete, and what the last Run wrote there
// is removed.
func writeIteration(dir string, it *iterationFile, done []*doneRun, p *plan, bench *Benchmark) error {
	agents := p.Agents
	multi := len(agents) > 1
	stage, err := os.MkdirTemp(dir, ".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	for _, d := range done {
		if err := writeRun(d, filepath.Join(stage, runPlace(p, d))); err != nil {
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
	it.Plan = p
	return writeJSON(filepath.Join(dir, "iteration.json"), it)
}

// writeUnit writes the run d of plan p in the iteration dir, in a
// staging folder of it renamed into place, replacing what an earlier
// attempt of the unit left there; it records p in iteration.json when
// it records another. It returns the run folder.
func writeUnit(dir string, it *iterationFile, d *doneRun, p *plan) (string, error) {
	if !reflect.DeepEqual(it.Plan, p) {
		// The agent folders of the plans before stay listed, for the
		// next Run to remove.
		if len(p.Agents) > 1 {
			for _, a := range p.Agents {
				if !slices.Contains(it.Agents, a) {
					it.Agents = append(it.Agents, a)
				}
			}
		}
		it.Plan = p
		if err := writeJSON(filepath.Join(dir, "iteration.json"), it); err != nil {
			return "", err
		}
	}
	stage, err := os.MkdirTemp(dir, ".new-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	if err := writeRun(d, filepath.Join(stage, "run")); err != nil {
		return "", err
	}
	final := filepath.Join(dir, runPlace(p, d))
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", err
	}
	return final, publish(filepath.Join(stage, "run"), final)
}

// linkRun puts the files of the run folder src (but its run.json and
// kept gradings) into dst, a folder: hard links where it can, copies
// elsewhere.
func linkRun(src, dst string) error {
	from, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer to.Close()
	_, err = copyTree(context.Background(), from, to, treeCopy{linkFrom: src, linkTo: dst, skip: func(name string) bool {
		return name == runMarker || name == deletedFile || strings.HasPrefix(name, gradingsDir+"/")
	}})
	return err
}
