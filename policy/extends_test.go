package policy_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// fetcher serves policy files by source, pinned "pin-SOURCE", and
// records the requests.
type fetcher struct {
	files map[string]string
	reqs  []policy.ExtendsRequest
}

func (f *fetcher) opts() policy.LoadOptions {
	return policy.LoadOptions{Extends: func(r policy.ExtendsRequest) (policy.Extended, error) {
		f.reqs = append(f.reqs, r)
		data, ok := f.files[r.Source]
		if !ok {
			return policy.Extended{}, fmt.Errorf("%s: not found", r.Source)
		}
		return policy.Extended{Data: []byte(data), Source: r.Source, Pin: "pin-" + r.Source, Digest: "sha256:x"}, nil
	}}
}

func TestExtendsChainApplies(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writePolicy(t, home, "version: 1\nextends: oci://reg.example/acme/user-policy:1\n")
	proj := writePolicy(t, project, "version: 1\nextends: team\nsources:\n  allow: [github:acme/*]\n")
	f := &fetcher{files: map[string]string{
		"oci://reg.example/acme/user-policy:1": "version: 1\naudit:\n  fail_on: critical\n",
		"team":                                 "version: 1\nextends: company\nsources:\n  allow: [github:acme/tools, github:acme/docs]\n",
		"company":                              "version: 1\nsources:\n  allow: [github:acme/tools]\n  pinned: true\naudit:\n  fail_on: medium\n",
	}}
	p, err := policy.LoadWith(home, project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	// The company's allow is the narrowest; its pinned and fail_on hold.
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "acme/docs", Pinned: true, Display: "acme/docs"}); !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "company@pin-company:3") {
		t.Errorf("Check(acme/docs) = %v, want denied by company@pin-company:3", err)
	}
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "acme/tools", Pinned: true, Display: "acme/tools"}); err != nil {
		t.Errorf("Check(acme/tools) = %v", err)
	}
	if p.FailOn() != audit.Medium || p.FailOnRule().File != "company@pin-company" {
		t.Errorf("FailOn = %v by %v, want medium by the company's file", p.FailOn(), p.FailOnRule())
	}
	// The requests say which chain each is of, and who names it.
	var users []bool
	for _, r := range f.reqs {
		users = append(users, r.User)
	}
	if !slices.Equal(users, []bool{true, false, false}) || f.reqs[2].By.File != "team@pin-team" || f.reqs[2].By.Line != 2 || !slices.Equal(f.reqs[2].Chain, []string{proj, "team@pin-team"}) {
		t.Errorf("requests = %+v", f.reqs)
	}
	// Layers: the user's chain, then the project's, the file extended last first.
	var files []string
	for _, l := range p.Layers() {
		files = append(files, l.File)
	}
	want := []string{"oci://reg.example/acme/user-policy:1@pin-oci://reg.example/acme/user-policy:1", home + "/.agents/" + policy.FileName, "company@pin-company", "team@pin-team", proj}
	if !slices.Equal(files, want) {
		t.Errorf("Layers = %v, want %v", files, want)
	}
	// A user's extended file refuses as the user (rule 16).
	if _, ok := p.UserRefusal(audit.Finding{Rule: "download-exec", Severity: audit.Critical}, "x", source.Origin{Kind: source.Inline}); !ok {
		t.Error("the user's extended file's fail_on is not the user's")
	}
	// Entries: provenance of each rule.
	var got []string
	for _, e := range p.Entries() {
		if e.File == "company@pin-company" {
			got = append(got, fmt.Sprintf("%s:%d %s [%s]", e.Name, e.Line, e.Value, strings.Join(e.Chain, " > ")))
		}
	}
	wantE := []string{
		"sources.allow:3 github:acme/tools [" + proj + " > team@pin-team > company@pin-company]",
		"sources.pinned:4 true [" + proj + " > team@pin-team > company@pin-company]",
		"audit.fail_on:6 medium [" + proj + " > team@pin-team > company@pin-company]",
	}
	if !slices.Equal(got, wantE) {
		t.Errorf("Entries of the company's file = %q, want %q", got, wantE)
	}
}

