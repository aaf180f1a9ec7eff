package github_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// tagCommit is the commit the stand-in gives the i-th tag.
func tagCommit(i int) string { return fmt.Sprintf("%040x", i+1) }

// serveTags makes the stand-in answer GET /repos/o/r/tags from list,
// page by page as GitHub does, with the token and rate limit checks of
// every other call. page, when not nil, answers instead.
func (f *fakeGitHub) serveTags(list []string, page func(w http.ResponseWriter, n int)) {
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/repos/o/r/tags" || f.limited || (f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token) {
			return false
		}
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if per <= 0 || per > 100 {
			per = 30
		}
		n = max(n, 1)
		if page != nil {
			page(w, n)
			return true
		}
		type tag struct {
			Name   string `json:"name"`
			Commit struct {
				SHA string `json:"sha"`
			} `json:"commit"`
		}
		out := []tag{}
		for i := (n - 1) * per; i < min(n*per, len(list)); i++ {
			var t tag
			t.Name, t.Commit.SHA = list[i], tagCommit(i)
			out = append(out, t)
		}
		json.NewEncoder(w).Encode(out)
		return true
	}
}

var repoTags = []string{"main-snapshot", "v1", "v1.0.0", "v1.2.0", "v1.2.9", "v1.4.2", "v1.5.0-rc.1", "v2.0.0", "1.x"}

// Rule 15: which refs are ranges, as every form writes them.
func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		text, rng, ref, path string
	}{
		{"o/r@^1.2", "^1.2", "^1.2", ""},
		{"o/r/skills/pdf@~1.2", "~1.2", "~1.2", "skills/pdf"},
		{"o/r@>=1.0 <2", ">=1.0 <2", ">=1.0 <2", ""},
		{"o/r@^1 || ^2", "^1 || ^2", "^1 || ^2", ""},
		{"https://github.com/o/r/tree/^1.2/skills/pdf", "^1.2", "^1.2", "skills/pdf"},
		{"https://github.com/o/r/tree/%5E1.2", "^1.2", "^1.2", ""},
		{"o/r@v1.2.3", "", "v1.2.3", ""},
		{"o/r@1.x", "", "1.x", ""},
		{"o/r", "", "", ""},
	} {
		src, err := github.Parse(tc.text)
		if err != nil {
			t.Errorf("Parse(%q) = %v", tc.text, err)
			continue
		}
		if src.Ref != tc.ref || src.Path != tc.path {
			t.Errorf("Parse(%q) = ref %q path %q, want %q %q", tc.text, src.Ref, src.Path, tc.ref, tc.path)
		}
		if got := github.NewRemote(src).Range(); got != tc.rng {
			t.Errorf("Parse(%q): Range() = %q, want %q", tc.text, got, tc.rng)
		}
	}
	for _, text := range []string{"o/r@^^1", "o/r@>=one", "o/r@^1\x00", "o/r@^" + strings.Repeat("1", 600), "https://github.com/o/r/tree/^^1"} {
		if _, err := github.Parse(text); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "version range") {
			t.Errorf("Parse(%.40q) = %v, want source.ErrInvalid about the version range", text, err)
		}
	}
}

