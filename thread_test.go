package adaptor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// sessions is a scripted agent: every new session gets the next id, a
// resume of a known id continues it, and an unknown id is rejected.
type sessions struct {
	mu      sync.Mutex
	n       int
	known   map[string]bool
	resumes []string // the Resume of every request, in order
}

func (s *sessions) run(_ context.Context, req *driver.Request) (*driver.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resumes = append(s.resumes, req.Resume)
	if req.Resume != "" {
		if !s.known[req.Resume] {
			return nil, fmt.Errorf("session %s: %w: no such session", req.Resume, driver.ErrResumeRejected)
		}
		return &driver.Result{Text: "continued", SessionID: req.Resume}, nil
	}
	s.n++
	id := fmt.Sprintf("s%d", s.n)
	if s.known == nil {
		s.known = map[string]bool{}
	}
	s.known[id] = true
	return &driver.Result{Text: "new", SessionID: id}, nil
}

func (s *sessions) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.known, id)
}

func threadAgent(t *testing.T, store adaptor.ThreadStore) (*adaptor.Agent, *sessions, *[]driver.Event) {
	t.Helper()
	s := &sessions{}
	rec := &drivertest.Driver{Handler: s.run}
	var mu sync.Mutex
	events := new([]driver.Event)
	opts := []adaptor.Option{
		adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))),
		adaptor.WithEvents(func(ev driver.Event) {
			mu.Lock()
			*events = append(*events, ev)
			mu.Unlock()
		}),
		adaptor.WithWorkspace(t.TempDir()),
	}
	if store != nil {
		opts = append(opts, adaptor.WithThreadStore(store))
	}
	return adaptor.New(rec, opts...), s, events
}

func restarts(events []driver.Event) []*adaptor.ThreadRestartedEvent {
	var out []*adaptor.ThreadRestartedEvent
	for _, ev := range events {
		if r, ok := ev.(*adaptor.ThreadRestartedEvent); ok {
			out = append(out, r)
		}
	}
	return out
}

func TestThreadResumesWhileSkillsAndWorkspaceMatch(t *testing.T) {
	agent, s, events := threadAgent(t, nil)
	review := skill.Inline("review", skillMD("review"))
	th := agent.Thread("chat")
	for i, want := range []string{"new", "continued", "continued"} {
		res, err := th.Run(t.Context(), "hello", adaptor.WithSkills(review))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if res.Text != want || res.SessionID != "s1" {
			t.Errorf("run %d = %q in %q, want %q in s1", i, res.Text, res.SessionID, want)
		}
	}
	if diff := cmp.Diff([]string{"", "s1", "s1"}, s.resumes); diff != "" {
		t.Errorf("resumes (-want +got):\n%s", diff)
	}
	if r := restarts(*events); len(r) != 0 {
		t.Errorf("restart events = %v, want none", r)
	}
	// Another key is another conversation.
	if res, err := agent.Thread("other").Run(t.Context(), "hi", adaptor.WithSkills(review)); err != nil || res.SessionID != "s2" {
		t.Errorf("other thread = %v, %v; want session s2", res, err)
	}
}

