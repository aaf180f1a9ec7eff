package install

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/webindex"
	"github.com/agentadaptor/agentadaptor/trust"
)

// site is a static web server whose files a test changes as it goes.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	requests map[string]int
}

func newSite(t *testing.T) *site {
	s := &site{files: map[string][]byte{}, requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		data, ok := s.files[r.URL.Path]
		s.requests[r.URL.Path]++
		s.mu.Unlock()
		if to, ok := strings.CutPrefix(string(data), "redirect:"); ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) put(p string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[p] = data
}

func (s *site) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[p]
}

// publish writes an index of the skill folders dirs with webindex.Write
// and serves what it wrote.
func (s *site) publish(t *testing.T, dirs ...string) *webindex.Index {
	t.Helper()
	out := t.TempDir()
	ix, err := webindex.Write(t.Context(), out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(out, ".well-known", "agent-skills")
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(out, p)
		s.put("/"+filepath.ToSlash(rel), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// index serves an index written by hand with the entries given.
func (s *site) index(entries ...string) {
	s.put(webindex.Path, []byte(`{"$schema":"`+webindex.Schema+`","skills":[`+strings.Join(entries, ",")+`]}`))
}

func indexEntry(name, typ, url, digest string) string {
	return fmt.Sprintf(`{"name":%q,"type":%q,"description":"the %s skill","url":%q,"digest":%q}`, name, typ, name, url, digest)
}

// webFixture is a project, its source skills, and an installer with the
// default checker and its own cache.
func webFixture(t *testing.T, opts ...Option) (*fixture, *Installer) {
	f := newFixture(t)
	return f, webInstaller(t, f, cachetest.Root(t), opts...)
}

func webInstaller(t *testing.T, f *fixture, cacheRoot string, opts ...Option) *Installer {
	return New(f.env, append([]Option{WithCache(skill.NewCache(skill.WithSkillCacheRoot(cacheRoot))), WithLockDir(t.TempDir())}, opts...)...)
}

func (f *fixture) strictSkill(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(f.sources, name)
	all := map[string]string{"SKILL.md": skillMD(name)}
	for k, v := range files {
		all[k] = v
	}
	for k, v := range all {
		p := filepath.Join(dir, filepath.FromSlash(k))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWebIndexRoundTrip checks rule 15 end to end against what
// webindex.Write publishes: add from the site's address, the lock
// records the index URL, the name and the digest, a sync needs no
// network while the cache holds the skills, and AddRequest.Skills chooses.
func TestWebIndexRoundTrip(t *testing.T) {
	f, in := webFixture(t)
	s := newSite(t)
	ix := s.publish(t, f.strictSkill(t, "lone", nil), f.strictSkill(t, "kit", map[string]string{"scripts/run.sh": "echo hi\n"}))

	list, err := in.Contents(t.Context(), FindRequest{Source: s.URL})
	if err != nil || len(list) != 2 || list[0].Name != "kit" || list[0].Path != "kit" || list[0].Description != "the kit skill" {
		t.Fatalf("Contents(%s) = %+v, %v; want kit and lone", s.URL, list, err)
	}
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL + "/"}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 {
		t.Fatal("Add made no change")
	}
	lock, err := readLock(in.lockPath())
	if err != nil {
		t.Fatal(err)
	}
	indexURL := s.URL + webindex.Path
	for _, e := range ix.Skills {
		got := lock.Skills[e.Name]
		if got == nil || got.Source != indexURL || got.Subpath != e.Name || got.Pin != e.Digest {
			t.Errorf("lock entry of %s = %+v; want source %s, subpath %s, pin %s", e.Name, got, indexURL, e.Name, e.Digest)
		}
	}
	if data := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "kit", "scripts", "run.sh")); data != "echo hi\n" {
		t.Errorf("kit's script = %q", data)
	}

	// Sync from the cache: the site is gone.
	s.Close()
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "lone"))
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatalf("Sync with the site down and the cache full = %v", err)
	}
	if !isSkill(filepath.Join(f.env.Project, ".agents", "skills", "lone")) {
		t.Error("Sync did not restore lone")
	}

	// Choosing one skill by name.
	f2, in2 := webFixture(t)
	s2 := newSite(t)
	s2.publish(t, f2.strictSkill(t, "lone", nil), f2.strictSkill(t, "kit", map[string]string{"a.md": "a"}))
	if _, err := in2.Add(t.Context(), AddRequest{Sources: []string{s2.URL + webindex.Path}, Skills: []string{"kit"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if isSkill(filepath.Join(f2.env.Project, ".agents", "skills", "lone")) || !isSkill(filepath.Join(f2.env.Project, ".agents", "skills", "kit")) {
		t.Error("Add with Skills [kit] did not install kit alone")
	}
	if n := s2.count("/.well-known/agent-skills/lone/SKILL.md"); n != 0 {
		t.Errorf("Add with Skills [kit] downloaded lone %d times, want none", n)
	}
	if _, err := in2.Add(t.Context(), AddRequest{Sources: []string{s2.URL}, Skills: []string{"nope"}, Agents: agentsOf(t, "claude-code")}); !errors.As(err, new(*MissingSkillsError)) || !strings.Contains(err.Error(), "kit, lone") {
		t.Errorf("Add with Skills [nope] = %v, want a MissingSkillsError listing kit and lone", err)
	}
}

// TestWebIndexSyncDrift checks that a sync at the pin, with an empty
// cache, reads the index again and refuses a skill whose digest the
// index changed, or that it no longer lists (rule 15).
func TestWebIndexSyncDrift(t *testing.T) {
	f, in := webFixture(t)
	s := newSite(t)
	dir := f.strictSkill(t, "kit", map[string]string{"a.md": "one"})
	old := s.publish(t, dir)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	// Another machine: an empty cache, the same project.
	cold := webInstaller(t, f, cachetest.Root(t))
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "kit"))
	if _, err := cold.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatalf("Sync with an empty cache and the index unchanged = %v", err)
	}
	if n := s.count("/.well-known/agent-skills/kit.tar.gz"); n != 2 {
		t.Errorf("the archive was downloaded %d times, want 2 (add, then the cold sync)", n)
	}

	os.WriteFile(filepath.Join(dir, "a.md"), []byte("two"), 0o644)
	now := s.publish(t, dir)
	cold = webInstaller(t, f, cachetest.Root(t))
	_, err := cold.Sync(t.Context(), SyncRequest{})
	if !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), old.Skills[0].Digest) || !strings.Contains(err.Error(), now.Skills[0].Digest) {
		t.Errorf("Sync after the index changed the digest = %v; want ErrDrift naming both digests", err)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "kit", "a.md")); got != "one" {
		t.Errorf("a refused sync changed the skill: a.md = %q", got)
	}

	s.index()
	cold = webInstaller(t, f, cachetest.Root(t))
	if _, err := cold.Sync(t.Context(), SyncRequest{}); !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), "no longer lists skill kit") {
		t.Errorf("Sync after the index dropped the skill = %v; want ErrDrift", err)
	}

	// Add moves the pin to what the index names now.
	s.publish(t, dir)
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for _, c := range changes {
		moved = moved || c.Pin == now.Skills[0].Digest && c.PreviousPin == old.Skills[0].Digest
	}
	if !moved {
		t.Errorf("Add after the index changed = %+v; want the pin moved", changes)
	}
}

