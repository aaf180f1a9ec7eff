package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// ErrInvalidRun is a unit's run folder that [Collect] cannot count
// (missing, a link, a grading.json or timing.json not of the documented
// shape), or an entry of an iteration that no unit names. Its message
// names the folder, as FOLDER: invalid run folder: WHAT.
var ErrInvalidRun = errors.New("invalid run folder")

// Collection is one iteration [Collect] collected.
type Collection struct {
	// Iteration is the iteration's folder.
	Iteration string
	// Agents are the plan's agents, in order, and Baseline its baseline
	// configuration.
	Agents   []string
	Baseline Config
	// Units counts the plan's units, and Benchmark is what Collect wrote
	// in benchmark.json: nil when no unit could be counted, and nothing
	// was written.
	Units     int
	Benchmark *Benchmark
}

// Limits of Collect (see the package doc's "Collecting units").
const (
	maxIterationFile = 1 << 20
	maxTimingFile    = 4 << 10
	maxCollectUnits  = 1_000_000
	// maxProblems is the most problems Collect names one by one; the
	// others are counted.
	maxProblems = 20
)

// Collect writes the benchmark.json of each iteration of dir from the
// run folders its units wrote, as the package doc's "Collecting units"
// says, and returns the iterations collected. Units it could not count
// and entries no unit names are left out and reported in the error,
// which wraps [ErrInvalidRun]; the benchmarks of what could be counted
// are written and returned with it. Any other error (dir unreadable, a
// benchmark that could not be written) ends it.
func Collect(dir string) ([]Collection, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var iters []string
	if fi, err := root.Lstat("iteration.json"); err == nil && fi.Mode().IsRegular() {
		iters = []string{"."}
	} else {
		entries, err := readDirIn(root, ".")
		if err != nil {
			return nil, err
		}
		nums := map[string]int{}
		for _, e := range entries {
			if n, ok := strings.CutPrefix(e.Name(), "iteration-"); ok {
				if k, err := strconv.Atoi(n); err == nil && k > 0 && strconv.Itoa(k) == n {
					iters = append(iters, e.Name())
					nums[e.Name()] = k
				}
			}
		}
		slices.SortFunc(iters, func(a, b string) int { return nums[a] - nums[b] })
	}
	var out []Collection
	p := &problems{}
	for _, name := range iters {
		c, err := collectIteration(root, filepath.Join(dir, name), name, p)
		if err != nil {
			return out, err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, p.err()
}

// problems gathers what Collect reports, naming the first maxProblems.
type problems struct {
	errs  []error
	count int
}

func (p *problems) add(where, format string, args ...any) {
	p.count++
	if len(p.errs) < maxProblems {
		p.errs = append(p.errs, fmt.Errorf("%s: %w: %s", where, ErrInvalidRun, fmt.Sprintf(format, args...)))
	}
}

func (p *problems) err() error {
	if p.count > len(p.errs) {
		n := p.count - len(p.errs)
		return errors.Join(append(p.errs, fmt.Errorf("%w: and %d more", ErrInvalidRun, n))...)
	}
	return errors.Join(p.errs...)
}

// iterCollector reads one iteration for Collect.
type iterCollector struct {
	root    *os.Root // the iteration
	path    string   // its path, for messages
	p       *problems
	folders map[string]bool // the folders checked: whether each is one
	// reported are the places that are something else than a folder,
	// reported as such.
	reported map[string]bool
	// missing are the shallowest missing places of the units, with the
	// units below each, in the order met.
	missing      map[string]*missingPlace
	missingOrder []string
}

// missingPlace is a missing folder, and the units it holds.
type missingPlace struct {
	units, first int // how many, and the first's index
}

// reportMissing reports the missing places.
func (c *iterCollector) reportMissing() {
	for _, rel := range c.missingOrder {
		m := c.missing[rel]
		where := filepath.Join(c.path, filepath.FromSlash(rel))
		if m.units == 1 {
			c.p.add(where, "missing: the unit did not write it (eval --index %d)", m.first)
		} else {
			c.p.add(where, "missing: %d units did not write it (eval --index %d and others)", m.units, m.first)
		}
	}
}

// collectIteration collects the iteration name of root, at where; nil
// for an iteration with nothing to collect.
func collectIteration(root *os.Root, where, name string, p *problems) (*Collection, error) {
	if name != "." {
		fi, err := root.Lstat(name)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			p.add(where, "%s, not followed", readfile.Kind(fi.Mode()))
			return nil, nil
		}
	}
	iroot, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	defer iroot.Close()
	c := &iterCollector{root: iroot, path: where, p: p, folders: map[string]bool{".": true}, reported: map[string]bool{}, missing: map[string]*missingPlace{}}
	b, problem := c.read("iteration.json", maxIterationFile)
	if problem != "" {
		p.add(filepath.Join(where, "iteration.json"), "%s", problem)
		return nil, nil
	}
	var it iterationFile
	if err := json.Unmarshal(b, &it); err != nil {
		p.add(filepath.Join(where, "iteration.json"), "%v", err)
		return nil, nil
	}
	entries, err := readDirIn(iroot, ".")
	if err != nil {
		return nil, err
	}
	if it.Plan == nil {
		if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return strings.HasPrefix(e.Name(), "eval-") }) || len(it.Agents) > 0 {
			p.add(filepath.Join(where, "iteration.json"), "records no plan of units (an iteration written before plans were): run eval again to write it")
		}
		return nil, nil
	}
	pl := it.Plan
	if problem := checkPlan(pl); problem != "" {
		p.add(filepath.Join(where, "iteration.json"), "plan: %s", problem)
		return nil, nil
	}
	col := &Collection{Iteration: where, Agents: pl.Agents, Baseline: pl.Baseline, Units: pl.count()}
	c.unexpected(pl)

	var results []runResult
	for i := range pl.count() {
		u := pl.unit(i)
		r, ok := c.unit(u)
		if ok {
			results = append(results, r)
		}
	}
	c.reportMissing()
	if len(results) == 0 {
		return col, nil
	}
	bench := benchmarkOfAgents(pl.Agents, results, pl.Baseline)
	bench.Iteration = where
	bench.Incomplete = pl.count() - len(results)
	if err := c.write("benchmark.json", bench); err != nil {
		return nil, err
	}
	if bench.PerAgent != nil {
		perAgent := pl.count() / len(pl.Agents)
		for _, id := range pl.Agents {
			n := 0
			for _, r := range results {
				if r.agent == id {
					n++
				}
			}
			bench.PerAgent[id].Incomplete = perAgent - n
			if !c.folder(id) {
				if _, err := iroot.Lstat(id); !errors.Is(err, fs.ErrNotExist) {
					continue // reported: not a folder
				}
				if err := iroot.Mkdir(id, 0o755); err != nil {
					return nil, err
				}
			}
			if err := c.write(path.Join(id, "benchmark.json"), bench.PerAgent[id]); err != nil {
				return nil, err
			}
		}
	}
	col.Benchmark = bench
	return col, nil
}

