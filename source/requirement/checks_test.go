package requirement_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocitest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/requirement"
	"github.com/agentadaptor/agentadaptor/trust"
)

// recorder is an HTTP transport that records every request it sends.
type recorder struct {
	mu   sync.Mutex
	urls []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

// fakeGitHub is a stand-in GitHub API that knows one repository,
// acme/skills, with tags v1.0.0 and v1.2.0 and v2.0.0, and records every
// request.
type fakeGitHub struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

const (
	commit100 = "1000000000000000000000000000000000000000"
	commit120 = "1200000000000000000000000000000000000000"
	commit200 = "2000000000000000000000000000000000000000"
)

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.URL.Path)
		f.mu.Unlock()
		if r.URL.Path != "/repos/acme/skills/tags" {
			http.NotFound(w, r)
			return
		}
		type tag struct {
			Name   string `json:"name"`
			Commit struct {
				SHA string `json:"sha"`
			} `json:"commit"`
		}
		var tags []tag
		for name, sha := range map[string]string{"v1.0.0": commit100, "v1.2.0": commit120, "v2.0.0": commit200} {
			tg := tag{Name: name}
			tg.Commit.SHA = sha
			tags = append(tags, tg)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(tags)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeGitHub) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

func (f *fakeGitHub) resolver(t *testing.T) *requirement.Resolver {
	t.Helper()
	gh, err := github.New(github.WithAPIURL(f.URL), github.WithToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := requirement.New(requirement.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), requirement.WithGitHubClient(gh))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// onlyLocal is a policy that allows folders of this machine alone.
func onlyLocal(t *testing.T) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte("version: 1\nsources:\n  allow: [\"local:/**\"]\n"), "test.policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Rule 9: a policy that denies the registry a requirement names refuses
// it before the resolver sends the registry a single request: no tag
// listing, no manifest, no layer.
func TestDeniedRegistryNotContacted(t *testing.T) {
	hermetic(t)
	reg := ocitest.New(t)
	reg.Push(t, "acme/semver", "v1.0.0", "semver", skillMD("semver", "", "Semver."))
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", "oci://"+reg.Host+"/acme/semver:^1", "Cut.")), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	rt := &recorder{}
	r, err := requirement.New(requirement.WithCache(cache), requirement.WithOCIOptions(oci.WithHTTPClient(&http.Client{Transport: rt})))
	if err != nil {
		t.Fatal(err)
	}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(onlyLocal(t)))),
		adaptor.WithRequirementResolver(r), adaptor.WithRequires(), adaptor.WithSkills(skill.Dir(release)))
	_, err = agent.Run(t.Context(), "x")
	var re *skill.RequirementError
	if !errors.Is(err, trust.ErrRefused) || !errors.As(err, &re) || re.ChainText() != "release -> semver" {
		t.Fatalf("Run = %v; want a trust refusal of release -> semver", err)
	}
	if sent := rt.sent(); len(sent) > 0 {
		t.Errorf("the policy denies %s, yet the run sent it %q", reg.Host, sent)
	}
}

// Rule 9: a denied GitHub repository is not asked for its tags, whether
// one requirement names it or several are merged (rule 7).
func TestDeniedGitHubNotContacted(t *testing.T) {
	f := newFakeGitHub(t)
	r := f.resolver(t)
	checker := trust.NewMaterializer(nil, trust.NewChecker(onlyLocal(t)))
	by := skill.Dir(t.TempDir())
	req := func(text string) skill.Requirement {
		return skill.Requirement{Text: text, By: by, Chain: []string{by.Key}, CheckOrigin: checker.CheckOrigin}
	}
	if _, err := r.ResolveRequirement(t.Context(), req("github:acme/skills/changelog@^1")); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("ResolveRequirement = %v; want a trust refusal", err)
	}
	if _, ok, err := r.MergeRequirements(t.Context(), []skill.Requirement{req("github:acme/skills/changelog@^1"), req("github:acme/skills/changelog@~1.0")}); ok || !errors.Is(err, trust.ErrRefused) {
		t.Errorf("MergeRequirements = %v, %v; want a trust refusal", ok, err)
	}
	if seen := f.requests(); len(seen) > 0 {
		t.Errorf("the stand-in GitHub was asked %q", seen)
	}
}