func TestThreadChangedSkills(t *testing.T) {
	a := skill.Inline("a", skillMD("a"))
	b := skill.Inline("b", skillMD("b"))
	aEdited := skill.Inline("a", skillMD("a")+"more\n")
	aRequired := required(skill.Inline("a", skillMD("a")), "policy")
	tests := []struct {
		name  string
		then  []skill.Ref
		wsNew bool
		want  adaptor.ThreadChangedError
	}{
		{"added", []skill.Ref{a, b}, false, adaptor.ThreadChangedError{Added: []string{"b"}}},
		{"removed", nil, false, adaptor.ThreadChangedError{Removed: []string{"a"}}},
		{"changed", []skill.Ref{aEdited}, false, adaptor.ThreadChangedError{Changed: []string{"a"}}},
		{"declaration", []skill.Ref{aRequired}, false, adaptor.ThreadChangedError{Declarations: true}},
		{"workspace", []skill.Ref{a}, true, adaptor.ThreadChangedError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent, s, events := threadAgent(t, nil)
			if _, err := agent.Thread("k", adaptor.ResumeOnly()).Run(t.Context(), "one", adaptor.WithSkills(a)); err != nil {
				t.Fatal(err)
			}
			var opts []adaptor.CallOption
			if len(tt.then) > 0 {
				opts = append(opts, adaptor.WithSkills(tt.then...))
			}
			ws := ""
			if tt.wsNew {
				ws = t.TempDir()
				opts = append(opts, adaptor.WithWorkspace(ws))
			}

			// Resume-only: refused before the driver is called.
			_, err := agent.Thread("k", adaptor.ResumeOnly()).Run(t.Context(), "two", opts...)
			var changed *adaptor.ThreadChangedError
			if !errors.As(err, &changed) || !errors.Is(err, adaptor.ErrThreadChanged) {
				t.Fatalf("resume-only run = %v, want a *ThreadChangedError", err)
			}
			want := tt.want
			want.Key, want.SessionID = "k", "s1"
			if tt.wsNew {
				want.Workspace = ws
				want.OldWorkspace = changed.OldWorkspace
				if want.OldWorkspace == "" || want.OldWorkspace == ws {
					t.Errorf("OldWorkspace = %q, want the first run's", changed.OldWorkspace)
				}
			}
			if diff := cmp.Diff(&want, changed); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
			if len(s.resumes) != 1 {
				t.Errorf("driver called %d times, want once (the refused run must not reach it)", len(s.resumes))
			}

			// A plain thread starts afresh and says why.
			res, err := agent.Thread("k").Run(t.Context(), "two", opts...)
			if err != nil {
				t.Fatal(err)
			}
			if res.SessionID != "s2" || s.resumes[len(s.resumes)-1] != "" {
				t.Errorf("restarted run: session %q, resume %q; want a new session s2", res.SessionID, s.resumes[len(s.resumes)-1])
			}
			r := restarts(*events)
			if len(r) != 1 || r[0].Thread != "k" || r[0].OldSession != "s1" || r[0].Reason != err2string(changed) {
				t.Errorf("restart events = %+v, want one for k from s1 saying %q", r, changed)
			}
			// And the new state is what the next run resumes.
			if _, err := agent.Thread("k", adaptor.ResumeOnly()).Run(t.Context(), "three", opts...); err != nil {
				t.Errorf("resuming the restarted thread: %v", err)
			}
			if got := s.resumes[len(s.resumes)-1]; got != "s2" {
				t.Errorf("third run resumed %q, want s2", got)
			}
		})
	}
}

func err2string(err error) string { return err.Error() }

func TestThreadResumeRejected(t *testing.T) {
	agent, s, events := threadAgent(t, nil)
	if _, err := agent.Thread("k").Run(t.Context(), "one"); err != nil {
		t.Fatal(err)
	}
	s.forget("s1") // the agent lost the session

	_, err := agent.Thread("k", adaptor.ResumeOnly()).Run(t.Context(), "two")
	if !errors.Is(err, driver.ErrResumeRejected) {
		t.Fatalf("resume-only run = %v, want driver.ErrResumeRejected", err)
	}
	res, err := agent.Thread("k").Run(t.Context(), "two")
	if err != nil || res.SessionID != "s2" {
		t.Fatalf("plain run = %v, %v; want a new session s2", res, err)
	}
	if r := restarts(*events); len(r) != 1 || r[0].OldSession != "s1" {
		t.Errorf("restart events = %+v, want one leaving s1", r)
	}
	if diff := cmp.Diff([]string{"", "s1", "s1", ""}, s.resumes); diff != "" {
		t.Errorf("resumes (-want +got):\n%s", diff)
	}
}

func TestThreadRefusesWithResume(t *testing.T) {
	agent, s, _ := threadAgent(t, nil)
	if _, err := agent.Thread("k").Run(t.Context(), "x", adaptor.WithResume("s9")); err == nil {
		t.Fatal("a thread run with WithResume succeeded")
	}
	if _, err := agent.Thread(" ").Run(t.Context(), "x"); err == nil {
		t.Fatal("a thread with a blank key ran")
	}
	if len(s.resumes) != 0 {
		t.Errorf("driver called %d times", len(s.resumes))
	}
}

