package conformance

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// unknownSession is a session id of the agents' form that no agent knows.
const unknownSession = "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"

// rig is one hermetic setup: a stand-in model, the agent's environment
// with a HOME of its own, a workspace and a cache root.
type rig struct {
	a         Agent
	model     Model
	env       Env
	vars      []string
	marker    string // tags this rig's processes
	workspace string
	cache     string
}

func newRig(t *testing.T, a Agent, s Script) *rig {
	t.Helper()
	m, env := a.Start(t, s)
	r := &rig{a: a, model: m, env: env, workspace: t.TempDir(), cache: cachetest.Root(t)}
	r.vars, r.marker = clitest.TaggedEnv(env.Vars, env.CLI)
	return r
}

// setup returns the rig's driver setup.
func (r *rig) setup() Setup {
	return Setup{Env: r.vars, CacheRoot: r.cache, Grace: 2 * time.Second, Values: map[string]string{}}
}

// agent returns an agent of the driver built from s, whose skill cache
// is s.CacheRoot (the rig's unless a case changes it).
func (r *rig) agent(s Setup, opts ...adaptor.Option) *adaptor.Agent {
	return clitest.NewAgent(r.a.New(s), s.CacheRoot, r.workspace, opts...)
}

// processes returns the pids of living processes of the rig's runs.
func (r *rig) processes() []int { return modeltest.Processes(r.marker) }

// noProcesses fails the test if a process of the rig's runs is left.
func (r *rig) noProcesses(t *testing.T) {
	t.Helper()
	if left := r.processes(); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}

// firstShown returns what the first turn showed the model.
func (r *rig) firstShown(t *testing.T) string {
	t.Helper()
	turns := r.model.Turns()
	if len(turns) == 0 {
		t.Fatal("the stand-in got no request")
	}
	return turns[0].Shown
}

// inline returns an inline skill whose description and body carry marks.
func inline(name, desc, body string) skill.Skill {
	return skill.Inline(name, cachetest.SkillMD(name, desc, body))
}