// Rules 3, 5 and 9: a github: requirement is pinned to the commit of
// the highest tag its range admits, with its folder's name as key; its
// origin, checked before the tags are read, is the repository on the
// GitHub its client reads (here the stand-in's host, whatever
// GITHUB_API_URL says), as the resolved skill's is.
func TestResolveGitHub(t *testing.T) {
	f := newFakeGitHub(t)
	r := f.resolver(t)
	var checked []source.Origin
	s, err := r.ResolveRequirement(t.Context(), skill.Requirement{Text: "github:acme/skills/changelog@^1", By: skill.Skill{Key: "release"},
		CheckOrigin: func(s skill.Skill) error {
			if len(f.requests()) > 0 {
				t.Errorf("CheckOrigin was called after the stand-in was asked %q", f.requests())
			}
			checked = append(checked, source.OriginOf(s.Source))
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := source.Origin{Kind: source.Git, Location: strings.TrimPrefix(f.URL, "http://") + "/acme/skills", Pinned: true}
	o := source.OriginOf(s.Source)
	if s.Key != "changelog" || o.Kind != want.Kind || o.Location != want.Location || !o.Pinned {
		t.Errorf("ResolveRequirement = key %q, origin %#v; want changelog from %v", s.Key, o, want)
	}
	if p, ok := s.Source.(source.PinnedSource); !ok || p.Pin() != commit120 {
		t.Errorf("the skill's pin = %v; want v1.2.0's commit %s", s.Source, commit120)
	}
	if len(checked) != 1 || checked[0].Kind != want.Kind || checked[0].Location != want.Location || !checked[0].Pinned {
		t.Errorf("CheckOrigin saw %#v; want %v, pinned, once", checked, want)
	}
	if seen := f.requests(); len(seen) != 1 || seen[0] != "/repos/acme/skills/tags" {
		t.Errorf("the stand-in GitHub was asked %q; want the tags alone", seen)
	}
}

// Rule 5: a source on a GitHub Enterprise Server is read by a client of
// its host, not by the client of WithGitHubClient (which refuses other
// hosts' sources): the request goes to that host.
func TestGitHubEnterpriseOwnClient(t *testing.T) {
	f := newFakeGitHub(t)
	r := f.resolver(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // no request leaves; the error tells which host was asked
	_, err := r.ResolveRequirement(ctx, skill.Requirement{Text: "https://ghe.example.com/acme/skills/tree/main/changelog", By: skill.Skill{Key: "release"}})
	if err == nil || !strings.Contains(err.Error(), "ghe.example.com/api/v3") {
		t.Errorf("ResolveRequirement of an Enterprise address = %v; want a request to ghe.example.com's API", err)
	}
	if seen := f.requests(); len(seen) > 0 {
		t.Errorf("the client of WithGitHubClient was asked %q", seen)
	}
}

// Rules 1 and 8: hostile texts in a published skill's SKILL.md are
// refused with source.ErrInvalid before anything is asked of the
// network.
func TestHostileTextsReadNothing(t *testing.T) {
	hermetic(t)
	f := newFakeGitHub(t)
	r := f.resolver(t)
	for _, text := range []string{
		"%2e%2e/x", "..%2fx", ".\\x", "file:///etc/skills", "acme/../../x", "acme/skills/../../evil@^1",
		"github:acme/skills/../../evil@^1", "github:acme/skills/%2e%2e/evil@^1", "github:acme/skills/..%2f..%2fevil@^1",
		"C:\\skills\\x", "\\\\server\\share\\x", "~/x", "github:../evil/x", "acme/skills/a\\..\\..\\b@^1",
		"git+file:///etc", "git+https://github.com/acme/../evil/x#ref=^1", "git+https://github.com/acme/./evil/x#ref=^1",
		"oci://ghcr.io/acme/../evil:^1",
	} {
		by := skill.Skill{Key: "by", Source: publishedFolder{skill.PathSource{Path: t.TempDir()}}}
		_, err := r.ResolveRequirement(t.Context(), skill.Requirement{Text: text, By: by})
		if !errors.Is(err, source.ErrInvalid) {
			t.Errorf("ResolveRequirement(%q) = %v; want source.ErrInvalid", text, err)
		}
	}
	if seen := f.requests(); len(seen) > 0 {
		t.Errorf("hostile requirements asked the stand-in GitHub %q", seen)
	}
}

// publishedFolder is a published skill held as a folder, saying where it
// was published (as agentskills run gives its skills).
type publishedFolder struct{ skill.PathSource }

func (publishedFolder) Origin() source.Origin {
	return source.Origin{Kind: source.GitHub, Location: "acme/skills", Pinned: true, Display: "github:acme/skills@abc"}
}

// Rule 8: a git+file:// repository is required only by a skill of this
// machine (a folder, an inline skill, a git+file:// repository's) or by
// the program itself (no skill); a published skill, held as a folder or
// not, or an archive that does not say where it comes from, is refused
// before git runs.
func TestLocalRepositoryRequiredByPublished(t *testing.T) {
	hermetic(t)
	url, commits := repo(t, "", "v1.0.0")
	r, err := requirement.New(requirement.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))))
	if err != nil {
		t.Fatal(err)
	}
	text := url + "#ref=^1&path=changelog"
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		by   skill.Skill
		ok   bool
	}{
		{"folder", skill.Dir(dir), true},
		{"inline", skill.Inline("by", skillMD("by", "", "")), true},
		{"published folder", skill.Skill{Key: "by", Source: publishedFolder{skill.PathSource{Path: dir}}}, false},
		{"the program's own", skill.Skill{}, true},
		{"an archive", skill.Archive("by", func(context.Context) (io.ReadCloser, error) { return nil, errors.New("not read") }), false},
	} {
		s, err := r.ResolveRequirement(t.Context(), skill.Requirement{Text: text, By: tc.by})
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: ResolveRequirement(%s) = %v", tc.name, text, err)
		case tc.ok:
			if p, ok := s.Source.(source.PinnedSource); !ok || p.Pin() != commits["v1.0.0"] {
				t.Errorf("%s: the skill's pin = %v; want %s", tc.name, s.Source, commits["v1.0.0"])
			}
		case !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "repository of this machine"):
			t.Errorf("%s: ResolveRequirement(%s) = %v; want source.ErrInvalid saying it names a repository of this machine", tc.name, text, err)
		}
	}
}