// Rule 15: a range is resolved from one listing of the tags, paginated,
// with the token, and nothing else.
func TestResolveRange(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	f.token = "tok"
	list := make([]string, 0, 250)
	for i := range 240 {
		list = append(list, fmt.Sprintf("v0.%d.0", i))
	}
	list = append(list, repoTags...)
	f.serveTags(list, nil)
	for _, tc := range []struct {
		text, tag string
	}{
		{"o/r@^1.2", "v1.4.2"},
		{"o/r/skills/pdf@~1.2", "v1.2.9"},
		{"o/r@>=1.0 <2", "v1.4.2"},
		{"o/r@^1.5.0-rc.0", "v1.5.0-rc.1"},
		{"o/r@~0.17", "v0.17.0"},
		{"https://github.com/o/r/tree/^1.2/skills/pdf", "v1.4.2"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			f.requests = nil
			src, err := github.Parse(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			r := github.NewRemote(src, github.WithAPIURL(f.api.URL), github.WithToken("tok"))
			if r.Version() != "" {
				t.Errorf("Version() before Resolve = %q", r.Version())
			}
			pin, err := r.Resolve(t.Context())
			want := tagCommit(indexOf(list, tc.tag))
			if err != nil || pin != want {
				t.Fatalf("Resolve(%q) = %q, %v, want %s (%s)", tc.text, pin, err, want, tc.tag)
			}
			if r.Version() != tc.tag {
				t.Errorf("Version() = %q, want %q", r.Version(), tc.tag)
			}
			var pages []string
			for _, req := range f.seen() {
				if req.Auth != "Bearer tok" {
					t.Errorf("%s sent without the token", req.Path)
				}
				pages = append(pages, req.Path+"?"+req.Query)
			}
			wantPages := []string{"/repos/o/r/tags?per_page=100&page=1", "/repos/o/r/tags?per_page=100&page=2", "/repos/o/r/tags?per_page=100&page=3"}
			if strings.Join(pages, " ") != strings.Join(wantPages, " ") {
				t.Errorf("requests = %q, want %q", pages, wantPages)
			}
		})
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Rule 15: a ref that is no range is looked up as before, with no listing.
func TestResolveTagIsNoRange(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	f.serveTags(repoTags, nil)
	src, _ := github.Parse("o/r@v1")
	r := github.NewRemote(src, github.WithAPIURL(f.api.URL), github.WithToken(""))
	pin, err := r.Resolve(t.Context())
	if err != nil || pin != commitB {
		t.Fatalf("Resolve(o/r@v1) = %q, %v, want %s", pin, err, commitB)
	}
	if r.Range() != "" || r.Version() != "" {
		t.Errorf("Range, Version = %q, %q, want none", r.Range(), r.Version())
	}
	for _, req := range f.seen() {
		if strings.HasSuffix(req.Path, "/tags") {
			t.Errorf("a tag listing for a ref that is no range: %s", req.Path)
		}
	}
}

// source.Versioned: Latest and WithRange.
func TestRemoteVersioned(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	f.serveTags(repoTags, nil)
	src, _ := github.Parse("https://github.com/o/r/tree/^1.2/skills/pdf")
	var r source.Versioned = github.NewRemote(src, github.WithAPIURL(f.api.URL), github.WithToken(""))
	tag, pin, err := r.Latest(t.Context())
	if err != nil || tag != "v2.0.0" || pin != tagCommit(indexOf(repoTags, "v2.0.0")) {
		t.Errorf("Latest = %q, %q, %v, want v2.0.0 at %s", tag, pin, err, tagCommit(indexOf(repoTags, "v2.0.0")))
	}
	if got := r.WithRange("^2.0.0"); got != "o/r/skills/pdf@^2.0.0" {
		t.Errorf("WithRange = %q, want o/r/skills/pdf@^2.0.0", got)
	}
	back, err := github.Parse(r.WithRange(">=2 <3"))
	if err != nil || back.Ref != ">=2 <3" || back.Path != "skills/pdf" {
		t.Errorf("Parse(WithRange) = %+v, %v", back, err)
	}

	f.serveTags([]string{"main", "v1"}, nil)
	if _, _, err := r.Latest(t.Context()); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Latest without version tags = %v, want source.ErrNotFound", err)
	}
}

// Rule 15: what fails, and how.
func TestResolveRangeErrors(t *testing.T) {
	json100 := func(w http.ResponseWriter, n int) {
		var b strings.Builder
		b.WriteString("[")
		for i := range 100 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"v%d.%d.0","commit":{"sha":"%s"}}`, n, i, tagCommit(i))
		}
		b.WriteString("]")
		w.Write([]byte(b.String()))
	}
	for _, tc := range []struct {
		name    string
		text    string
		tags    []string
		page    func(w http.ResponseWriter, n int)
		setup   func(f *fakeGitHub)
		want    error
		wantMsg []string
	}{
		{name: "nothing admitted", text: "o/r@^3", tags: repoTags, want: source.ErrNotFound,
			wantMsg: []string{`"^3"`, "o/r", "highest: v2.0.0, v1.5.0-rc.1, v1.4.2"}},
		{name: "no tags", text: "o/r@^1", tags: nil, want: source.ErrNotFound, wantMsg: []string{"none of the 0 tags"}},
		{name: "pre-release only when named", text: "o/r@^1.5", tags: []string{"v1.5.0-rc.1"}, want: source.ErrNotFound},
		{name: "endless pages", text: "o/r@^1", page: json100, want: source.ErrInvalid, wantMsg: []string{"more than 20000 tags", "name a tag or a commit"}},
		{name: "not JSON", text: "o/r@^1", page: func(w http.ResponseWriter, _ int) { w.Write([]byte("<html>")) }, wantMsg: []string{"not a tag listing"}},
		{name: "huge page", text: "o/r@^1", page: func(w http.ResponseWriter, _ int) {
			w.Write([]byte("[" + strings.Repeat(" ", 5<<20) + "]"))
		}, wantMsg: []string{"larger than"}},
		{name: "bad commit", text: "o/r@^1", page: func(w http.ResponseWriter, _ int) {
			w.Write([]byte(`[{"name":"v1.0.0","commit":{"sha":"../../etc"}}]`))
		}, wantMsg: []string{"not a commit id"}},
		{name: "unknown repository", text: "o/none@^1", tags: repoTags, want: source.ErrNotFound},
		{name: "rate limited", text: "o/r@^1", tags: repoTags, setup: func(f *fakeGitHub) { f.limited = true }, want: source.ErrRateLimited},
		{name: "token refused", text: "o/r@^1", tags: repoTags, setup: func(f *fakeGitHub) { f.token = "other" }, want: source.ErrAuthRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.addRepo(t, "o", "r", sampleRepo()...)
			f.serveTags(tc.tags, tc.page)
			if tc.setup != nil {
				tc.setup(f)
			}
			src, err := github.Parse(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.client(t).Resolve(t.Context(), src)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("Resolve(%q) = %v, want %v", tc.text, err, tc.want)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Resolve(%q) = %q, want it to say %q", tc.text, err, w)
				}
			}
			if n := len(f.seen()); n > version.MaxTags/100+2 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

// Rules 15 and 17: Latest of an Enterprise source lists the tags of its
// host with its host's token; github.com (here GITHUB_API_URL's stand-in,
// holding a repository of the same name) is never asked, and a client of
// another host refuses Tags.
func TestRemoteLatestEnterprise(t *testing.T) {
	const dotcomToken, gheToken = "ghp_dotcom", "ghe_enterprise"
	ghe := newFake(t)
	ghe.addRepo(t, "o", "r", sampleRepo()...)
	ghe.token = gheToken
	ghe.serveTags([]string{"v1.0.0", "v1.2.0"}, nil)
	dotcom := newFake(t)
	dotcom.addRepo(t, "o", "r", sampleRepo()...)
	dotcom.serveTags([]string{"v9.0.0"}, nil)
	host, client := enterprise(t, ghe)
	t.Setenv("GITHUB_API_URL", dotcom.api.URL)
	t.Setenv("GITHUB_TOKEN", dotcomToken)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GH_ENTERPRISE_TOKEN", gheToken)
	t.Setenv("GITHUB_ENTERPRISE_TOKEN", "")
	t.Setenv("GH_HOST", host)
	src, err := github.Parse("https://" + host + "/o/r/tree/^1")
	if err != nil {
		t.Fatal(err)
	}
	tag, pin, err := github.NewRemote(src, github.WithHTTPClient(client)).Latest(t.Context())
	if err != nil || tag != "v1.2.0" || pin != tagCommit(1) {
		t.Errorf("Latest = %q, %q, %v; want v1.2.0 of the Enterprise host at %s", tag, pin, err, tagCommit(1))
	}
	if n := len(dotcom.seen()); n != 0 {
		t.Errorf("github.com's stand-in saw %d requests for an Enterprise source, want none", n)
	}
	c, err := github.New(github.WithHTTPClient(client))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tags(t.Context(), src); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Tags of an Enterprise source by github.com's client = %v, want ErrInvalid", err)
	}
	if n := len(dotcom.seen()); n != 0 {
		t.Errorf("github.com's stand-in saw %d requests for an Enterprise source, want none", n)
	}
}