// TestWebIndexRefusesDigestMismatch checks that a download whose
// SHA-256 differs from the index's refuses that skill, naming both
// digests, before it is extracted, and that the others install, Add
// failing with source.ErrIntegrity all the same (rule 15).
func TestWebIndexRefusesDigestMismatch(t *testing.T) {
	f, in := webFixture(t)
	s := newSite(t)
	good := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("good")})
	evil := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("evil")})
	claimed := webindex.Digest([]byte("what the publisher signed off"))
	s.put("/good.tgz", good)
	s.put("/evil.tgz", evil)
	s.index(indexEntry("good", "archive", "/good.tgz", webindex.Digest(good)), indexEntry("evil", "archive", "/evil.tgz", claimed))

	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, source.ErrIntegrity) || !strings.Contains(err.Error(), "evil") || strings.Contains(err.Error(), "good") {
		t.Errorf("Add of an index with a tampered skill = %v; want source.ErrIntegrity naming evil alone", err)
	}
	var reason string
	for _, c := range changes {
		if c.Skill == "evil" && c.Action == ActionSkipped {
			reason = c.Reason
		}
	}
	if !strings.Contains(reason, claimed) || !strings.Contains(reason, webindex.Digest(evil)) {
		t.Errorf("Add's skip of evil = %q; want both digests", reason)
	}
	if isSkill(filepath.Join(f.env.Project, ".agents", "skills", "evil")) || !isSkill(filepath.Join(f.env.Project, ".agents", "skills", "good")) {
		t.Error("want good installed and evil not")
	}
	f2, in2 := webFixture(t)
	_, err = in2.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Skills: []string{"evil"}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, ErrInvalidSource) || !errors.Is(err, source.ErrIntegrity) || !strings.Contains(err.Error(), claimed) {
		t.Errorf("Add of evil alone = %v; want ErrInvalidSource and source.ErrIntegrity naming the digest", err)
	}
	assertNothingInstalled(t, f2)
}

