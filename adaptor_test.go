package adaptor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/skilltest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// The skills and agents of these tests, shared with package trust's.
var (
	skillMD  = skilltest.SkillMD
	skillDir = skilltest.Dir
	newAgent = skilltest.NewAgent
	keys     = skilltest.Keys
)

func TestRunHandsTheDriverEverySource(t *testing.T) {
	dir := skillDir(t, "review")
	mapFS := fstest.MapFS{"skills/greet/SKILL.md": {Data: []byte(skillMD("greet"))}}
	archive := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit"), "scripts/x.sh": "echo"})
	s := skill.Inline("tone", skillMD("tone"))
	s.Metadata = map[string]string{skill.MetadataDisplayName: "Tone"}
	agent, rec := newAgent(t,
		adaptor.WithSkills(skill.Dir(dir), skill.FS(mapFS, "skills/greet"), s),
		adaptor.WithSkills(required(skill.Archive("kit", skill.ArchiveBytes(archive)), "house rules")),
	)
	res, err := agent.Run(t.Context(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "ok" {
		t.Errorf("Result.Text = %q, want ok", res.Text)
	}
	req := rec.Last()
	if req.Prompt != "hello" {
		t.Errorf("Prompt = %q", req.Prompt)
	}
	if got, want := keys(req.Skills), []string{"greet", "kit", "review", "tone"}; !slices.Equal(got, want) {
		t.Fatalf("keys = %v, want %v", got, want)
	}
	e := req.Skills.Entries
	if e[2].Path != dir {
		t.Errorf("folder skill path = %s, want %s (used in place)", e[2].Path, dir)
	}
	if !e[1].Required || e[1].Reason != "house rules" || e[0].Required {
		t.Errorf("Required/Reason not carried: %+v", e)
	}
	if e[3].Metadata[skill.MetadataDisplayName] != "Tone" || e[3].RuntimeName != "tone" {
		t.Errorf("tone entry = %+v", e[3])
	}
	for _, x := range e {
		if filepath.Base(x.Path) != x.RuntimeName {
			t.Errorf("%s: folder %s is not named after runtime name %s", x.Key, x.Path, x.RuntimeName)
		}
	}
	if len(req.Skills.Fingerprint) != 64 {
		t.Errorf("Fingerprint = %q, want a hex SHA-256", req.Skills.Fingerprint)
	}
	if !slices.Equal(keys(res.Skills), keys(req.Skills)) {
		t.Errorf("Result.Skills = %v, want the request's", keys(res.Skills))
	}
}

func TestRunSkillsAppendAndDoNotLeak(t *testing.T) {
	agent, rec := newAgent(t, adaptor.WithSkills(skill.Inline("base", skillMD("base"))))
	if _, err := agent.Run(t.Context(), "1", adaptor.WithSkills(skill.Inline("extra", skillMD("extra")))); err != nil {
		t.Fatal(err)
	}
	if got := keys(rec.Last().Skills); !slices.Equal(got, []string{"base", "extra"}) {
		t.Errorf("run with an extra skill got %v, want [base extra]", got)
	}
	if _, err := agent.Run(t.Context(), "2"); err != nil {
		t.Fatal(err)
	}
	if got := keys(rec.Last().Skills); !slices.Equal(got, []string{"base"}) {
		t.Errorf("next run got %v, want [base]: a run's skill leaked", got)
	}
	// A run cannot replace an agent skill with another of the same key.
	_, err := agent.Run(t.Context(), "3", adaptor.WithSkills(skill.Inline("base", "other")))
	var ce *skill.SkillKeyConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Sources, []string{"agent", "run"}) {
		t.Errorf("run redefining an agent skill = %v, want a conflict between agent and run", err)
	}
}

func TestRunRejectsIncompleteDeclarations(t *testing.T) {
	tests := []struct {
		name string
		ref  skill.Ref
		want error
	}{
		{"blank key ref", skill.Key("  "), skill.ErrSkillKeyMissing},
		{"blank skill key", skill.Inline(" \t", "x"), skill.ErrSkillKeyMissing},
		{"nil source", skill.Skill{Key: "a"}, skill.ErrSkillSourceMissing},
		{"nil pointer source", skill.Skill{Key: "a", Source: (*skill.InlineSource)(nil)}, skill.ErrSkillSourceMissing},
		{"nil ref", nil, skill.ErrSkillKeyMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent, rec := newAgent(t)
			_, err := agent.Run(t.Context(), "x", adaptor.WithSkills(tt.ref))
			if !errors.Is(err, tt.want) {
				t.Errorf("Run(%s) = %v, want %v", tt.name, err, tt.want)
			}
			if rec.Calls() != 0 {
				t.Errorf("the driver was called")
			}
		})
	}
}

