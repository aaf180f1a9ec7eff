package source_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// TestCanonicalLocation checks rules 9 to 14 against hostile spellings:
// every spelling of one location gives the same canonical location, and
// one that cannot be made canonical is an error wrapping ErrInvalid.
func TestCanonicalLocation(t *testing.T) {
	tests := []struct {
		kind, in string
		want     string // "" for an error
	}{
		// oci: host canonical, 443 dropped (80 on loopback), repository lower case.
		{"oci", "ghcr.io/acme/x", "ghcr.io/acme/x"},
		{"oci", "GHCR.IO/acme/x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io:443/acme/x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io:0443/acme/x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io:000000443/acme/x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io./acme/x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io:8443/acme/x", "ghcr.io:8443/acme/x"},
		{"oci", "ghcr.io:08443/acme/x", "ghcr.io:8443/acme/x"},
		{"oci", "127.0.0.1:05000/acme/x", "127.0.0.1:5000/acme/x"},
		{"oci", "localhost:80/acme/x", "localhost/acme/x"},
		{"oci", "LocalHost:443/acme/x", "localhost:443/acme/x"},
		{"oci", "[::1]:0443/acme/x", "[::1]:443/acme/x"},
		{"oci", "[0:0:0:0:0:0:0:1]:80/acme/x", "[::1]/acme/x"},
		{"oci", "[2001:DB8::1]:443/acme/x", "[2001:db8::1]/acme/x"},
		{"oci", "bücher.example/acme/x", "xn--bcher-kva.example/acme/x"},
		{"oci", "BÜCHER.example/acme/x", "xn--bcher-kva.example/acme/x"},
		{"oci", "xn--bcher-kva.example/acme/x", "xn--bcher-kva.example/acme/x"},
		{"oci", "ＧＨＣＲ.io/acme/x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io/Acme/X", "ghcr.io/acme/x"},
		{"oci", "ghcr.io:65536/acme/x", ""},
		{"oci", "ghcr.io:0/acme/x", ""},
		{"oci", "ghcr.io:+1/acme/x", ""},
		{"oci", "ghcr.io:-1/acme/x", ""},
		{"oci", "ghcr.io: 443/acme/x", ""},
		{"oci", "ghcr.io:443x/acme/x", ""},
		{"oci", "ghcr.io:/acme/x", ""},
		{"oci", "ghcr.io:99999999999999999999/acme/x", ""},
		{"oci", ":443/acme/x", ""},
		{"oci", "::1/acme/x", ""},
		{"oci", "[::1/acme/x", ""},
		{"oci", "[fe80::1%25eth0]/acme/x", ""},
		{"oci", "[::ffff:127.0.0.1]/acme/x", ""},
		{"oci", "user@ghcr.io/acme/x", ""},
		{"oci", "gh_cr.io/acme/x", ""},
		{"oci", "ghcr..io/acme/x", ""},
		{"oci", "127.1/acme/x", ""},
		{"oci", "0x7f.1/acme/x", ""},
		{"oci", "2130706433/acme/x", ""},
		{"oci", "xn--zz.example/acme/x", ""},
		{"oci", "ghcr.io/acme/../x", ""},
		{"oci", "ghcr.io/acme/%2e%2e/x", ""},
		{"oci", "ghcr.io/acme/x%2Fy", ""},
		{"git", "git.example.org/team/%2E%2e/x", ""},
		{"oci", "ghcr.io/acme//x", "ghcr.io/acme/x"},
		{"oci", "ghcr.io", ""},
		{"oci", "ghcr.io/acme/x.git", "ghcr.io/acme/x.git"},
		// git: every default port dropped, path cleaned, case folded on the public hosts.
		{"git", "git.example.org/team/skills", "git.example.org/team/skills"},
		{"git", "GIT.example.org:443/team/skills.git/", "git.example.org/team/skills"},
		{"git", "git.example.org:22/team/skills", "git.example.org/team/skills"},
		{"git", "git.example.org:0022/team//skills", "git.example.org/team/skills"},
		{"git", "git.example.org:2222/team/skills", "git.example.org:2222/team/skills"},
		{"git", "git.example.org/Team/Skills", "git.example.org/Team/Skills"},
		{"git", "GitHub.com/Acme/Tools.git", "acme/tools"},
		{"git", "github.com:443/Acme/Tools.GIT/", "acme/tools"},
		{"git", "github.com/acme/tools/skills", ""},
		{"git", "github.com/acme", ""},
		{"git", "gitlab.com/Group/Repo.GIT", "gitlab.com/group/repo"},
		{"git", "git.example.org/team/Repo.GIT", "git.example.org/team/Repo.GIT"},
		{"git", "gitlab.com/Group/Sub/Repo", "gitlab.com/group/sub/repo"},
		{"git", "/srv/repos//acme/tools/.git", "/srv/repos/acme/tools"},
		{"git", "git.example.org/team/../evil", ""},
		{"git", "git.example.org/team/./skills", ""},
		{"git", "git.example.org/team\\skills", ""},
		{"git", "git.example.org", ""},
		{"git", "git.example.org:65536/x", ""},
		// github: OWNER/REPO, or HOST/OWNER/REPO for another host (kind git).
		{"github", "Acme/Tools", "acme/tools"},
		{"github", "github.com/Acme/Tools", "acme/tools"},
		{"github", "GHE.acme.corp:443/Acme/Tools", "ghe.acme.corp/acme/tools"},
		{"github", "ghe.acme.corp:0/acme/tools", ""},
		{"github", "acme//tools", ""},
		{"github", "github.com/ghe.acme.corp/x", ""},
		{"github", "acme/../tools", ""},
		{"github", "acme/tools/skills", ""},
		{"github", "Acme/Tools.GIT", "acme/tools"},
		// url: scheme and host canonical, no user or fragment.
		{"url", "HTTPS://Example.ORG:0443/Kit.tgz#x", "https://example.org/Kit.tgz"},
		{"url", "http://example.org:80/kit.tgz", "http://example.org/kit.tgz"},
		{"url", "https://user:pw@example.org/kit.tgz", "https://example.org/kit.tgz"},
		{"url", "https://example.org/a/%2e%2e/kit.tgz", ""},
		{"url", "https://example.org/a%2Fb/kit.tgz", ""},
		{"url", "https://example.org:65536/kit.tgz", ""},
		{"url", "ftp://example.org/kit.tgz", ""},
		// url: a path before the query, whose slashes are escaped, so
		// that no query text is a host or path element.
		{"url", "https://evil.example?.acme.corp/x.tgz", "https://evil.example/?.acme.corp%2Fx.tgz"},
		{"url", "https://evil.example:443?.acme.corp/x.tgz", "https://evil.example/?.acme.corp%2Fx.tgz"},
		{"url", "https://example.org", "https://example.org/"},
		{"url", "https://example.org/dl?file=a/b#c/d", "https://example.org/dl?file=a%2Fb"},
	}
	for _, tt := range tests {
		_, got, err := source.CanonicalLocation(source.Kind(tt.kind), tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("CanonicalLocation(%q, %q) = %q, want an error", tt.kind, tt.in, got)
		case tt.want == "" && !errors.Is(err, source.ErrInvalid):
			t.Errorf("CanonicalLocation(%q, %q) = %v, want ErrInvalid", tt.kind, tt.in, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("CanonicalLocation(%q, %q) = %q, %v; want %q", tt.kind, tt.in, got, err, tt.want)
		}
	}
}

// TestCanonicalKind checks rules 11 and 12: a github location on another
// host than github.com is kind git, at the location its git+https
// address has, and a git location on github.com is kind github.
func TestCanonicalKind(t *testing.T) {
	for _, tt := range []struct{ in, kind, loc string }{
		{"github.com/Acme/Tools.git", "github", "acme/tools"},
		{"WWW.GitHub.com:443/acme/tools", "github", "acme/tools"},
		{"git.acme.corp/acme/tools", "git", "git.acme.corp/acme/tools"},
	} {
		kind, loc, err := source.CanonicalLocation("git", tt.in)
		if err != nil || string(kind) != tt.kind || loc != tt.loc {
			t.Errorf("CanonicalLocation(git, %q) = %s, %q, %v; want %s, %q", tt.in, kind, loc, err, tt.kind, tt.loc)
		}
	}
	for _, tt := range []struct{ in, kind, loc string }{
		{"acme/tools", "github", "acme/tools"},
		{"GitHub.com:443/Acme/Tools", "github", "acme/tools"},
		{"ghe.acme.corp/Acme/Tools", "git", "ghe.acme.corp/acme/tools"},
		{"localhost:8080/acme/tools", "git", "localhost:8080/acme/tools"},
	} {
		kind, loc, err := source.CanonicalLocation("github", tt.in)
		if err != nil || string(kind) != tt.kind || loc != tt.loc {
			t.Errorf("CanonicalLocation(github, %q) = %s, %q, %v; want %s, %q", tt.in, kind, loc, err, tt.kind, tt.loc)
		}
	}
}

// TestCanonicalPattern checks rule 14: a pattern is made canonical as a
// location is, its wildcard elements kept.
func TestCanonicalPattern(t *testing.T) {
	for _, tt := range []struct{ kind, in, wantKind, want string }{
		{"oci", "GHCR.IO:443/Acme/*", "oci", "ghcr.io/acme/*"},
		{"oci", "*.acme.corp/**", "oci", "*.acme.corp/**"},
		{"oci", "[0::1]:05000/acme/*", "oci", `\[::1\]:5000/acme/*`},
		{"oci", "ghcr.io/[a-c]*/x", "oci", "ghcr.io/[a-c]*/x"},
		{"git", "**", "git", "**"},
		{"git", "git.acme.corp:0022/team//*.git", "git", "git.acme.corp/team/*"},
		{"git", "git.acme.corp/team/tools.git/", "git", "git.acme.corp/team/tools"},
		{"git", "/srv/*.git", "git", "/srv/*"},
		{"git", "/srv/**/.git", "git", "/srv/**"},
		{"git", "gitlab.com/Team/*.GIT", "git", "gitlab.com/team/*"},
		{"git", "github.com/Acme/*", "github", "acme/*"},
		{"git", "GitHub.com:443/acme/*.git", "github", "acme/*"},
		{"git", "github.com/**", "github", "**"},
		{"github", "acme/tools/**", "github", "acme/tools/**"},
		{"github", "acme/**/tools", "github", "acme/**/tools"},
		{"url", "https://*.acme.corp", "url", "https://*.acme.corp/"},
		{"url", "https://**", "url", "https://**"},
		{"git", "/srv/repos//acme/tools.git", "git", "/srv/repos/acme/tools"},
		{"github", "Acme/*", "github", "acme/*"},
		{"github", "[a-c]*/x", "github", "[a-c]*/x"},
		{"github", "**", "github", "**"},
		{"github", "GHE.acme.corp/acme/*", "git", "ghe.acme.corp/acme/*"},
		{"url", "HTTPS://Skills.Acme.Corp:443/*", "url", "https://skills.acme.corp/*"},
		{"local", "/a//b", "local", "/a//b"},
	} {
		kind, got, err := source.CanonicalPattern(source.Kind(tt.kind), tt.in)
		if err != nil || string(kind) != tt.wantKind || got != tt.want {
			t.Errorf("CanonicalPattern(%s, %q) = %s, %q, %v; want %s, %q", tt.kind, tt.in, kind, got, err, tt.wantKind, tt.want)
		}
	}
	for _, tt := range []struct{ kind, in string }{
		{"oci", "ghcr.io:0443x/acme/*"},
		{"oci", "ghcr.io/acme/../*"},
		{"git", "git.acme.corp:65536/**"},
		{"github", "acme"},
		{"github", "ghe.acme.corp/acme"},
		{"github", "acme/tools/skills/*"},
		{"github", "acme/tools/skills"},
		{"github", "ghe.acme.corp/acme/tools/skills/*"},
		{"git", "github.com/acme/tools/skills/*"},
		{"git", "github.com/acme"},
		{"url", "ftp://example.org/*"},
	} {
		if _, got, err := source.CanonicalPattern(source.Kind(tt.kind), tt.in); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("CanonicalPattern(%s, %q) = %q, %v; want ErrInvalid", tt.kind, tt.in, got, err)
		}
	}
}