func TestThreadRunsOfOneKeyTakeTurns(t *testing.T) {
	agent, s, _ := threadAgent(t, nil)
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range 8 {
		wg.Go(func() {
			if _, err := agent.Thread("k").Run(t.Context(), "x"); err != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d runs failed", failed.Load())
	}
	// One run started the session; the seven others resumed it.
	if s.n != 1 || slices.Index(s.resumes, "") != 0 || len(s.resumes) != 8 {
		t.Errorf("sessions started %d, resumes %q; want 1 new then 7 resumes", s.n, s.resumes)
	}
}

func TestFileThreadStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "threads")
	store := adaptor.NewFileThreadStore(dir)
	agent, s, _ := threadAgent(t, store)
	review := skill.Inline("review", skillMD("review"))
	if _, err := agent.Thread("a/../../key with spaces").Run(t.Context(), "x", adaptor.WithSkills(review)); err != nil {
		t.Fatal(err)
	}
	// Another agent (another process, say) on the same folder and
	// workspace resumes the session.
	res, err := adaptor.New(&drivertest.Driver{Handler: s.run},
		adaptor.WithThreadStore(adaptor.NewFileThreadStore(dir)),
		adaptor.WithWorkspace(agentWorkspace(t, agent)),
	).Thread("a/../../key with spaces").Run(t.Context(), "y", adaptor.WithSkills(review))
	if err != nil || res.Text != "continued" || res.SessionID != "s1" {
		t.Fatalf("second agent = %+v, %v; want session s1 continued", res, err)
	}
	st, err := store.Load(t.Context(), "a/../../key with spaces")
	if err != nil || st == nil || st.SessionID != "s1" || st.Skills["review"] == "" {
		t.Fatalf("Load = %+v, %v; want session s1 with the review skill's digest", st, err)
	}
	if got, err := store.Load(t.Context(), "missing"); got != nil || err != nil {
		t.Errorf("Load(missing) = %v, %v; want nil, nil", got, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("store folder mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
	// One file for the thread, one for each session's record
	// (adaptor.SessionKey): s1, and s2 of agentWorkspace's run.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("store holds %d files, want 3", len(entries))
	}
	threadFile := -1
	for i, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Errorf("state file mode = %v, want 0600", info.Mode().Perm())
		}
		if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); strings.Contains(string(b), `"key": "a/../../key with spaces"`) {
			threadFile = i
		}
	}
	if threadFile < 0 {
		t.Fatal("no file holds the thread's key")
	}
	entries[0] = entries[threadFile]

	// A file that is not a state, or holds another key, is an error that
	// says how to get out.
	os.WriteFile(filepath.Join(dir, entries[0].Name()), []byte("{not json"), 0o600)
	if _, err := store.Load(t.Context(), "a/../../key with spaces"); err == nil {
		t.Error("Load of a corrupt file succeeded")
	}
	other := adaptor.NewFileThreadStore(dir)
	if err := other.Save(t.Context(), "x", &adaptor.ThreadState{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, entries[0].Name()), b, 0o600)
	}
	if _, err := store.Load(t.Context(), "a/../../key with spaces"); err == nil {
		t.Error("Load of a file holding another key succeeded")
	}
}

// agentWorkspace returns the workspace the agent's runs use.
func agentWorkspace(t *testing.T, a *adaptor.Agent) string {
	t.Helper()
	res, err := a.Run(t.Context(), "where")
	if err != nil {
		t.Fatal(err)
	}
	return res.Workspace
}

func TestRunEventsAndResult(t *testing.T) {
	cost := 0.25
	usage := &driver.Usage{InputTokens: 10, OutputTokens: 3}
	rec := &drivertest.Driver{
		Events: []driver.Event{&driver.TextEvent{Text: "hi"}, &driver.ResultEvent{Text: "done"}},
		Result: &driver.Result{Text: "done", SessionID: "abc", Usage: usage, CostUSD: &cost, ExitCode: 0},
	}
	var got []string
	agent := adaptor.New(rec,
		adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))),
		adaptor.WithEvents(func(ev driver.Event) { got = append(got, "agent:"+ev.Kind()) }),
		adaptor.WithEvents(nil),
	)
	res, err := agent.Run(t.Context(), "x",
		adaptor.WithEvents(func(ev driver.Event) { got = append(got, "run:"+ev.Kind()) }),
		adaptor.WithResume("abc"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agent:text", "run:text", "agent:result", "run:result"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if rec.Last().Resume != "abc" {
		t.Errorf("Request.Resume = %q, want abc", rec.Last().Resume)
	}
	if res.SessionID != "abc" || res.Usage != usage || res.CostUSD == nil || *res.CostUSD != cost {
		t.Errorf("Result = %+v, want the driver's session, usage and cost", res)
	}
	wd, _ := os.Getwd()
	if res.Workspace != wd {
		t.Errorf("Result.Workspace = %q, want the current folder %q", res.Workspace, wd)
	}
	// Without WithEvents the driver gets no Events function to call.
	if _, err := adaptor.New(rec).Run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	if rec.Last().Events != nil {
		t.Error("Request.Events set without WithEvents")
	}
}

func TestThreadWaitForTurnHonoursContext(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	rec := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if req.Prompt == "slow" {
			close(started)
			<-release
		}
		return &driver.Result{Text: "ok", SessionID: "s"}, nil
	}}
	agent := adaptor.New(rec)
	done := make(chan error, 1)
	go func() { _, err := agent.Thread("k").Run(t.Context(), "slow"); done <- err }()
	<-started
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := agent.Thread("k").Run(ctx, "fast"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second run = %v, want context.DeadlineExceeded while the first holds the thread", err)
	}
	// Another key is not held up.
	if _, err := agent.Thread("other").Run(t.Context(), "fast"); err != nil {
		t.Errorf("run of another key = %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Thread("k").Run(t.Context(), "fast"); err != nil {
		t.Errorf("run after the first ended = %v", err)
	}
}