// checkPlan is what is wrong with the plan p of an iteration.json, ""
// for nothing.
func checkPlan(p *plan) string {
	agents := make([]Agent, len(p.Agents))
	for i, id := range p.Agents {
		agents[i] = Agent{ID: id}
	}
	if err := checkAgentIDs(agents); err != nil {
		return strings.Replace(err.Error(), ErrInvalidRequest.Error()+": ", "", 1)
	}
	if len(p.Cases) == 0 || len(p.Cases) > maxCases {
		return fmt.Sprintf("%d cases: want 1 to %d", len(p.Cases), maxCases)
	}
	seen := map[string]bool{}
	for i, id := range p.Cases {
		if id.text == "" {
			return fmt.Sprintf("cases[%d] is null", i)
		}
		k := strings.ToLower(id.text)
		if seen[k] {
			return fmt.Sprintf("cases[%d]: %s names the folder of another case", i, id)
		}
		seen[k] = true
	}
	if p.Baseline != WithoutSkill && p.Baseline != OldSkill {
		return fmt.Sprintf("baseline %q: want %s or %s", p.Baseline, WithoutSkill, OldSkill)
	}
	if p.Runs < 1 || p.Runs > maxRuns {
		return fmt.Sprintf("runs %d: want 1 to %d", p.Runs, maxRuns)
	}
	if n := len(p.Agents) * len(p.Cases) * 2 * p.Runs; n > maxCollectUnits {
		return fmt.Sprintf("%d units: Collect reads at most %d", n, maxCollectUnits)
	}
	return ""
}