// countingMaterializer counts calls and the most calls in flight at once.
type countingMaterializer struct {
	next     skill.Materializer
	calls    atomic.Int64
	inFlight atomic.Int64
	peak     atomic.Int64
	fail     map[string]error
}

func (m *countingMaterializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	m.calls.Add(1)
	n := m.inFlight.Add(1)
	defer m.inFlight.Add(-1)
	for {
		p := m.peak.Load()
		if n <= p || m.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if err := m.fail[s.Key]; err != nil {
		return "", err
	}
	return m.next.Materialize(ctx, s)
}

func TestDeclarationEquality(t *testing.T) {
	dir := skillDir(t, "review")
	t.Chdir(filepath.Dir(dir))
	fsA := fstest.MapFS{"g/SKILL.md": {Data: []byte(skillMD("g"))}}
	fsB := fstest.MapFS{"g/SKILL.md": {Data: []byte(skillMD("g"))}}
	data := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit")})
	arch := func(opts ...skill.ArchiveOption) skill.Skill {
		return skill.Archive("kit", skill.ArchiveBytes(data), opts...)
	}
	withMeta := func(s skill.Skill, k, v string) skill.Skill { s.Metadata = map[string]string{k: v}; return s }
	inline := skill.Inline("tone", skillMD("tone"))
	tests := []struct {
		name   string
		a, b   skill.Skill
		detail string // "" means the same skill
	}{
		{"same folder spelled twice", skill.Dir(dir), skill.Dir("./review/"), ""},
		{"other folder", skill.Dir(dir), withKey(skill.Dir(skillDir(t, "review")), "review"), "folder"},
		{"same inline", inline, inline, ""},
		{"other inline text", inline, skill.Inline("tone", "other"), "inline"},
		{"same fs value and root", skill.FS(fsA, "g"), skill.FS(fsA, "g/"), ""},
		{"other fs value", skill.FS(fsA, "g"), skill.FS(fsB, "g"), "fs.FS"},
		{"other fs root", withKey(skill.FS(fsA, "g"), "g"), withKey(skill.FS(fsA, "."), "g"), "root"},
		{"archives without fingerprint", arch(), arch(), "fingerprint"},
		{"one fingerprint missing", arch(skill.WithFingerprint("v1")), arch(), "fingerprint"},
		{"same fingerprint", arch(skill.WithFingerprint("v1")), arch(skill.WithFingerprint("v1")), ""},
		{"other fingerprint", arch(skill.WithFingerprint("v1")), arch(skill.WithFingerprint("v2")), "fingerprint"},
		{"other format", arch(skill.WithFingerprint("v1")), arch(skill.WithFingerprint("v1"), skill.WithFormat(skill.FormatTarGz)), "format"},
		{"other subpath", arch(skill.WithFingerprint("v1")), arch(skill.WithFingerprint("v1"), skill.WithSubpath("x")), "subpath"},
		{"required", inline, required(inline, ""), "Required"},
		{"reason", required(inline, "a"), required(inline, "b"), "Reason"},
		{"metadata", withMeta(inline, "k", "1"), withMeta(inline, "k", "2"), "Metadata"},
		{"other kind", withKey(skill.Dir(dir), "tone"), inline, "folder source differs from a inline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &countingMaterializer{next: skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))}
			rec := &drivertest.Driver{}
			agent := adaptor.New(rec, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(tt.a))
			_, err := agent.Run(t.Context(), "x", adaptor.WithSkills(tt.b))
			if tt.detail == "" {
				if err != nil {
					t.Fatalf("Run(%s) = %v, want the two declarations to be one skill", tt.name, err)
				}
				if n := len(rec.Last().Skills.Entries); n != 1 {
					t.Errorf("got %d entries, want 1", n)
				}
				return
			}
			var ce *skill.SkillKeyConflictError
			if !errors.As(err, &ce) || !errors.Is(err, skill.ErrSkillKeyConflict) {
				t.Fatalf("Run(%s) = %v, want a *SkillKeyConflictError", tt.name, err)
			}
			if ce.Key != tt.a.Key || !slices.Equal(ce.Sources, []string{"agent", "run"}) || !strings.Contains(ce.Detail, tt.detail) {
				t.Errorf("conflict = %+v, want key %q, sources [agent run], detail about %q", ce, tt.a.Key, tt.detail)
			}
			if m.calls.Load() != 0 || rec.Calls() != 0 {
				t.Errorf("a conflict was found after materializing (%d calls) or the driver ran", m.calls.Load())
			}
		})
	}
}