// writeSkill writes a skill folder name under parent.
func writeSkill(t *testing.T, parent, name, desc, body string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(cachetest.SkillMD(name, desc, body)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// listed is scenario 1.
func listed(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Text: "all good"})
	writeSkill(t, r.env.UserSkills, "mine", "MINE-DESC-MARK.", "MINE-BODY")
	if err := os.WriteFile(filepath.Join(r.workspace, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tone := filepath.Join(t.TempDir(), "tone")
	writeSkill(t, filepath.Dir(tone), "tone", "TONE-DESC-MARK.", "Be kind.")
	os.MkdirAll(filepath.Join(tone, "scripts"), 0o755)
	os.WriteFile(filepath.Join(tone, "scripts", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	before := cachetest.Listing(t, r.workspace) + cachetest.Listing(t, r.env.Unchanged)
	var rec streamtest.Recorder
	agent := r.agent(r.setup(), adaptor.WithSkills(
		inline("review", "REVIEW-DESC-MARK.", "Look hard."),
		skill.Dir(tone),
	), rec.Option())
	res, err := agent.Run(clitest.RunCtx(t), "hello there")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "all good" || res.SessionID == "" || !a.NoUsage && (res.Usage == nil || res.Usage.InputTokens == 0) {
		t.Errorf("result = %+v, want the answer with a session and usage", res)
	}
	shown := r.firstShown(t)
	for _, want := range []string{"REVIEW-DESC-MARK", "TONE-DESC-MARK", "MINE-DESC-MARK"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the model was not shown %q", want)
		}
	}
	kinds := streamtest.Kinds(rec.Events())
	if len(kinds) == 0 || kinds[0] != driver.KindInit || kinds[len(kinds)-1] != driver.KindResult || !slices.Contains(kinds, driver.KindText) {
		t.Errorf("event kinds = %q, want init first, a text and the result last", kinds)
	}
	for _, ev := range rec.Events() {
		if init, ok := ev.(*driver.InitEvent); ok && init.SessionID != "" && init.SessionID != res.SessionID {
			t.Errorf("init event session %q, want %q", init.SessionID, res.SessionID)
		}
	}
	if _, err := agent.Run(clitest.RunCtx(t), "again"); err != nil {
		t.Fatal(err)
	}
	if after := cachetest.Listing(t, r.workspace) + cachetest.Listing(t, r.env.Unchanged); after != before {
		t.Errorf("the workspace or the user's folder changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// loaded is scenario 2.
func loaded(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Load: "review", Text: "reviewed"})
	before := cachetest.Listing(t, r.workspace) + cachetest.Listing(t, r.env.Unchanged)
	var rec streamtest.Recorder
	agent := r.agent(r.setup(), adaptor.WithSkills(inline("review", "Reviews changes.", "BODY-MARK-7731: check every line.")), rec.Option())
	res, err := agent.Run(clitest.RunCtx(t), "review please")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "reviewed" {
		t.Errorf("text = %q, want reviewed", res.Text)
	}
	turns := r.model.Turns()
	if len(turns) < 2 || !strings.Contains(turns[len(turns)-1].Shown, "BODY-MARK-7731") {
		t.Errorf("%d requests; want the last, after the tool call, to carry the skill's body", len(turns))
	}
	kinds := streamtest.Kinds(rec.Events())
	if !slices.Contains(kinds, driver.KindToolCall) || !slices.Contains(kinds, driver.KindToolResult) {
		t.Errorf("event kinds = %q, want a tool call and its result", kinds)
	}
	// Loading the body is a skill event, naming the skill and its call.
	if got := streamtest.Skills(rec.Events()); len(got) != 1 || got[0].Name != "review" || got[0].ToolCallID == "" {
		t.Errorf("skill events = %+v, want one loading review by its call", got)
	}
	if after := cachetest.Listing(t, r.workspace) + cachetest.Listing(t, r.env.Unchanged); after != before {
		t.Errorf("loading the skill changed the workspace or the user's folder:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// apart is scenario 3.
func apart(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Text: "ok"})
	agent := r.agent(r.setup())
	names := []string{"alpha", "beta"}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() {
			s := inline(name, strings.ToUpper(name)+"-ONLY-DESC.", "x")
			_, errs[i] = agent.Run(clitest.RunCtx(t), "run-"+name, adaptor.WithSkills(s))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, turn := range r.model.Turns() {
		own := slices.IndexFunc(names, func(n string) bool { return strings.Contains(turn.Prompt, "run-"+n) })
		if own < 0 {
			t.Errorf("a request of neither run: %q", turn.Prompt)
			continue
		}
		other := names[1-own]
		if !strings.Contains(turn.Shown, strings.ToUpper(names[own])+"-ONLY-DESC") || strings.Contains(turn.Shown, strings.ToUpper(other)+"-ONLY-DESC") {
			t.Errorf("the %s run was not shown its own skill alone", names[own])
		}
	}
}

// resume is scenario 4.
func resume(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Text: "noted"})
	agent := r.agent(r.setup(), adaptor.WithSkills(inline("review", "Reviews.", "R")))
	th := agent.Thread("pr-1", adaptor.ResumeOnly())
	first, err := th.Run(clitest.RunCtx(t), "FIRST-TURN-MARK")
	if err != nil {
		t.Fatal(err)
	}
	second, err := th.Run(clitest.RunCtx(t), "second turn")
	if err != nil {
		t.Fatal(err)
	}
	if second.SessionID != first.SessionID {
		t.Errorf("resumed session %q, want %q", second.SessionID, first.SessionID)
	}
	turns := r.model.Turns()
	if last := turns[len(turns)-1]; !strings.Contains(last.Shown, "FIRST-TURN-MARK") {
		t.Error("the resumed run's request does not replay the first turn")
	}
	before := r.model.Requests()
	_, err = th.Run(clitest.RunCtx(t), "third", adaptor.WithSkills(inline("extra", "More.", "E")))
	if !errors.Is(err, adaptor.ErrThreadChanged) || !strings.Contains(err.Error(), "extra") {
		t.Errorf("resume with another set = %v, want ErrThreadChanged naming extra", err)
	}
	if r.model.Requests() != before {
		t.Error("the refused run reached the model")
	}
	if _, err = agent.Run(clitest.RunCtx(t), "x", adaptor.WithResume(cmp.Or(a.UnknownSession, unknownSession))); !errors.Is(err, driver.ErrResumeRejected) {
		t.Errorf("resume of an unknown session = %v, want ErrResumeRejected", err)
	}
	before = r.model.Requests()
	res, err := agent.Run(clitest.RunCtx(t), "x", adaptor.WithResume("not-a-session-id"))
	if !errors.Is(err, driver.ErrResumeRejected) || res != nil {
		t.Errorf("resume of an odd id = %v, %v; want ErrResumeRejected", res, err)
	}
	if r.model.Requests() != before {
		t.Error("the refused resume reached the model")
	}
	r.noProcesses(t)
}

// cancel is scenario 5.
func cancel(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Stall: true})
	ctx, stop := context.WithCancel(clitest.RunCtx(t))
	defer stop()
	agent := r.agent(r.setup(), adaptor.WithSkills(inline("review", "Reviews.", "R")))
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, "wait for it")
		done <- err
	}()
	r.waitForTurn(t, done)
	if len(r.processes()) == 0 {
		t.Fatal("test setup: no process of the run found while it runs")
	}
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled run = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end 30s after cancellation")
	}
	r.noProcesses(t)
}