// folder reports whether rel, slash-separated, and each folder on the
// way to it, is a folder of the iteration (not a link), reporting the
// first that is something else, once.
func (c *iterCollector) folder(rel string) bool {
	if ok, seen := c.folders[rel]; seen {
		return ok
	}
	if parent := path.Dir(rel); !c.folder(parent) {
		c.folders[rel] = false
		return false
	}
	fi, err := c.root.Lstat(filepath.FromSlash(rel))
	ok := err == nil && fi.IsDir()
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		c.p.add(filepath.Join(c.path, filepath.FromSlash(rel)), "%v", err)
		c.reported[rel] = true
	case !ok:
		c.p.add(filepath.Join(c.path, filepath.FromSlash(rel)), "%s, not followed: a folder is wanted", readfile.Kind(fi.Mode()))
		c.reported[rel] = true
	}
	c.folders[rel] = ok
	return ok
}

// read reads the regular file rel of the iteration, of at most limit
// bytes; problem says what is wrong with it instead.
func (c *iterCollector) read(rel string, limit int64) (b []byte, problem string) {
	fi, err := c.root.Lstat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "missing"
	case err != nil:
		return nil, err.Error()
	case !fi.Mode().IsRegular():
		return nil, readfile.Kind(fi.Mode()) + ", not a regular file"
	}
	b, err = readfile.InRootNoLink(c.root, filepath.FromSlash(rel), limit)
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// unit reads unit u's run folder, reporting what is wrong with it.
func (c *iterCollector) unit(u Unit) (runResult, bool) {
	where := filepath.Join(c.path, filepath.FromSlash(u.Dir))
	if !c.folder(u.Dir) {
		// Missing, unless a folder on the way is something else, which
		// is reported: a missing folder is reported once, at the
		// shallowest missing place, with the units below it.
		// (folder checked every place on the way: each is a folder, or
		// reported, or missing.)
		first := ""
		for rel := u.Dir; rel != "." && !c.folders[rel]; rel = path.Dir(rel) {
			if c.reported[rel] {
				return runResult{}, false
			}
			first = rel
		}
		m := c.missing[first]
		if m == nil {
			m = &missingPlace{first: u.Index}
			c.missing[first] = m
			c.missingOrder = append(c.missingOrder, first)
		}
		m.units++
		return runResult{}, false
	}
	r := runResult{agent: u.Agent, caseID: u.Case, config: u.Config, run: u.Run}
	b, problem := c.read(path.Join(u.Dir, "grading.json"), keptFileLimit)
	if problem == "" {
		r.grading, problem = parseGrading(b)
	}
	if problem != "" {
		c.p.add(where, "grading.json: %s", problem)
		return r, false
	}
	b, problem = c.read(path.Join(u.Dir, "timing.json"), maxTimingFile)
	if problem == "" {
		r.timing, problem = parseTiming(b)
	}
	if problem != "" {
		c.p.add(where, "timing.json: %s", problem)
		return r, false
	}
	r.failed = r.grading.RunError != ""
	return r, true
}