func withKey(s skill.Skill, k string) skill.Skill { s.Key = k; return s }

// recordingProvider records the keys it is asked for.
type recordingProvider struct {
	skill.Set
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (p *recordingProvider) GetSkills(ctx context.Context, keys []string) (map[string]skill.Skill, error) {
	p.mu.Lock()
	p.calls = append(p.calls, keys)
	p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	return p.Set.GetSkills(ctx, keys)
}

func TestProvider(t *testing.T) {
	catalogue := skill.Set{
		"code-review": skill.Inline("code-review", skillMD("code-review")),
		"policy":      required(skill.Inline("policy", skillMD("policy")), "tenant policy"),
		"unused":      skill.Inline("unused", skillMD("unused")),
	}
	t.Run("called even without keys, required skills added", func(t *testing.T) {
		p := &recordingProvider{Set: catalogue}
		agent, rec := newAgent(t, adaptor.WithSkillProvider(p))
		if _, err := agent.Run(t.Context(), "x"); err != nil {
			t.Fatal(err)
		}
		if len(p.calls) != 1 || len(p.calls[0]) != 0 {
			t.Errorf("provider calls = %v, want one call with no keys", p.calls)
		}
		if got := keys(rec.Last().Skills); !slices.Equal(got, []string{"policy"}) {
			t.Errorf("skills = %v, want [policy]", got)
		}
		if e := rec.Last().Skills.Entries[0]; !e.Required || e.Reason != "tenant policy" {
			t.Errorf("policy entry = %+v, want Required with its reason", e)
		}
	})
	t.Run("requested keys resolved", func(t *testing.T) {
		p := &recordingProvider{Set: catalogue}
		agent, rec := newAgent(t, adaptor.WithSkillProvider(p), adaptor.WithSkills(skill.Key("code-review")))
		if _, err := agent.Run(t.Context(), "x", adaptor.WithSkills(skill.Key("code-review"), skill.Inline("local", skillMD("local")), skill.Key("local"))); err != nil {
			t.Fatal(err)
		}
		if len(p.calls) != 1 || !slices.Equal(p.calls[0], []string{"code-review"}) {
			t.Errorf("provider calls = %v, want [[code-review]] (keys declared locally are not requested)", p.calls)
		}
		if got := keys(rec.Last().Skills); !slices.Equal(got, []string{"code-review", "local", "policy"}) {
			t.Errorf("skills = %v", got)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		agent, rec := newAgent(t, adaptor.WithSkillProvider(&recordingProvider{Set: catalogue}))
		_, err := agent.Run(t.Context(), "x", adaptor.WithSkills(skill.Key("nope")))
		if !errors.Is(err, skill.ErrSkillNotFound) || !strings.Contains(err.Error(), `"nope"`) || rec.Calls() != 0 {
			t.Errorf("Run with an unknown key = %v, want ErrSkillNotFound naming it, before the driver", err)
		}
	})
	t.Run("no provider", func(t *testing.T) {
		agent, _ := newAgent(t)
		_, err := agent.Run(t.Context(), "x", adaptor.WithSkills(skill.Key("code-review")))
		if !errors.Is(err, skill.ErrSkillNotFound) || !strings.Contains(err.Error(), `"code-review"`) {
			t.Errorf("Run with a key and no provider = %v, want ErrSkillNotFound naming it", err)
		}
	})
	t.Run("provider error unchanged", func(t *testing.T) {
		boom := errors.New("catalogue offline")
		agent, rec := newAgent(t, adaptor.WithSkillProvider(&recordingProvider{Set: catalogue, err: boom}))
		_, err := agent.Run(t.Context(), "x")
		if err != boom || rec.Calls() != 0 {
			t.Errorf("Run with a failing provider = %v, want the provider's error unchanged", err)
		}
	})
	t.Run("provider conflicts with a declaration", func(t *testing.T) {
		agent, _ := newAgent(t, adaptor.WithSkillProvider(&recordingProvider{Set: catalogue}),
			adaptor.WithSkills(skill.Inline("policy", "mine")))
		_, err := agent.Run(t.Context(), "x")
		var ce *skill.SkillKeyConflictError
		if !errors.As(err, &ce) || !slices.Equal(ce.Sources, []string{"agent", "provider"}) {
			t.Errorf("Run = %v, want a conflict between agent and provider", err)
		}
	})
	t.Run("provider returns an incomplete skill", func(t *testing.T) {
		bad := skill.Set{"x": {Key: "x", Required: true}}
		agent, _ := newAgent(t, adaptor.WithSkillProvider(bad))
		if _, err := agent.Run(t.Context(), "x"); !errors.Is(err, skill.ErrSkillSourceMissing) {
			t.Errorf("Run = %v, want ErrSkillSourceMissing", err)
		}
	})
}

func TestRuntimeNameCollision(t *testing.T) {
	agent, rec := newAgent(t, adaptor.WithSkills(skill.Inline("Code Review", skillMD("code-review")+"a"), skill.Inline("code-review", skillMD("code-review")+"b")))
	_, err := agent.Run(t.Context(), "x")
	if !errors.Is(err, skill.ErrRuntimeNameConflict) || !strings.Contains(err.Error(), `"Code Review"`) ||
		!strings.Contains(err.Error(), `"code-review"`) || !strings.Contains(err.Error(), "MetadataRuntimeName") {
		t.Errorf("Run = %v, want ErrRuntimeNameConflict naming both keys and the fix", err)
	}
	if rec.Calls() != 0 {
		t.Errorf("the driver was called")
	}
	s := skill.Inline("code-review", skillMD("code-review")+"b")
	s.Metadata = map[string]string{skill.MetadataRuntimeName: "code-review-2"}
	agent, _ = newAgent(t, adaptor.WithSkills(skill.Inline("Code Review", skillMD("code-review")+"a"), s))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Errorf("Run with a runtime name override = %v", err)
	}
}

func TestMaterializationBoundedAndFailing(t *testing.T) {
	var refs []skill.Ref
	for i := range 40 {
		refs = append(refs, skill.Inline(fmt.Sprintf("s%02d", i), skillMD("x")))
	}
	m := &countingMaterializer{next: skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))}
	rec := &drivertest.Driver{}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(refs...))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	if peak, limit := m.peak.Load(), int64(runtime.GOMAXPROCS(0)); peak > limit || m.calls.Load() != 40 {
		t.Errorf("peak concurrency %d (limit %d), calls %d", peak, limit, m.calls.Load())
	}

	cause := errors.New("disk on fire")
	m.fail = map[string]error{"s07": cause}
	_, err := agent.Run(t.Context(), "x")
	var me *skill.SkillMaterializationError
	if !errors.As(err, &me) || me.Key != "s07" || me.RuntimeName != "s07" || !errors.Is(err, cause) || !errors.Is(err, skill.ErrSkillMaterializationFailed) {
		t.Errorf("Run with a failing materializer = %v, want *SkillMaterializationError for s07 wrapping the cause", err)
	}
	if rec.Calls() != 1 {
		t.Errorf("the driver ran after a materialization failure")
	}

	// The default materializer's own errors keep their classification.
	agent, _ = newAgent(t, adaptor.WithSkills(skill.Archive("bad", skill.ArchiveBytes([]byte("junk")))))
	_, err = agent.Run(t.Context(), "x")
	if !errors.As(err, &me) || me.Key != "bad" || !errors.Is(err, skill.ErrArchiveFormat) {
		t.Errorf("Run with a bad archive = %v, want a materialization error wrapping ErrArchiveFormat", err)
	}
}