// waitForTurn waits until the model is asked, failing if the run ends
// first or no request comes within a minute.
func (r *rig) waitForTurn(t *testing.T, done <-chan error) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for len(r.model.Turns()) == 0 {
		select {
		case err := <-done:
			t.Fatalf("run ended before it asked the model: %v", err)
		case <-deadline:
			t.Fatal("the agent never asked the model")
		case <-tick.C:
		}
	}
}

// clash is scenario 6.
func clash(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Text: "ok"})
	theirs := writeSkill(t, r.env.UserSkills, "review", "The user's own.", "Mine.")
	agent := r.agent(r.setup(), adaptor.WithSkills(inline("review", "Ours.", "Ours.")))
	_, err := agent.Run(clitest.RunCtx(t), "x")
	var se *driver.ShadowError
	if !errors.As(err, &se) || se.Theirs != theirs {
		t.Fatalf("run = %v, want a *driver.ShadowError naming %s", err, theirs)
	}
	if n := r.model.Requests(); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}
	r.noProcesses(t)
	writeSkill(t, r.env.UserSkills, "review", "Ours.", "Ours.")
	if _, err := agent.Run(clitest.RunCtx(t), "x"); err != nil {
		t.Errorf("run beside an identical user skill = %v", err)
	}
}

// values is scenario 7.
func values(t *testing.T, a Agent) {
	var root string // the cache root of the case "cache root"
	cases := append([]Value{
		{
			Name: "session id",
			Check: func(t *testing.T, m Model, _ Injection, err error) {
				if !errors.Is(err, driver.ErrInvalidSessionID) || !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), cmp.Or(a.SessionForm, "UUID")) {
					t.Errorf("run = %v, want ErrInvalidSessionID and ErrResumeRejected saying an id is %s", err, cmp.Or(a.SessionForm, "UUID"))
				}
				if n := m.Requests(); n != 0 {
					t.Errorf("the refused run sent %d requests", n)
				}
			},
		},
		{
			Name: "model",
			Set:  func(_ *testing.T, s *Setup, in Injection) { s.Model = in.Values[0] },
			Check: func(t *testing.T, m Model, in Injection, err error) {
				if turns := m.Turns(); err != nil || len(turns) == 0 || turns[0].Model != in.Values[0] {
					t.Errorf("run = %v; want it to ask the model named %q", err, in.Values[0])
				}
			},
		},
		{
			// A cache root, relative to the working folder, named like
			// the option of the injection's first value: the driver's
			// folder is made under it, named whole wherever the driver
			// names it, and its skill is shown to the model.
			Name: "cache root",
			Set: func(t *testing.T, s *Setup, in Injection) {
				dir := t.TempDir()
				t.Chdir(dir)
				opt, _, _ := strings.Cut(in.Values[0], "=")
				s.CacheRoot = opt + "=x"
				root = filepath.Join(dir, s.CacheRoot)
				if err := os.Mkdir(root, 0o700); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cachetest.Writable(root) })
			},
			Check: func(t *testing.T, m Model, _ Injection, err error) {
				if turns := m.Turns(); err != nil || len(turns) == 0 || !strings.Contains(turns[0].Shown, "MOUNT-MARK") {
					t.Errorf("run = %v; want the mounted skill shown to the model", err)
				}
				if entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(a.Folder))); err != nil || len(entries) == 0 {
					t.Errorf("the driver's folders under the cache root %s: %v, %v; want the run's there", root, entries, err)
				}
			},
		},
	}, a.Values...)
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			in := a.Inject(t.TempDir())
			r := newRig(t, a, Script{Text: "ok"})
			s := r.setup()
			if tc.Set != nil {
				tc.Set(t, &s, in)
			}
			var opts []adaptor.CallOption
			if tc.Name == "session id" {
				opts = append(opts, adaptor.WithResume(in.Values[0]))
			}
			agent := r.agent(s, adaptor.WithSkills(inline("review", "Reviews MOUNT-MARK.", "R")))
			_, err := agent.Run(clitest.RunCtx(t), "x", opts...)
			tc.Check(t, r.model, in, err)
			for _, m := range in.Markers {
				if _, err := os.Lstat(m); err == nil {
					t.Errorf("%s exists: a value was read as an option", m)
				}
			}
			r.noProcesses(t)
		})
	}
}