func TestExtendsLoosenings(t *testing.T) {
	project := t.TempDir()
	writePolicy(t, project, `version: 1
extends: team
sources:
  allow: [github:acme/tools, "github:*/*", "github:acme/tool?", github:acme/x]
  pinned: false
audit:
  fail_on: critical
  accept:
    - rule: reverse-shell
      reason: ours
`)
	f := &fetcher{files: map[string]string{"team": "version: 1\nsources:\n  allow: [github:acme/*]\n  pinned: true\naudit:\n  fail_on: medium\n"}}
	p, err := policy.LoadWith("", project, f.opts())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range p.Loosenings() {
		got = append(got, fmt.Sprintf("%s:%d", l.Name, l.Line))
		if l.Base.File != "team@pin-team" || l.Reason == "" {
			t.Errorf("loosening %v names no base rule", l)
		}
	}
	want := []string{"audit.fail_on:7", "sources.pinned:5", "sources.allow:4", "audit.accept[1]:9"}
	if !slices.Equal(got, want) {
		t.Errorf("Loosenings = %q, want %q", got, want)
	}
	// Without effect: the team's rules hold.
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "evil/x", Pinned: true, Display: "evil/x"}); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("Check(evil/x) = %v, want denied", err)
	}
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "acme/tools", Display: "acme/tools"}); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("Check(unpinned acme/tools) = %v, want denied by the team's sources.pinned", err)
	}
	if p.FailOn() != audit.Medium {
		t.Errorf("FailOn = %v, want medium", p.FailOn())
	}
	if p.Accepted(audit.Finding{Rule: "reverse-shell", Severity: audit.Critical}, "x", source.Origin{Kind: source.Inline}) {
		t.Error("the project's acceptance lifted the team's refusal")
	}
}

func TestExtendsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		files      map[string]string
		want       string
	}{
		{"cycle", "version: 1\nextends: a\n", map[string]string{"a": "version: 1\nextends: b\n", "b": "version: 1\nextends: a\n"}, "b@pin-b:2: extends \"a\", which the chain holds already"},
		{"self", "version: 1\nextends: a\n", map[string]string{"a": "version: 1\nextends: a\n"}, "which the chain holds already"},
		{"too long", "version: 1\nextends: f0\n", chainOf(9), "longer than 8"},
		{"relative key", "version: 1\nextends: a\n", map[string]string{"a": "version: 1\nsigners:\n  - sources: [oci:r.example/*]\n    keys: [keys/k.pub]\n"}, "a@pin-a:4"},
		{"relative local pattern", "version: 1\nextends: a\n", map[string]string{"a": "version: 1\nsources:\n  allow: [local:skills/**]\n"}, "has no folder"},
		{"invalid extended", "version: 1\nextends: a\n", map[string]string{"a": "version: 1\nsources:\n  pinnd: true\n"}, "a@pin-a:3"},
		{"not a string", "version: 1\nextends: [a, b]\n", nil, "extends must be a string"},
		{"two sources", "version: 1\nextends: a b\n", nil, "white space"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			writePolicy(t, project, tc.file)
			f := &fetcher{files: tc.files}
			_, err := policy.LoadWith("", project, f.opts())
			if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadWith = %v, want ErrInvalid with %q", err, tc.want)
			}
		})
	}
	// Eight files extended is the limit, and allowed.
	project := t.TempDir()
	writePolicy(t, project, "version: 1\nextends: f0\n")
	if _, err := policy.LoadWith("", project, (&fetcher{files: chainOf(8)}).opts()); err != nil {
		t.Errorf("a chain of 8 = %v", err)
	}
	// Load and Parse fetch nothing: a file that extends is refused.
	if _, err := policy.Load("", project); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "LoadPolicy") {
		t.Errorf("Load of a file that extends = %v, want ErrInvalid", err)
	}
	if _, err := policy.Parse([]byte("version: 1\nextends: a\n"), "p.yaml"); !errors.Is(err, policy.ErrInvalid) {
		t.Errorf("Parse of a file that extends = %v, want ErrInvalid", err)
	}
	// A fetch that fails names the extends line.
	writePolicy(t, project, "version: 1\n\nextends: missing\n")
	if _, err := policy.LoadWith("", project, (&fetcher{}).opts()); err == nil || !strings.Contains(err.Error(), policy.FileName+":3: extends \"missing\"") {
		t.Errorf("LoadWith of a missing file = %v", err)
	}
}

// chainOf returns n files f0 .. f(n-1), each extending the next.
func chainOf(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("f%d", i)] = fmt.Sprintf("version: 1\nextends: f%d\n", i+1)
	}
	m[fmt.Sprintf("f%d", n-1)] = "version: 1\n"
	return m
}
