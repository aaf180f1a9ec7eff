// Package streamtest checks the event streams of the drivers that run an
// agent's CLI (claude, codex): it records the events a run emits, and
// replays the streams recorded from the real CLIs (testdata/*.jsonl)
// through a driver's parser.
package streamtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
)

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

// Skills returns the skill events among evs, without their Raw, to
// compare with the skills a recorded stream loads.
func Skills(evs []driver.Event) []driver.SkillEvent {
	var out []driver.SkillEvent
	for _, ev := range evs {
		if s, ok := ev.(*driver.SkillEvent); ok {
			c := *s
			c.Raw = nil
			out = append(out, c)
		}
	}
	return out
}