// errs is scenario 8.
func errs(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Fail: "MARK-REFUSED"})
	_, err := r.agent(r.setup()).Run(clitest.RunCtx(t), "x")
	var ae *driver.AgentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "MARK-REFUSED") || ae.Result == nil || ae.Result.SessionID == "" {
		t.Errorf("run against a failing API = %v, want a *driver.AgentError with the message and the session", err)
	}
	s := r.setup()
	s.Env = append(slices.Clone(s.Env), "PATH="+t.TempDir())
	_, err = r.agent(s).Run(clitest.RunCtx(t), "x")
	if !errors.Is(err, driver.ErrProcessFailed) || !strings.Contains(err.Error(), a.Install) {
		t.Errorf("run of a missing program = %v, want ErrProcessFailed saying %q", err, a.Install)
	}
}

// folders returns the driver's folders under the rig's cache.
func (r *rig) folders() []string {
	var out []string
	base := filepath.Join(r.cache, filepath.FromSlash(r.a.Folder))
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") {
			out = append(out, filepath.Join(base, e.Name()))
		}
	}
	return out
}

// lease is scenario 9.
func lease(t *testing.T, a Agent) {
	r := newRig(t, a, Script{Stall: true})
	agent := r.agent(r.setup(), adaptor.WithSkills(inline("review", "Reviews.", "R")))
	ctx, stop := context.WithCancel(clitest.RunCtx(t))
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, "wait for it")
		done <- err
	}()
	r.waitForTurn(t, done)
	c := skill.NewCache(skill.WithSkillCacheRoot(r.cache))
	folders := r.folders()
	if len(folders) != 1 {
		t.Fatalf("folders %v while the run runs, want one", folders)
	}
	if removed, err := c.CollectDriverFolders(t.Context(), time.Nanosecond); err != nil || len(removed) != 0 {
		t.Errorf("CollectDriverFolders(1ns) during the run = %+v, %v; want nothing removed", removed, err)
	}
	if removed, err := c.GC(t.Context(), time.Nanosecond); err != nil || len(removed) != 0 {
		t.Errorf("GC(1ns) during the run = %+v, %v; want the linked tree kept", removed, err)
	}
	if listed, err := c.DriverFolders(t.Context()); err != nil || len(listed) != 1 || !listed[0].InUse || listed[0].Agent != a.Listed || listed[0].Kind != a.Kind || listed[0].Dir != folders[0] {
		t.Errorf("DriverFolders during the run = %+v, %v; want %s in use, of %s, a %s", listed, err, folders[0], a.Listed, a.Kind)
	}
	stop()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end 30s after cancellation")
	}
	removed, err := c.CollectDriverFolders(t.Context(), time.Nanosecond)
	if err != nil || len(removed) != 1 || removed[0].Dir != folders[0] || removed[0].Sessions != a.Sessions {
		t.Fatalf("CollectDriverFolders(1ns) after the run = %+v, %v; want %s removed with %d sessions", removed, err, folders[0], a.Sessions)
	}
	if trees, err := c.GC(t.Context(), time.Nanosecond); err != nil || len(trees) != 1 || trees[0].Name != "review" {
		t.Errorf("GC(1ns) after the run = %+v, %v; want the review tree removed", trees, err)
	}
	if left := r.folders(); len(left) != 0 {
		t.Errorf("folders left: %v", left)
	}
}

