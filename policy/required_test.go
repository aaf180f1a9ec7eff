package policy_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/policy"
)

// Rules 23 to 25: required entries are read with their references,
// agents and reasons, and located by file and line.
func TestRequired(t *testing.T) {
	dir := t.TempDir()
	name := writePolicy(t, dir, `version: 1
required:
  - source: github:acme/skills/changelog@^1
    agents: [claude-code, codex]
    reason: every project keeps a changelog
  - source: git+https://git.acme.corp/skills.git#ref=v2.1.0&path=review
  - source: oci://ghcr.io/acme/lint:~1.2
  - source: github:acme/any
`)
	p, err := policy.Load("", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.Requirement{
		{Rule: policy.Rule{Name: "required[1]", File: name, Line: 3}, Source: "github:acme/skills/changelog@^1", Ref: "^1", Agents: []string{"claude-code", "codex"}, Reason: "every project keeps a changelog", Project: true},
		{Rule: policy.Rule{Name: "required[2]", File: name, Line: 6}, Source: "git+https://git.acme.corp/skills.git#ref=v2.1.0&path=review", Ref: "v2.1.0", Project: true},
		{Rule: policy.Rule{Name: "required[3]", File: name, Line: 7}, Source: "oci://ghcr.io/acme/lint:~1.2", Ref: "~1.2", Project: true},
		{Rule: policy.Rule{Name: "required[4]", File: name, Line: 8}, Source: "github:acme/any", Project: true},
	}
	if diff := cmp.Diff(want, p.Required()); diff != "" {
		t.Errorf("Required() (-want +got):\n%s", diff)
	}
}

// Rule 26: both files' entries apply, the user's first, also when both
// name one source.
func TestRequiredBothFiles(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writePolicy(t, home, "version: 1\nrequired:\n  - source: github:acme/skills/changelog@^1\n")
	writePolicy(t, project, "version: 1\nrequired:\n  - source: github:acme/skills/changelog@>=1.2\n  - source: github:acme/review\n")
	p, err := policy.Load(home, project)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Required() {
		got = append(got, r.Source+" "+r.Ref+" "+filepath.Base(filepath.Dir(filepath.Dir(r.File))))
	}
	want := []string{
		"github:acme/skills/changelog@^1 ^1 " + filepath.Base(home),
		"github:acme/skills/changelog@>=1.2 >=1.2 " + filepath.Base(project),
		"github:acme/review  " + filepath.Base(project),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Required() (-want +got):\n%s", diff)
	}
}

// Rules 1 and 23 to 25: a wrong entry is an error naming the file and
// the line, and saying what to write.
func TestRequiredErrors(t *testing.T) {
	tests := []struct {
		name, body string
		line       string
		want       string
	}{
		{"not a list", "required: github:acme/x\n", ":2:", "must be a list"},
		{"unknown key", "required:\n  - source: github:acme/x\n    agent: [codex]\n", ":4:", `unknown key "agent"`},
		{"no source", "required:\n  - reason: because\n", ":3:", "has no source"},
		{"empty source", "required:\n  - source: ''\n", ":3:", "is empty"},
		{"folder", "required:\n  - source: ./skills/x\n", ":3:", "published one"},
		{"url", "required:\n  - source: https://skills.acme.corp/x.tgz\n", ":3:", "published one"},
		{"bare github", "required:\n  - source: acme/x\n", ":3:", "published one"},
		{"branch", "required:\n  - source: github:acme/x@main\n", ":3:", "never a branch or a commit"},
		{"commit", "required:\n  - source: github:acme/x@0123456789abcdef0123456789abcdef01234567\n", ":3:", "never a branch or a commit"},
		{"oci digest", "required:\n  - source: oci://ghcr.io/acme/x@sha256:" + strings.Repeat("a", 64) + "\n", ":3:", "names the digest"},
		{"oci no repo", "required:\n  - source: oci://ghcr.io\n", ":3:", "want oci://HOST/REPO"},
		{"bad range", "required:\n  - source: github:acme/x@^1.x.y.z\n", ":3:", "range"},
		{"bad git range", "required:\n  - source: git+https://git.acme.corp/x.git#ref=>=1 <<2\n", ":3:", "range"},
		{"bad github form", "required:\n  - source: github:acme\n", ":3:", "OWNER/REPO"},
		{"unknown agent", "required:\n  - source: github:acme/x\n    agents: [claude-code, clod]\n", ":4:", `"clod" is not an agent`},
		{"empty agents", "required:\n  - source: github:acme/x\n    agents: []\n", ":4:", "agents is empty"},
		{"agent twice", "required:\n  - source: github:acme/x\n    agents: [codex, codex]\n", ":4:", "twice"},
		{"agents not a list", "required:\n  - source: github:acme/x\n    agents: codex\n", ":4:", "must be a list"},
		{"reason not text", "required:\n  - source: github:acme/x\n    reason: [a]\n", ":4:", "must be a string"},
		{"reason control", "required:\n  - source: github:acme/x\n    reason: \"a\\u202eb\"\n", ":4:", "invisible"},
		{"twice", "required:\n  - source: github:acme/x@^1\n  - source: github:acme/x@^1\n", ":4:", "keep one entry per source"},
		{"entry not a mapping", "required:\n  - github:acme/x\n", ":3:", "must be a mapping"},
		{"git ref twice", "required:\n  - source: git+https://h.example/r.git#ref=^1&ref=^2\n", ":3:", "names ref 2 times"},
		{"git path twice", "required:\n  - source: git+https://h.example/r.git#path=a&path=b\n", ":3:", "names path 2 times"},
		{"git query", "required:\n  - source: git+https://h.example/r.git?ref=v9.0.0#ref=^1\n", ":3:", "has a query"},
		{"git empty query", "required:\n  - source: git+https://h.example/r.git?#ref=^1\n", ":3:", "has a query"},
		{"git path climbs", "required:\n  - source: git+https://h.example/r.git#ref=^1&path=a/../../x\n", ":3:", "climbs out"},
		{"git semicolon", "required:\n  - source: git+https://h.example/r.git#ref=^1;path=x\n", ":3:", "is not ref=REF&path=PATH"},
		{"git other key", "required:\n  - source: git+https://h.example/r.git#ref=^1&sha=x\n", ":3:", `names "sha"`},
		{"git password", "required:\n  - source: git+https://bob:s3cr3t@git.acme.corp/skills.git#ref=^1\n", ":3:", "holds a password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := writePolicy(t, dir, "version: 1\n"+tt.body)
			_, err := policy.Load("", dir)
			if !errors.Is(err, policy.ErrInvalid) {
				t.Fatalf("Load(%q) = %v, want ErrInvalid", tt.body, err)
			}
			if !strings.Contains(err.Error(), name+tt.line) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%q) = %v, want %s%s and %q", tt.body, err, name, tt.line, tt.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("Load(%q) = %v, which shows the password", tt.body, err)
			}
		})
	}
}

// Rule 24: which installed versions meet a requirement.
func TestRequirementAdmits(t *testing.T) {
	tests := []struct {
		ref, tag string
		want     bool
	}{
		{"", "", true},
		{"", "v9.0.0", true},
		{"^1", "v1.4.0", true},
		{"^1", "v2.0.0", false},
		{"^1", "", false},
		{"^1", "main", false},
		{">=1.2 <2", "1.2.0", true},
		{">=1.2 <2", "v1.1.9", false},
		{"v1.2.3", "v1.2.3", true},
		{"v1.2.3", "1.2.3", true},
		{"v1.2.3", "v1.2.4", false},
		{"v1.2.3", "", false},
	}
	for _, tt := range tests {
		r := policy.Requirement{Ref: tt.ref}
		if got := r.Admits(tt.tag); got != tt.want {
			t.Errorf("Requirement{Ref: %q}.Admits(%q) = %v, want %v", tt.ref, tt.tag, got, tt.want)
		}
	}
}
