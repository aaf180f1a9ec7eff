package source_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
)

// parseCases are the rules of Parse (package doc, rules 16 to 21), one
// text each; they seed FuzzParse too.
var parseCases = []struct {
	name string
	text string
	want source.Spec
}{
	// Rule 16.
	{"oci tag", "oci://ghcr.io/acme/skills:v1", source.Spec{Kind: source.OCI, Text: "oci://ghcr.io/acme/skills:v1"}},
	{"oci digest", "oci://ghcr.io/acme/skills@sha256:" + strings.Repeat("a", 64), source.Spec{Kind: source.OCI, Text: "oci://ghcr.io/acme/skills@sha256:" + strings.Repeat("a", 64)}},
	// Rule 17.
	{"git+https", "git+https://git.example.org/team/skills.git#ref=v1&path=skills", source.Spec{Kind: source.Git, Text: "git+https://git.example.org/team/skills.git#ref=v1&path=skills"}},
	{"git+ssh", "git+ssh://git@host/repo", source.Spec{Kind: source.Git, Text: "git+ssh://git@host/repo"}},
	{"git+file", "git+file:///srv/repos/x", source.Spec{Kind: source.Git, Text: "git+file:///srv/repos/x"}},
	// Rule 18.
	{"github prefix", "github:acme/tools/skills@v1", source.Spec{Kind: source.GitHub, Text: "acme/tools/skills@v1"}},
	{"github prefix over a path", "github:./x", source.Spec{Kind: source.GitHub, Text: "./x"}},
	// Rule 19.1.
	{"github.com repository", "https://github.com/acme/tools", source.Spec{Kind: source.GitHub, Text: "https://github.com/acme/tools"}},
	{"github.com tree", "https://github.com/acme/tools/tree/main/skills", source.Spec{Kind: source.GitHub, Text: "https://github.com/acme/tools/tree/main/skills"}},
	{"github.com other page", "https://github.com/acme/tools/releases/download/v1/kit", source.Spec{Kind: source.URL, Text: "https://github.com/acme/tools/releases/download/v1/kit"}},
	{"github.com pinned archive", "https://github.com/acme/tools#sha256=" + strings.Repeat("A", 64), source.Spec{Kind: source.URL, Text: "https://github.com/acme/tools#sha256=" + strings.Repeat("A", 64), SHA256: strings.Repeat("a", 64)}},
	{"github.com over http", "http://github.com/acme/tools", source.Spec{Kind: source.URL, Text: "http://github.com/acme/tools"}},
	// Rule 19.2.
	{"archive by name", "https://git.example.org/team/skills.git/kit.tar.gz", source.Spec{Kind: source.URL, Text: "https://git.example.org/team/skills.git/kit.tar.gz"}},
	{"archive by name, any case", "https://example.org/kit.ZIP", source.Spec{Kind: source.URL, Text: "https://example.org/kit.ZIP"}},
	{"archive by digest", "https://gitlab.com/acme/tools#sha256=" + strings.Repeat("0", 64), source.Spec{Kind: source.URL, Text: "https://gitlab.com/acme/tools#sha256=" + strings.Repeat("0", 64), SHA256: strings.Repeat("0", 64)}},
	// Rule 19.3.
	{"enterprise tree", "https://ghe.example.com/acme/tools/tree/main/skills", source.Spec{Kind: source.GitHub, Text: "https://ghe.example.com/acme/tools/tree/main/skills"}},
	{"git address", "https://git.example.org/team/skills.git", source.Spec{Kind: source.Git, Text: "https://git.example.org/team/skills.git"}},
	{"gitlab tree", "https://git.example.org/group/sub/repo/-/tree/main/skills", source.Spec{Kind: source.Git, Text: "https://git.example.org/group/sub/repo/-/tree/main/skills"}},
	{"gitea branch", "https://git.example.org/acme/tools/src/branch/main/skills", source.Spec{Kind: source.Git, Text: "https://git.example.org/acme/tools/src/branch/main/skills"}},
	{"bitbucket", "https://bitbucket.org/acme/tools/src/main/skills", source.Spec{Kind: source.Git, Text: "https://bitbucket.org/acme/tools/src/main/skills"}},
	{"known host page", "https://codeberg.org/acme/tools", source.Spec{Kind: source.Git, Text: "https://codeberg.org/acme/tools"}},
	{"gitlab tree form is gitlab's", "https://gitlab.com/acme/tools/tree/x", source.Spec{Kind: source.Git, Text: "https://gitlab.com/acme/tools/tree/x"}},
	{"known host, not a page", "https://codeberg.org/acme/tools/raw/x", source.Spec{Kind: source.URL, Text: "https://codeberg.org/acme/tools/raw/x"}},
	{"gitlab file page", "https://gitlab.com/group/repo/-/blob/main/SKILL.md", source.Spec{Kind: source.URL, Text: "https://gitlab.com/group/repo/-/blob/main/SKILL.md"}},
	{"plain http is no repository", "http://git.example.org/team/skills.git", source.Spec{Kind: source.URL, Text: "http://git.example.org/team/skills.git"}},
	// Rule 20.
	{"site", "https://example.org", source.Spec{Kind: source.WebIndex, Text: "https://example.org"}},
	{"site folder", "https://example.org/docs/", source.Spec{Kind: source.WebIndex, Text: "https://example.org/docs/"}},
	{"index", "https://example.org/.well-known/agent-skills/index.json", source.Spec{Kind: source.WebIndex, Text: "https://example.org/.well-known/agent-skills/index.json"}},
	{"index with a fragment", "https://example.org/#sha256=" + strings.Repeat("0", 64), source.Spec{Kind: source.WebIndex, Text: "https://example.org/#sha256=" + strings.Repeat("0", 64)}},
	{"archive url", "https://example.org/kit", source.Spec{Kind: source.URL, Text: "https://example.org/kit"}},
	// Rule 21.
	{"relative folder", "./skills/review", source.Spec{Kind: source.Local, Text: "./skills/review"}},
	{"absolute folder", "/srv/skills", source.Spec{Kind: source.Local, Text: "/srv/skills"}},
	{"home", "~/skills", source.Spec{Kind: source.Local, Text: "~/skills"}},
	{"parent", "../skills", source.Spec{Kind: source.Local, Text: "../skills"}},
	{"one name", "skills", source.Spec{Kind: source.Local, Text: "skills"}},
	{"empty", "", source.Spec{Kind: source.Local, Text: ""}},
	{"archive file", "kit.zip", source.Spec{Kind: source.Local, Text: "kit.zip"}},
	{"not github's characters", "my skills/review", source.Spec{Kind: source.Local, Text: "my skills/review"}},
	{"bare", "acme/tools", source.Spec{Kind: source.GitHub, Text: "acme/tools", Bare: true}},
	{"bare with path and ref", "acme/tools/skills/x@^1.2", source.Spec{Kind: source.GitHub, Text: "acme/tools/skills/x@^1.2", Bare: true}},
}