// TestWebIndexHostile covers hostile indexes and artifacts (rule 15 and
// the archive rules of rule 3).
func TestWebIndexHostile(t *testing.T) {
	md := []byte(skillMD("plain"))
	nested := testarchive.TarGzFiles(t, map[string]string{"one/SKILL.md": skillMD("one"), "two/SKILL.md": skillMD("two")})
	traversal := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("trav"), "../../escape": "x"})
	bomb := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("bomb"), "big": strings.Repeat("0", 1<<20)})
	other := []byte(skillMD("someone-else"))
	tests := []struct {
		name    string
		setup   func(s *site)
		skills  []string
		wantErr error
		want    string // in the error, or in the skipped skill's reason
	}{
		{"huge index", func(s *site) {
			s.put(webindex.Path, []byte(`{"$schema":"`+webindex.Schema+`","skills":[],"x":"`+strings.Repeat("x", webindex.MaxIndexSize)+`"}`))
		}, nil, ErrInvalidSource, "larger than"},
		{"v0.1.0", func(s *site) {
			s.put(webindex.Path, []byte(`{"skills":[{"name":"a","description":"d","files":["SKILL.md"]}]}`))
		}, nil, ErrInvalidSource, "v0.1.0"},
		{"no index", func(s *site) {}, nil, ErrSourceUnavailable, webindex.Path},
		{"wrong types", func(s *site) {
			s.put("/plain.md", md)
			s.index(`{"name":"plain","type":"skill-md","description":"d","url":"/plain.md","digest":7}`)
		}, []string{"plain"}, ErrInvalidSource, `"digest" is not a string`},
		{"dot-dot name", func(s *site) {
			s.put("/plain.md", md)
			s.index(indexEntry("../plain", "skill-md", "/plain.md", webindex.Digest(md)))
		}, nil, ErrInvalidSource, "lists it wrongly"},
		{"file URL", func(s *site) {
			s.index(indexEntry("plain", "skill-md", "file:///etc/passwd", webindex.Digest(md)))
		}, []string{"plain"}, ErrInvalidSource, "not an http or https URL"},
		{"archive of two skills", func(s *site) {
			s.put("/n.tgz", nested)
			s.index(indexEntry("one", "archive", "/n.tgz", webindex.Digest(nested)))
		}, []string{"one"}, ErrInvalidSource, "no SKILL.md at its root"},
		{"traversal", func(s *site) {
			s.put("/t.tgz", traversal)
			s.index(indexEntry("trav", "archive", "/t.tgz", webindex.Digest(traversal)))
		}, nil, ErrInvalidSource, "escape"},
		{"bomb", func(s *site) {
			s.put("/b.tgz", bomb)
			s.index(indexEntry("bomb", "archive", "/b.tgz", webindex.Digest(bomb)))
		}, nil, ErrInvalidSource, "exceeds a limit"},
		{"another name", func(s *site) {
			s.put("/o.md", other)
			s.index(indexEntry("plain", "skill-md", "/o.md", webindex.Digest(other)))
		}, []string{"plain"}, ErrInvalidSource, "its SKILL.md names someone-else"},
		{"redirect to another scheme", func(s *site) {
			s.put("/go", []byte("redirect:file:///etc/passwd"))
			s.index(indexEntry("plain", "skill-md", "/go", webindex.Digest(md)))
		}, nil, ErrSourceUnavailable, "unsupported protocol scheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			in := webInstaller(t, f, cachetest.Root(t), WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)), skill.WithMaxTotalSize(512<<10))))
			s := newSite(t)
			tt.setup(s)
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Skills: tt.skills, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Add = %v; want %v saying %q", err, tt.wantErr, tt.want)
			}
			assertNothingInstalled(t, f)
		})
	}
}