// FuzzCanonicalLocation checks rules 9 to 14 on any text: no panic, a
// canonical location is its own canonical form (the policy makes a
// location canonical again before matching it), and an error wraps
// ErrInvalid.
func FuzzCanonicalLocation(f *testing.F) {
	for _, s := range []string{
		"ghcr.io:0443/acme/x", "[::1]:0443/acme/x", "bücher.example/acme/x", "ＧＨＣＲ.io/acme/x",
		"git.example.org:0022/team//skills.git/", "/srv/repos//acme/tools/.git", "GitHub.com/Acme/Tools.git",
		"ghe.acme.corp:443/Acme/Tools", "HTTPS://Example.ORG:0443/Kit.tgz#x", "ghcr.io/acme/%2e%2e/x", "0x7f.1/x",
		"https://evil.example?.acme.corp/x.tgz", "https://a.example/d?f=a/b", "www.github.com:22/Acme/Tools.GIT",
	} {
		for _, kind := range []string{"oci", "git", "github", "url"} {
			f.Add(kind, s)
		}
	}
	f.Fuzz(func(t *testing.T, kind, loc string) {
		k, got, err := source.CanonicalLocation(source.Kind(kind), loc)
		if err != nil {
			if !errors.Is(err, source.ErrInvalid) {
				t.Fatalf("CanonicalLocation(%q, %q) = %v, not ErrInvalid", kind, loc, err)
			}
			return
		}
		k2, again, err := source.CanonicalLocation(k, got)
		if err != nil || k2 != k || again != got {
			t.Fatalf("CanonicalLocation(%q, %q) = %s %q, whose own canonical form is %s %q, %v", kind, loc, k, got, k2, again, err)
		}
	})
}