func TestParse(t *testing.T) {
	t.Setenv("GH_HOST", "")
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := source.Parse(tc.text)
			if err != nil || got != tc.want {
				t.Errorf("Parse(%q) = %+v, %v, want %+v", tc.text, got, err, tc.want)
			}
		})
	}
}

// TestParseGHHost: an Enterprise Server's repository address without a
// /tree/ is GitHub's only on the host $GH_HOST names (rule 19.3).
func TestParseGHHost(t *testing.T) {
	const text = "https://ghe.example.com/acme/tools"
	for _, tc := range []struct {
		env  string
		want source.Kind
	}{
		{"", source.URL},
		{"other.example.com", source.URL},
		{"GHE.example.com", source.GitHub},
	} {
		t.Setenv("GH_HOST", tc.env)
		if got, err := source.Parse(text); err != nil || got.Kind != tc.want {
			t.Errorf("with GH_HOST=%q, Parse(%q) = %+v, %v, want kind %s", tc.env, text, got, err, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"https://example.org/kit.zip#sha256=abc",
		"https://example.org/kit.zip#sha256=" + strings.Repeat("g", 64),
		"https://example.org/kit.zip#top",
		"https://exa mple.org/kit.zip",
		"https://user:secret@exa mple.org/%zz",
	} {
		got, err := source.Parse(text)
		if !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Parse(%q) = %+v, %v, want an error wrapping ErrInvalid", text, got, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q) = %v: the error shows the password", text, err)
		}
	}
}

// FuzzParse: Parse never panics, gives a known kind or an error wrapping
// ErrInvalid, and what it gives is consistent with the text.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := source.Parse(text)
		if err != nil {
			if !errors.Is(err, source.ErrInvalid) {
				t.Fatalf("Parse(%q) = %v, want an error wrapping ErrInvalid", text, err)
			}
			return
		}
		switch s.Kind {
		case source.Local, source.GitHub, source.Git, source.OCI, source.URL, source.WebIndex:
		default:
			t.Fatalf("Parse(%q).Kind = %q", text, s.Kind)
		}
		if s.Text != text && !(s.Kind == source.GitHub && source.GitHubPrefix+s.Text == text) {
			t.Fatalf("Parse(%q).Text = %q, want the text", text, s.Text)
		}
		head, _, _ := strings.Cut(text, "@")
		if elems := strings.SplitN(head, "/", 3); s.Bare && (s.Kind != source.GitHub || len(elems) < 2 || strings.ContainsAny(elems[0]+elems[1], ":\\ ")) {
			t.Fatalf("Parse(%q) = %+v: bare, but not an OWNER/REPO", text, s)
		}
		if s.SHA256 != "" && (s.Kind != source.URL || len(s.SHA256) != 64 || strings.Trim(s.SHA256, "0123456789abcdef") != "") {
			t.Fatalf("Parse(%q).SHA256 = %q", text, s.SHA256)
		}
		if s.Kind == source.GitHub && !s.Bare && !strings.HasPrefix(text, source.GitHubPrefix) {
			if again, err := source.Parse(source.GitHubPrefix + text); err != nil || again.Kind != source.GitHub {
				t.Fatalf("Parse(%q) = %+v, %v, want GitHub as %q is", source.GitHubPrefix+text, again, err, text)
			}
		}
	})
}