// TestWebIndexPolicy checks that a web index is a URL source for the
// policy, as recorded (the index URL), and that each artifact's URL is
// checked too (Trust rule 1).
func TestWebIndexPolicy(t *testing.T) {
	s := newSite(t)
	cdn := newSite(t)
	md := []byte(skillMD("plain"))
	cdn.put("/plain.md", md)
	s.put("/plain.md", md)
	f := newFixture(t)
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"url:"+s.URL+"/**\"]\n")
	in := webInstaller(t, f, cachetest.Root(t), WithTrust(trust.NewChecker(p), Trust{}))
	ps, err := in.Origin(s.URL)
	if err != nil || ps.Kind != "url" || ps.Location != s.URL+webindex.Path || ps.Pinned {
		t.Errorf("Origin(%s) = %+v, %v; want an unpinned URL source at the index", s.URL, ps, err)
	}
	s.index(indexEntry("plain", "skill-md", cdn.URL+"/plain.md", webindex.Digest(md)))
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), cdn.URL+"/plain.md") {
		t.Errorf("Add of an index naming a host the policy does not allow = %v; want trust.ErrRefused naming the URL", err)
	}
	if n := cdn.count("/plain.md"); n != 0 {
		t.Errorf("the refused artifact was downloaded %d times", n)
	}
	assertNothingInstalled(t, f)
	s.put("/hop.md", []byte("redirect:"+cdn.URL+"/plain.md"))
	s.index(indexEntry("plain", "skill-md", "/hop.md", webindex.Digest(md)))
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")})
	var re *trust.RefusedError
	if !errors.As(err, &re) || !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "redirected to "+cdn.URL+"/plain.md") {
		t.Errorf("Add of an index whose artifact redirects to a host the policy does not allow = %v; want a *trust.RefusedError of the policy naming the hop", err)
	}
	if n := cdn.count("/plain.md"); n != 0 {
		t.Errorf("the refused hop was requested %d times", n)
	}
	s.index(indexEntry("plain", "skill-md", "/plain.md", webindex.Digest(md)))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Errorf("Add of an allowed index = %v", err)
	}
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Errorf("Sync of an allowed index = %v", err)
	}
	if kind := in.recordedKind("https://github.com/owner/repo/"); kind != kindPublished {
		t.Errorf("recordedKind(a GitHub URL ending in /) = %q, want a published source, not a web index", kind)
	}
	if _, _, err := webIndexURL("https://example.com/?x=1"); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("webIndexURL with a query = %v, want ErrInvalidSource", err)
	}
}

// TestWebIndexOutdatedUpdate checks Outdated and Update of a web index
// (rules 14 and 15): the index is read once per check, a skill whose
// digest it still names is current, one it names with another digest is
// changed, and Update moves the pin to it and installs the new content.
func TestWebIndexOutdatedUpdate(t *testing.T) {
	f, in := webFixture(t)
	s := newSite(t)
	kit := f.strictSkill(t, "kit", map[string]string{"a.md": "one"})
	lone := f.strictSkill(t, "lone", nil)
	old := s.publish(t, kit, lone)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	before := s.count(webindex.Path)
	rows, err := in.Outdated(t.Context())
	if err != nil || len(rows) != 2 || rows[0].State != OutdatedCurrent || rows[1].State != OutdatedCurrent {
		t.Fatalf("Outdated = %+v, %v; want both current", rows, err)
	}
	if n := s.count(webindex.Path) - before; n != 1 {
		t.Errorf("Outdated read the index %d times, want once", n)
	}

	os.WriteFile(filepath.Join(kit, "a.md"), []byte("two"), 0o644)
	now := s.publish(t, kit, lone)
	rows, err = in.Outdated(t.Context())
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	if rows[0].Skill != "kit" || rows[0].State != OutdatedChanged || rows[0].Pin != old.Skills[0].Digest || rows[0].Now != now.Skills[0].Digest {
		t.Errorf("Outdated kit = %+v; want changed, from the old digest to the new", rows[0])
	}
	if rows[1].State != OutdatedCurrent {
		t.Errorf("Outdated lone = %+v; want current", rows[1])
	}

	ups, _, err := in.Update(t.Context(), UpdateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var moved bool
	for _, u := range ups {
		moved = moved || u.Skill == "kit" && u.Pin == now.Skills[0].Digest && u.PreviousPin == old.Skills[0].Digest && slices.Contains(u.Changed, "a.md")
	}
	if !moved {
		t.Errorf("Update = %+v; want kit moved to the new digest with a.md changed", ups)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "kit", "a.md")); got != "two" {
		t.Errorf("after Update a.md = %q", got)
	}
	lock, _ := readLock(in.lockPath())
	if lock.Skills["kit"].Pin != now.Skills[0].Digest {
		t.Errorf("lock pin of kit = %s, want %s", lock.Skills["kit"].Pin, now.Skills[0].Digest)
	}

	s.index()
	rows, err = in.Outdated(t.Context())
	if err != nil || rows[0].State != OutdatedChanged || !strings.Contains(rows[0].Reason, "no longer lists") {
		t.Errorf("Outdated after the index dropped its skills = %+v, %v", rows, err)
	}
	if _, _, err := in.Update(t.Context(), UpdateRequest{}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("Update after the index dropped its skills = %v, want ErrInvalidSource", err)
	}
}