// ownOrigin is an inline skill that says it comes from elsewhere.
type ownOrigin struct {
	skill.InlineSource
	origin source.Origin
}

func (s ownOrigin) Origin() source.Origin { return s.origin }

// OriginOf tells where a skill comes from: its source's own origin, a
// folder at its real path, inline, or unknown.
func TestOriginOf(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "review")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir) // t.TempDir is under a link on macOS
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	oci := source.Origin{Kind: source.OCI, Location: "ghcr.io/acme/review", Pinned: true}
	tests := []struct {
		name string
		src  skill.Source
		want source.Origin
	}{
		{"folder", skill.PathSource{Path: dir}, source.Origin{Kind: source.Local, Location: real, Display: dir}},
		{"folder through a link", skill.PathSource{Path: link}, source.Origin{Kind: source.Local, Location: real, Display: link}},
		{"inline", skill.InlineSource{SkillMD: "x"}, source.Origin{Kind: source.Inline}},
		{"own origin", ownOrigin{skill.InlineSource{SkillMD: "x"}, oci}, oci},
		{"archive", skill.ArchiveSource{Fingerprint: "f"}, source.Origin{Kind: source.Unknown, Display: "an archive without an origin (fingerprint f)"}},
		{"fs", skill.FSSource{Root: "."}, source.Origin{Kind: source.Inline}},
	}
	for _, tt := range tests {
		if got := source.OriginOf(tt.src); got != tt.want {
			t.Errorf("OriginOf(%s) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