// Rule 7 with many ranges: a SKILL.md that lists ranges of one skill
// whose joined range would cross a range's limits fails with
// source.ErrInvalid at once, the resolver having built no more than a
// range may hold.
func TestMergeManyRanges(t *testing.T) {
	hermetic(t)
	url, _ := repo(t, "", "v1.0.0", "v1.2.0")
	var reqs []string
	for i := range 17 { // each picks v1.2.0
		reqs = append(reqs, url+"#ref=^1||^0."+strconv.Itoa(i+1)+"&path=changelog")
	}
	reqs = append(reqs, url+"#ref=~1.0&path=changelog") // picks v1.0.0 where the others pick v1.2.0
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", strings.Join(reqs, " "), "Cut.")), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(cache), adaptor.WithRequirementResolver(r),
		adaptor.WithSkills(skill.WithRequires(skill.Dir(release))))
	_, err = agent.Run(t.Context(), "x")
	if !errors.Is(err, skill.ErrRequirement) || !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "at most 512 bytes and 32 groups") {
		t.Errorf("Run = %.400v; want the joined range's limits", err)
	}
}

// Rule 6: a run's error shows a requirement without the credentials
// its URL holds.
func TestRequirementErrorRedacted(t *testing.T) {
	hermetic(t)
	const text = "git+https://deploy:s3cretpassw0rd@127.0.0.1:1/acme/skills.git#ref=^1&path=changelog"
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", text, "Cut.")), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(cache), adaptor.WithRequirementResolver(r),
		adaptor.WithSkills(skill.WithRequires(skill.Dir(release))))
	_, err = agent.Run(t.Context(), "x")
	if err == nil || strings.Contains(err.Error(), "s3cretpassw0rd") {
		t.Errorf("Run = %v; want an error that does not show the password", err)
	}
}
