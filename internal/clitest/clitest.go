// Package clitest holds what the tests of the drivers that run an agent's
// CLI (claude, codex) share: skill files, folder listings, event
// recording, the checks of the streams recorded from the real CLIs, the
// setup of runs against a real CLI, and the run-to-start benchmark.
package clitest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// SkillMD returns a SKILL.md of the name and description with body after
// the front matter.
func SkillMD(name, description, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s\n", name, description, body)
}

// WriteSkill writes a skill folder parent/name whose SKILL.md describes it
// as "the NAME skill" and holds body, and returns the folder. It fails the
// test on error.
func WriteSkill(t testing.TB, parent, name, body string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(SkillMD(name, "the "+name+" skill", body)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Tree lists a folder: every path with its mode, size and modification
// time, a line each.
func Tree(t testing.TB, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	return b.String()
}

// Recorder collects the events sent to Emit. It is safe for concurrent
// use.
type Recorder struct {
	mu     sync.Mutex
	events []driver.Event
}

// Emit records ev.
func (r *Recorder) Emit(ev driver.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// Events returns the events recorded so far, in order.
func (r *Recorder) Events() []driver.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Option is the option that sends a run's events to r.
func (r *Recorder) Option() adaptor.SharedOption {
	return adaptor.WithEvents(r.Emit)
}

// Kinds returns the kind of each event.
func Kinds(evs []driver.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Kind())
	}
	return out
}

// NoNilEvents returns an emit function that fails the test for a nil
// event, for fuzzing a parser.
func NoNilEvents(t *testing.T) func(driver.Event) {
	return func(ev driver.Event) {
		if ev == nil {
			t.Fatal("nil event")
		}
	}
}

// recordedStreams returns the files of the streams recorded from a real
// CLI: testdata/*.jsonl.
func recordedStreams() []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	return files
}

// ForEachStream calls check in a subtest, named for the file, with each
// stream recorded from a real CLI (testdata/*.jsonl) and the expectations
// want holds for it. A file without expectations fails its
// subtest, and the test fails when want and the files differ in number.
func ForEachStream[W any](t *testing.T, want map[string]W, check func(t *testing.T, w W, stream []byte)) {
	t.Helper()
	files := recordedStreams()
	if len(files) != len(want) {
		t.Errorf("testdata holds %d streams, the test knows %d", len(files), len(want))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w, ok := want[filepath.Base(f)]
			if !ok {
				t.Fatal("no expectations for this stream")
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			check(t, w, data)
		})
	}
}

// CheckStreamEvents checks the events parsed from a recorded stream: none
// is an error event that malformed reports as a line the parser took for
// malformed, each marshals to JSON, and the kinds in want are among them.
// It returns the events' kinds.
func CheckStreamEvents(t *testing.T, evs []driver.Event, want []string, malformed func(*driver.ErrorEvent) bool) []string {
	t.Helper()
	got := Kinds(evs)
	for _, ev := range evs {
		if e, ok := ev.(*driver.ErrorEvent); ok && malformed(e) {
			t.Errorf("recorded line reported as malformed: %s", e.Message)
		}
		if _, err := json.Marshal(ev); err != nil {
			t.Errorf("event %T does not marshal: %v", ev, err)
		}
	}
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("no %s event among %q", k, got)
		}
	}
	return got
}

// SeedStreams adds every line of the streams recorded from a real CLI
// (testdata/*.jsonl) to the fuzzer's corpus, and then the extra lines.
func SeedStreams(f *testing.F, extra ...string) {
	for _, file := range recordedStreams() {
		data, _ := os.ReadFile(file)
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
	}
	for _, l := range extra {
		f.Add([]byte(l))
	}
}

// RunCtx bounds a run: a stuck agent fails its test instead of hanging
// the whole package.
func RunCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TaggedEnv returns env for running the CLI at the path cli by its name:
// with the CLI's folder first in PATH, and with AGENTADAPTOR_TEST_RUN set
// to a new marker, returned too, that tags every process of the run (see
// modeltest.Processes).
func TaggedEnv(env []string, cli string) (tagged []string, marker string) {
	marker = rand.Text()
	return append(env, "PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"), "AGENTADAPTOR_TEST_RUN="+marker), marker
}

// NewAgent returns an agent of the driver d that materializes skills in
// the cache root and works in workspace, with opts.
func NewAgent(d driver.Driver, cacheRoot, workspace string, opts ...adaptor.Option) *adaptor.Agent {
	base := []adaptor.Option{
		adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cacheRoot))),
		adaptor.WithWorkspace(workspace),
	}
	return adaptor.New(d, append(base, opts...)...)
}

// NumberedSkills returns n inline skills, skill-000 and on, and their
// names.
func NumberedSkills(n int) (refs []skill.Ref, names []string) {
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		names = append(names, name)
		refs = append(refs, skill.Inline(name, SkillMD(name, "the "+name+" skill", "Do "+name+".")))
	}
	return refs, names
}

// BenchRunToStart measures Agent.Run up to the moment the agent's program
// starts. The agents that newAgent makes for a cache root run a stand-in
// that reads the clock first thing and answers with it (seconds since the
// epoch); the metric ms-to-start is that time less the time Run was
// called. It runs three modes, each with a cache root of its own that a
// first run fills:
//
//	warm     the cache as the first run left it: the cost of every later run
//	partial  the cache root's folder part removed before each run
//	cold     a new cache root, and a new agent, for each run
func BenchRunToStart(b *testing.B, partial, part string, newAgent func(b *testing.B, root string) *adaptor.Agent) {
	for _, mode := range []string{"warm", partial, "cold"} {
		b.Run(mode, func(b *testing.B) {
			root := cachetest.Root(b)
			agent := newAgent(b, root)
			if _, err := agent.Run(b.Context(), "x"); err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for b.Loop() {
				switch mode {
				case partial:
					b.StopTimer()
					RemoveAll(filepath.Join(root, part))
					b.StartTimer()
				case "cold":
					b.StopTimer()
					root = cachetest.Root(b)
					agent = newAgent(b, root)
					b.StartTimer()
				}
				begin := time.Now()
				res, err := agent.Run(b.Context(), "x")
				if err != nil {
					b.Fatal(err)
				}
				started, err := strconv.ParseFloat(res.Text, 64)
				if err != nil {
					b.Fatalf("stand-in answered %q", res.Text)
				}
				total += time.Unix(0, int64(started*1e9)).Sub(begin)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-start")
		})
	}
}

// RemoveAll removes a tree whose folders may be read-only.
func RemoveAll(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}