// unexpected reports the entries of the iteration's folders that no
// unit of p names.
func (c *iterCollector) unexpected(p *plan) {
	staging := func(name string) bool { return strings.HasPrefix(name, ".new-") || strings.HasPrefix(name, ".old-") }
	cases := make([]string, len(p.Cases))
	for i, id := range p.Cases {
		cases[i] = "eval-" + id.String()
	}
	check := func(rel string, allowed func(name string) bool) []string {
		if !c.folder(rel) {
			return nil
		}
		entries, err := readDirIn(c.root, filepath.FromSlash(rel))
		if err != nil {
			c.p.add(filepath.Join(c.path, filepath.FromSlash(rel)), "%v", err)
			return nil
		}
		var kept []string
		for _, e := range entries {
			switch name := e.Name(); {
			case staging(name):
			case allowed(name):
				kept = append(kept, path.Join(rel, name))
			default:
				c.p.add(filepath.Join(c.path, filepath.FromSlash(rel), name), "no unit of the plan in iteration.json is there: left out")
			}
		}
		return kept
	}
	isCase := func(name string) bool { return slices.Contains(cases, name) }
	top := func(name string) bool {
		switch name {
		case "iteration.json", "benchmark.json", "triggers.json":
			return true
		}
		if len(p.Agents) > 1 {
			return slices.Contains(p.Agents, name)
		}
		return isCase(name)
	}
	var caseDirs []string
	for _, rel := range check(".", top) {
		switch {
		case strings.HasSuffix(rel, ".json"):
		case len(p.Agents) > 1:
			for _, sub := range check(rel, func(name string) bool { return name == "benchmark.json" || isCase(name) }) {
				if !strings.HasSuffix(sub, ".json") {
					caseDirs = append(caseDirs, sub)
				}
			}
		default:
			caseDirs = append(caseDirs, rel)
		}
	}
	isConfig := func(name string) bool { return name == string(WithSkill) || name == string(p.Baseline) }
	for _, rel := range caseDirs {
		for _, cfg := range check(rel, isConfig) {
			if p.Runs > 1 {
				check(cfg, func(name string) bool {
					k, ok := strings.CutPrefix(name, "run-")
					n, err := strconv.Atoi(k)
					return ok && err == nil && n >= 1 && n <= p.Runs && strconv.Itoa(n) == k
				})
			}
		}
	}
}

// write writes v as benchmark JSON at rel in the iteration, replacing
// it whole (a link there is replaced, not followed).
func (c *iterCollector) write(rel string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteInUnflushed(c.root, filepath.FromSlash(rel), append(b, '\n'), 0o644)
}

// readDirIn lists the folder rel of root.
func readDirIn(root *os.Root, rel string) ([]fs.DirEntry, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// strictObject decodes b, one JSON object with no key given twice and
// nothing after it, into v, refusing unknown keys, and checks that each
// of required is there and not null; problem says what is wrong.
func strictObject(b []byte, v any, required ...string) (problem string) {
	if dup := duplicateKey(b); dup != nil {
		return "the key " + pathText(dup) + " is given twice"
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err.Error()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "more after the JSON object"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return "not a JSON object"
	}
	for _, k := range required {
		if raw, ok := obj[k]; !ok || string(raw) == "null" {
			return k + " is missing"
		}
	}
	return ""
}

// parseGrading reads a grading.json (rule 3 of "Collecting units").
func parseGrading(b []byte) (Grading, string) {
	var g Grading
	if problem := strictObject(b, &g, "expectations", "summary"); problem != "" {
		return g, problem
	}
	var shape struct {
		Expectations []json.RawMessage `json:"expectations"`
		Summary      json.RawMessage   `json:"summary"`
	}
	json.Unmarshal(b, &shape)
	for i, raw := range shape.Expectations {
		if problem := strictObject(raw, new(GradedExpectation), "text", "passed", "evidence"); problem != "" {
			return g, fmt.Sprintf("expectations[%d]: %s", i, problem)
		}
	}
	if problem := strictObject(shape.Summary, new(GradingSummary), "passed", "failed", "total", "pass_rate"); problem != "" {
		return g, "summary: " + problem
	}
	if want := summarize(g.Expectations); g.Summary != want {
		return g, fmt.Sprintf("the summary %+v does not count the expectations, which give %+v", g.Summary, want)
	}
	return g, ""
}

// parseTiming reads a timing.json (rule 3 of "Collecting units").
func parseTiming(b []byte) (Timing, string) {
	var t Timing
	if problem := strictObject(b, &t, "total_tokens", "duration_ms"); problem != "" {
		return t, problem
	}
	if t.TotalTokens < 0 || t.DurationMS < 0 {
		return t, fmt.Sprintf("total_tokens %d and duration_ms %d: neither may be negative", t.TotalTokens, t.DurationMS)
	}
	return t, ""
}