// ownership is scenario 10.
func ownership(t *testing.T, a Agent) {
	if runtime.GOOS == "windows" {
		t.Skip("ownership and modes are not checked on Windows (see internal/agentdir)")
	}
	r := newRig(t, a, Script{Text: "ok"})
	refs := adaptor.WithSkills(inline("review", "Reviews.", "R"))
	if _, err := r.agent(r.setup(), refs).Run(clitest.RunCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	folders := r.folders()
	if len(folders) != 1 {
		t.Fatalf("folders %v, want one", folders)
	}
	first, _, _ := strings.Cut(a.Folder, "/")
	top := filepath.Join(r.cache, first)
	sub := filepath.Join(r.cache, filepath.FromSlash(a.Folder))
	chown := func(p string) error { return os.Chown(p, 12345, 12345) }
	unchown := func(p string) error { return os.Chown(p, 0, 0) }
	chmod := func(mode fs.FileMode) func(string) error { return func(p string) error { return os.Chmod(p, mode) } }
	tests := []struct {
		name           string
		folder         string
		spoil, restore func(string) error
		root           bool
		mentions       string
	}{
		{"top of another user", top, chown, unchown, true, "belongs to user 12345"},
		{"agent folder of another user", sub, chown, unchown, true, "belongs to user 12345"},
		{"the folder of another user", folders[0], chown, unchown, true, "belongs to user 12345"},
		{"top writable by its group", top, chmod(0o770), chmod(0o700), false, "may be written by its group"},
		{"agent folder writable by all", sub, chmod(0o777), chmod(0o700), false, "may be written"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("giving a folder to another user needs root")
			}
			if err := tc.spoil(tc.folder); err != nil {
				t.Fatal(err)
			}
			defer tc.restore(tc.folder)
			before := r.model.Requests()
			_, err := r.agent(r.setup(), refs).Run(clitest.RunCtx(t), "x")
			if err == nil || !strings.Contains(err.Error(), tc.folder) || !strings.Contains(err.Error(), tc.mentions) {
				t.Fatalf("run with %s = %v, want it refused naming %s and saying %q", tc.name, err, tc.folder, tc.mentions)
			}
			if n := r.model.Requests(); n != before {
				t.Errorf("the refused run reached the model (%d requests)", n-before)
			}
			r.noProcesses(t)
		})
	}
}

// nested is scenario 11.
func nested(t *testing.T, a Agent) {
	row, ok := agents.Lookup(a.Listed)
	if !ok {
		t.Fatalf("no row %q in the agents table", a.Listed)
	}
	// Every project folder of every agent, below the workspace's top,
	// each holding a skill named like the run's and one of its own.
	var rels []string
	for _, r := range agents.Table() {
		for _, f := range r.Folders {
			if f.Base == agents.Project && !slices.Contains(rels, f.Rel) {
				rels = append(rels, f.Rel)
			}
		}
	}
	build := func(t *testing.T, r *rig) (want []string) {
		ws, err := filepath.EvalSymlinks(r.workspace)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range rels {
			dir := filepath.Join(ws, "pkg", filepath.FromSlash(rel))
			writeSkill(t, dir, "review", "NESTED-REVIEW-MARK.", "Not ours.")
			writeSkill(t, dir, "extra", "NESTED-EXTRA-MARK.", "Not ours either.")
		}
		if err := os.WriteFile(filepath.Join(ws, "pkg", "main.go"), []byte("package pkg\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, rel := range row.Nested {
			want = append(want, filepath.Join(ws, "pkg", filepath.FromSlash(rel)))
		}
		slices.Sort(want)
		return want
	}
	refs := adaptor.WithSkills(inline("review", "Ours.", "Ours."))
	r := newRig(t, a, Script{Text: "ok"})
	want := build(t, r)
	_, err := r.agent(r.setup(), refs).Run(clitest.RunCtx(t), "x")
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("run beside nested folders the agent does not read = %v", err)
		}
		if shown := r.firstShown(t); strings.Contains(shown, "NESTED-") {
			t.Error("the model was shown a nested skill the agent's row says it does not read")
		}
		return
	}
	var ne *driver.NestedSkillsError
	if !errors.As(err, &ne) || !errors.Is(err, driver.ErrNestedSkills) || !slices.Equal(ne.Folders, want) {
		t.Fatalf("run = %v, want a *driver.NestedSkillsError naming %q", err, want)
	}
	if n := r.model.Requests(); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}
	r.noProcesses(t)
	if !row.NestedGitignore {
		return
	}
	t.Run("ignored", func(t *testing.T) {
		r := newRig(t, a, Script{Text: "ok"})
		build(t, r)
		if out, err := exec.Command("git", "init", "-q", r.workspace).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
		if err := os.WriteFile(filepath.Join(r.workspace, ".gitignore"), []byte("/pkg/\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := r.agent(r.setup(), refs).Run(clitest.RunCtx(t), "x"); err != nil {
			t.Errorf("run with the nested folders ignored by git = %v", err)
		}
	})
}