// TestWebIndexPolicyDotSegments lists an artifact whose URL climbs out
// of the folder the policy allows with percent-encoded dot segments,
// which URL resolution keeps and a server may resolve: it is refused
// before any request, as a URL source with a '..' segment is (Trust
// rule 1).
func TestWebIndexPolicyDotSegments(t *testing.T) {
	s := newSite(t)
	md := []byte(skillMD("plain"))
	const climbed = "/team-a/.well-known/agent-skills/../../../team-b/plain.md"
	s.put(climbed, md) // as a server that resolves the segments would serve team-b's file
	s.put("/team-a"+webindex.Path, []byte(`{"$schema":"`+webindex.Schema+`","skills":[`+
		indexEntry("plain", "skill-md", "%2e%2e/%2e%2e/%2e%2e/team-b/plain.md", webindex.Digest(md))+`]}`))
	f := newFixture(t)
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"url:"+s.URL+"/team-a/**\"]\n")
	in := webInstaller(t, f, cachetest.Root(t), WithTrust(trust.NewChecker(p), Trust{}))
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL + "/team-a/"}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "'..'") {
		t.Errorf("Add of an index whose artifact URL climbs out with %%2e%%2e = %v; want trust.ErrRefused naming the '..' segment", err)
	}
	if n := s.count(climbed); n != 0 {
		t.Errorf("the refused artifact was requested %d times", n)
	}
	assertNothingInstalled(t, f)
}

// TestWebIndexReadStopsAtLimit checks that an index larger than
// webindex.MaxIndexSize is refused after reading one byte past the
// limit, not after the archive limit: a server that never stops sending
// has served little more than MaxIndexSize when Add fails.
func TestWebIndexReadStopsAtLimit(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != webindex.Path {
			http.NotFound(w, r)
			return
		}
		chunk := []byte(strings.Repeat(" ", 32<<10))
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			served.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	f, in := webFixture(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{srv.URL}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", webindex.MaxIndexSize)) {
		t.Errorf("Add of an endless index = %v; want ErrInvalidSource saying it is larger than %d bytes", err, webindex.MaxIndexSize)
	}
	srv.CloseClientConnections()
	srv.Close() // waits for the handler, so served is final
	// What the kernel's socket buffers and the HTTP stack take in beyond
	// what the installer read is bounded by a few MiB, far below the
	// archive limit the index was read up to.
	if n, max := served.Load(), int64(webindex.MaxIndexSize+16<<20); n > max {
		t.Errorf("the server sent %d bytes of the index before Add refused it; want at most %d", n, max)
	}
	assertNothingInstalled(t, f)
}

// TestWebIndexSyncTampered checks that a sync whose download of a
// recorded skill no longer matches the digest the index (and the lock
// file) names fails with source.ErrIntegrity, not as bad input, and changes
// nothing.
func TestWebIndexSyncTampered(t *testing.T) {
	f, in := webFixture(t)
	s := newSite(t)
	dir := f.strictSkill(t, "kit", map[string]string{"a.md": "one"})
	s.publish(t, dir)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{s.URL}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	s.put("/.well-known/agent-skills/kit.tar.gz", testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("kit"), "a.md": "evil"}))
	cold := webInstaller(t, f, cachetest.Root(t))
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "kit"))
	_, err := cold.Sync(t.Context(), SyncRequest{})
	if !errors.Is(err, source.ErrIntegrity) || errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "kit") {
		t.Errorf("Sync of a tampered download = %v; want source.ErrIntegrity naming kit", err)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "kit")); !os.IsNotExist(err) {
		t.Errorf("a refused sync restored kit (%v)", err)
	}
}
