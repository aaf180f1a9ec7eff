package search_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentadaptor/agentadaptor/search"
)

// fixed is a backend that answers its results, and err.
type fixed struct {
	name    string
	results []search.Result
	err     error
}

func (f fixed) Name() string { return f.name }

func (f fixed) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	return f.results[:min(limit, len(f.results))], f.err
}

// blocked is a backend that answers only when its context ends.
type blocked struct{}

func (blocked) Name() string { return "slow" }

func (blocked) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func result(name, src, description string) search.Result {
	return search.Result{Name: name, Source: src, Description: description, Install: "agentskills add " + src}
}

func sources(res *search.Results) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.Source)
	}
	return out
}

func equal(a, b []string) bool { return slices.Equal(a, b) }

func TestRanking(t *testing.T) {
	first := fixed{name: "first", results: []search.Result{
		result("other", "a/other", "says pdf in its description"),
		result("pdf-tools", "a/pdf-tools", ""),
		result("nothing", "a/nothing", "matched by GitHub on text not seen"),
		result("PDF", "a/pdf", ""),
		result("make-pdf-forms", "a/forms", ""),
	}}
	second := fixed{name: "second", results: []search.Result{
		result("pdf", "b/pdf", ""),
		result("pdf-maker", "b/pdf-maker", ""),
		result("forms-for-pdf", "b/forms-pdf", ""),
	}}
	for _, tc := range []struct {
		name     string
		query    string
		backends []search.Backend
		want     []string
	}{
		{"exact name, then name holds, then description, then the rest; ties in backend order", "pdf",
			[]search.Backend{first, second},
			[]string{"a/pdf", "b/pdf", "a/pdf-tools", "a/forms", "b/pdf-maker", "b/forms-pdf", "a/other", "a/nothing"}},
		{"the backends' order decides ties", "pdf",
			[]search.Backend{second, first},
			[]string{"b/pdf", "a/pdf", "b/pdf-maker", "b/forms-pdf", "a/pdf-tools", "a/forms", "a/other", "a/nothing"}},
		{"every word in the name before the description", "forms pdf",
			[]search.Backend{first, second},
			[]string{"a/forms", "b/forms-pdf", "a/other", "a/pdf-tools", "a/nothing", "a/pdf", "b/pdf", "b/pdf-maker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := search.Search(t.Context(), tc.query, tc.backends)
			if err != nil {
				t.Fatal(err)
			}
			if got := sources(res); !equal(got, tc.want) {
				t.Errorf("Search(%q) = %q, want %q", tc.query, got, tc.want)
			}
		})
	}
}