func TestDriverChecksSkillFolders(t *testing.T) {
	empty := t.TempDir()
	rec := &drivertest.Driver{RequireSkillMD: true}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(fixedMaterializer(empty)), adaptor.WithSkills(skill.Inline("a", "x")))
	if _, err := agent.Run(t.Context(), "x"); err == nil || !strings.Contains(err.Error(), "SKILL.md") {
		t.Errorf("Run with a folder lacking SKILL.md = %v, want the recording driver to refuse it", err)
	}
}

type fixedMaterializer string

func (f fixedMaterializer) Materialize(context.Context, skill.Skill) (string, error) {
	return string(f), nil
}

func TestFingerprint(t *testing.T) {
	dir := skillDir(t, "review")
	run := func(opts ...adaptor.Option) string {
		t.Helper()
		agent, rec := newAgent(t, opts...) // a new cache root each time
		if _, err := agent.Run(t.Context(), "x"); err != nil {
			t.Fatal(err)
		}
		return rec.Last().Skills.Fingerprint
	}
	archive := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit")})
	base := []skill.Ref{skill.Dir(dir), skill.Inline("tone", skillMD("tone")+"a"), skill.Archive("kit", skill.ArchiveBytes(archive))}
	first := run(adaptor.WithSkills(base...))
	if again := run(adaptor.WithSkills(base...)); again != first {
		t.Errorf("same content in another cache root gave fingerprint %s, want %s", again, first)
	}
	// The same content in a folder elsewhere is the same skill.
	moved := skillDir(t, "review")
	if got := run(adaptor.WithSkills(skill.Dir(moved), base[1], base[2])); got != first {
		t.Errorf("same content at another path changed the fingerprint")
	}
	changes := map[string][]skill.Ref{
		"inline text":   {base[0], skill.Inline("tone", skillMD("tone")+"b"), base[2]},
		"selection":     base[:2],
		"added":         append(slices.Clone(base), skill.Inline("more", skillMD("more"))),
		"required":      {base[0], required(skill.Inline("tone", skillMD("tone")+"a"), ""), base[2]},
		"archive bytes": {base[0], base[1], skill.Archive("kit", skill.ArchiveBytes(testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit2")})))},
	}
	for name, refs := range changes {
		if got := run(adaptor.WithSkills(refs...)); got == first {
			t.Errorf("changing the %s left the fingerprint unchanged", name)
		}
	}
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("new file"), 0o644)
	if got := run(adaptor.WithSkills(base...)); got == first {
		t.Errorf("a new file in a folder skill left the fingerprint unchanged")
	}
}

func TestConcurrentRuns(t *testing.T) {
	shared := []skill.Ref{
		skill.Inline("tone", skillMD("tone")),
		skill.FS(fstest.MapFS{"g/SKILL.md": {Data: []byte(skillMD("g"))}}, "g"),
		skill.Archive("kit", skill.ArchiveBytes(testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit")}))),
		skill.Dir(skillDir(t, "review")),
	}
	agent, rec := newAgent(t, adaptor.WithSkills(shared...))
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			own := skill.Inline(fmt.Sprintf("own-%02d", i), skillMD("own"))
			_, errs[i] = agent.Run(t.Context(), fmt.Sprintf("run %d", i), adaptor.WithSkills(own))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	reqs := rec.Requests()
	if len(reqs) != n {
		t.Fatalf("driver saw %d runs, want %d", len(reqs), n)
	}
	for _, req := range reqs {
		var i int
		fmt.Sscanf(req.Prompt, "run %d", &i)
		want := []string{"g", "kit", fmt.Sprintf("own-%02d", i), "review", "tone"}
		if got := keys(req.Skills); !slices.Equal(got, want) {
			t.Errorf("%s got %v, want %v", req.Prompt, got, want)
		}
	}
}

func TestInspectSkills(t *testing.T) {
	catalogue := skill.Set{
		"b":      skill.Inline("b", skillMD("b")),
		"a":      skill.Inline("a", skillMD("a")),
		"policy": required(skill.Inline("policy", skillMD("policy")), "always"),
	}
	agent, rec := newAgent(t, adaptor.WithSkillProvider(catalogue), adaptor.WithSkills(skill.Key("b")))
	report, err := agent.Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(report.Selected); !slices.Equal(got, []string{"b", "policy"}) {
		t.Errorf("Selected = %v, want [b policy]", got)
	}
	if len(report.Candidates) != 1 || report.Candidates[0].Key != "a" {
		t.Errorf("Candidates = %v, want [a]", report.Candidates)
	}
	if rec.Calls() != 0 {
		t.Errorf("Inspect ran the driver")
	}
	// Without a catalogue there are no candidates.
	agent, _ = newAgent(t, adaptor.WithSkills(skill.Inline("x", skillMD("x"))))
	if report, err = agent.Inspect(t.Context()); err != nil || len(report.Candidates) != 0 {
		t.Errorf("Inspect without a catalogue = %+v, %v", report, err)
	}
}

func TestWorkspace(t *testing.T) {
	t.Chdir(t.TempDir())
	agent, rec := newAgent(t, adaptor.WithWorkspace("proj"))
	agent.Run(t.Context(), "x")
	wd, _ := os.Getwd()
	if got := rec.Last().Workspace; got != filepath.Join(wd, "proj") {
		t.Errorf("Workspace = %q, want the absolute agent workspace", got)
	}
	agent.Run(t.Context(), "x", adaptor.WithWorkspace("/elsewhere"))
	if got := rec.Last().Workspace; got != "/elsewhere" {
		t.Errorf("Workspace = %q, want the run's", got)
	}
}

func TestOptionKinds(t *testing.T) {
	// Construction-only options are not call options, so passing one to
	// Run does not compile; shared ones are both.
	var shared any = adaptor.WithSkills()
	if _, ok := shared.(adaptor.CallOption); !ok {
		t.Errorf("WithSkills is not a CallOption")
	}
	for name, o := range map[string]any{
		"WithSkillProvider":     adaptor.WithSkillProvider(nil),
		"WithSkillMaterializer": adaptor.WithSkillMaterializer(nil),
	} {
		if _, ok := o.(adaptor.CallOption); ok {
			t.Errorf("%s is also a CallOption", name)
		}
	}
}

func TestDriverErrorAndCancellation(t *testing.T) {
	boom := errors.New("agent crashed")
	rec := &drivertest.Driver{Err: boom}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))))
	if _, err := agent.Run(t.Context(), "x"); err != boom {
		t.Errorf("Run = %v, want the driver's error", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	agent, rec = newAgent(t, adaptor.WithSkills(skill.Inline("a", "x")))
	if _, err := agent.Run(ctx, "x"); !errors.Is(err, context.Canceled) || rec.Calls() != 0 {
		t.Errorf("Run with a cancelled context = %v, want context.Canceled before the driver", err)
	}
}

// plainMaterializer hides the default materializer's ContentMaterializer
// method, so the agent reads each folder to digest it.
type plainMaterializer struct{ m skill.Materializer }

func (p plainMaterializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	return p.m.Materialize(ctx, s)
}

func TestFingerprintSameWithoutContentDigests(t *testing.T) {
	refs := []skill.Ref{
		skill.Dir(skillDir(t, "review")),
		skill.Inline("tone", skillMD("tone")+"a"),
		skill.Archive("kit", skill.ArchiveBytes(testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit"), "x/y.sh": "echo"}))),
		skill.FS(fstest.MapFS{"g/SKILL.md": {Data: []byte(skillMD("g"))}}, "g"),
	}
	var prints []string
	for _, m := range []skill.Materializer{
		skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t))),
		plainMaterializer{skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))},
	} {
		rec := &drivertest.Driver{}
		if _, err := adaptor.New(rec, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(refs...)).Run(t.Context(), "x"); err != nil {
			t.Fatal(err)
		}
		prints = append(prints, rec.Last().Skills.Fingerprint)
	}
	if prints[0] != prints[1] {
		t.Errorf("fingerprint with content digests %s, without %s: want equal", prints[0], prints[1])
	}
}

func TestMaterializerReturningNoFolder(t *testing.T) {
	rec := &drivertest.Driver{}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(fixedMaterializer("")), adaptor.WithSkills(skill.Inline("a", "x")))
	_, err := agent.Run(t.Context(), "x")
	var me *skill.SkillMaterializationError
	if !errors.As(err, &me) || me.Key != "a" || rec.Calls() != 0 {
		t.Errorf("Run with a materializer returning \"\" = %v, want a materialization error for a", err)
	}
}

// required returns s marked Required with reason, as a provider marks a
// skill every run must have.
func required(s skill.Skill, reason string) skill.Skill {
	s.Required, s.Reason = true, reason
	return s
}