func TestDeduplicated(t *testing.T) {
	a := fixed{name: "a", results: []search.Result{result("skills", "Acme/Skills", "found by topic"), result("x", "oci://h/x:1", "")}}
	b := fixed{name: "b", results: []search.Result{result("skills", "acme/skills", "found by code"), result("x", "oci://h/X:1", ""), result("x", "oci://h/x:1", "")}}
	res, err := search.Search(t.Context(), "skills", []search.Backend{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sources(res), []string{"Acme/Skills", "oci://h/x:1", "oci://h/X:1"}; !equal(got, want) {
		t.Errorf("Search = %q, want %q", got, want)
	}
}

func TestLimit(t *testing.T) {
	var many []search.Result
	for i := range 1500 {
		many = append(many, result("pdf", "a/pdf"+strings.Repeat("x", i%50)+string(rune('a'+i%26))+strings.Repeat("y", i/50), ""))
	}
	b := fixed{name: "many", results: many}
	for _, tc := range []struct {
		opt  search.Option
		want int
	}{
		{nil, search.DefaultLimit},
		{search.WithLimit(0), search.DefaultLimit},
		{search.WithLimit(-3), search.DefaultLimit},
		{search.WithLimit(5), 5},
		{search.WithLimit(5000), search.MaxLimit},
	} {
		res, err := search.Search(t.Context(), "pdf", []search.Backend{b}, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != tc.want {
			t.Errorf("Search = %d results, want %d", len(res.Results), tc.want)
		}
	}
}

func TestFailingBackendsAreWarnings(t *testing.T) {
	boom := errors.New("boom")
	backends := []search.Backend{
		fixed{name: "broken", err: boom},
		blocked{},
		fixed{name: "partial", results: []search.Result{result("pdf", "p/pdf", "")}, err: boom},
		fixed{name: "good", results: []search.Result{result("pdf", "g/pdf", "")}},
	}
	res, err := search.Search(t.Context(), "pdf", backends, search.WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sources(res), []string{"p/pdf", "g/pdf"}; !equal(got, want) {
		t.Errorf("Search = %q, want %q", got, want)
	}
	var names []string
	for _, w := range res.Warnings {
		names = append(names, w.Backend)
	}
	if want := []string{"broken", "slow", "partial"}; !equal(names, want) {
		t.Fatalf("warnings = %v, want from %q", res.Warnings, want)
	}
	if !errors.Is(res.Warnings[0], boom) || !strings.HasPrefix(res.Warnings[0].Error(), "broken: ") {
		t.Errorf("warning = %v, want boom, naming the backend", res.Warnings[0])
	}
	if w := res.Warnings[1]; !errors.Is(w, context.DeadlineExceeded) || !strings.Contains(w.Error(), "no answer within 50ms") {
		t.Errorf("warning = %v, want no answer within 50ms", w)
	}
}

func TestSlowGitHub(t *testing.T) {
	f := newFakeGitHub(t)
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		<-r.Context().Done()
		return true
	}
	res, err := search.Search(t.Context(), "pdf", []search.Backend{gitHubBackend(t, f, "")}, search.WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "no answer within 50ms") {
		t.Errorf("Search warnings = %v, want GitHub's no answer within 50ms", res.Warnings)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := search.Search(ctx, "pdf", []search.Backend{blocked{}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search(canceled) = %v, want context.Canceled", err)
	}
}

func TestQuery(t *testing.T) {
	called := false
	spy := spyBackend{&called}
	for _, tc := range []struct {
		name, query string
		ok          bool
	}{
		{"plain", "pdf forms", true},
		{"unicode", "éclair", true},
		{"longest", strings.Repeat("a", search.MaxQuery), true},
		{"empty", "", false},
		{"spaces", "  \t", false},
		{"too long", strings.Repeat("a", search.MaxQuery+1), false},
		{"newline", "pdf\nrm", false},
		{"escape", "pdf\x1b[2J", false},
		{"bidi", "pdf\u202e", false},
		{"not utf-8", "pdf\xff", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called = false
			_, err := search.Search(t.Context(), tc.query, []search.Backend{spy})
			if tc.ok != (err == nil) || !tc.ok && (!errors.Is(err, search.ErrInvalidQuery) || called) {
				t.Errorf("Search(%q) = %v (backend called: %v), want ok %v", tc.query, err, called, tc.ok)
			}
		})
	}
}

type spyBackend struct{ called *bool }

func (spyBackend) Name() string { return "spy" }

func (s spyBackend) Search(context.Context, string, int) ([]search.Result, error) {
	*s.called = true
	return nil, nil
}

func TestDescriptionCut(t *testing.T) {
	long := strings.Repeat("é", 5000)
	res, err := search.Search(t.Context(), "pdf", []search.Backend{fixed{name: "x", results: []search.Result{result("pdf", "a/pdf", long)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := []rune(res.Results[0].Description); len(got) != 1024 || got[1023] != '…' {
		t.Errorf("description has %d characters, want 1024 ending in …", len(got))
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		query, name, description, src string
		want                          bool
	}{
		{"pdf", "PDF-tools", "", "", true},
		{"fill forms", "pdf", "Fills PDF FORMS", "", true},
		{"acme pdf", "pdf", "", "oci://ghcr.io/acme/pdf:1", true},
		{"pdf word", "pdf", "", "", false},
		{"", "pdf", "", "", false},
	} {
		if got := search.Matches(tc.query, tc.name, tc.description, tc.src); got != tc.want {
			t.Errorf("Matches(%q, %q, %q, %q) = %v, want %v", tc.query, tc.name, tc.description, tc.src, got, tc.want)
		}
	}
}

// gate is a backend that counts how many of its kind run at once and
// waits for release.
type gate struct {
	active, most *atomic.Int32
	release      chan struct{}
}

func (gate) Name() string { return "gate" }

func (g gate) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	n := g.active.Add(1)
	for {
		m := g.most.Load()
		if n <= m || g.most.CompareAndSwap(m, n) {
			break
		}
	}
	<-g.release
	g.active.Add(-1)
	return nil, nil
}

func TestAtMostFourBackendsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := gate{active: new(atomic.Int32), most: new(atomic.Int32), release: make(chan struct{})}
		backends := make([]search.Backend, 9)
		for i := range backends {
			backends[i] = g
		}
		done := make(chan error)
		go func() {
			_, err := search.Search(t.Context(), "pdf", backends)
			done <- err
		}()
		synctest.Wait()
		if n := g.active.Load(); n != 4 {
			t.Errorf("%d backends run at once, want 4", n)
		}
		close(g.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if m := g.most.Load(); m != 4 {
			t.Errorf("at most %d backends ran at once, want 4", m)
		}
	})
}
