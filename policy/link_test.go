package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// Rule 3: a local pattern and a git pattern for the local disk are
// resolved through links when the file is read, as the sources are
// (source.ParseOrigin, and the installer's and SDK's origins): a pattern
// written through a link matches the folder it names, whichever way the
// source names it. base is t.TempDir() as it is, a path under a link on
// macOS (/var is /private/var), and the pattern is written with it.
func TestPatternsThroughLinks(t *testing.T) {
	base := t.TempDir()
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"repos/acme/tools", "we*rd/x", "weXrd/x", "other/x", "allowed", "acme2"} {
		if err := os.MkdirAll(filepath.Join(real, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"link": "repos", "l2": "we*rd", "allowed/out": "other", "acme2/tools.git": "repos/acme/tools"} {
		if err := os.Symlink(filepath.Join(real, filepath.FromSlash(to)), filepath.Join(real, filepath.FromSlash(link))); err != nil {
			t.Skip("no symbolic links:", err)
		}
	}
	b, r := filepath.ToSlash(base), filepath.ToSlash(real)
	tests := []struct {
		pattern, source string
		want            bool
	}{
		{"git:" + b + "/link/acme/*", "git:" + r + "/repos/acme/tools", true},
		{"git:" + b + "/link/acme/*", "git:" + b + "/link/acme/tools", true},
		{"git:" + b + "/link/acme/*", "git:" + b + "/repos/acme/tools.git", true},
		{"git:" + r + "/repos/acme/*", "git:" + b + "/link/acme/tools", true},
		{"git:" + b + "/link/acme/tools", "git:" + r + "/repos/acme/tools", true},
		{"git:" + b + "/link/**", "git:" + r + "/repos/acme/tools", true},
		{"git:" + b + "/link/acme/*", "git:" + r + "/other/x", false},
		// The leading part that exists is resolved, the rest kept.
		{"git:" + b + "/link/acme/missing/*", "git:" + r + "/repos/acme/missing/x", true},
		// A last element that is a link is resolved before .git is dropped.
		{"git:" + b + "/acme2/tools.git", "git:" + r + "/repos/acme/tools", true},
		{"git:" + b + "/acme2/tools.git", "git:" + b + "/acme2/tools.git", true},
		{"local:" + b + "/link/**", "local:" + r + "/repos/acme/tools", true},
		{"local:" + r + "/repos/**", "local:" + b + "/link/acme", true},
		// A wildcard character of the real path matches itself alone.
		{"local:" + b + "/l2/*", "local:" + r + "/we*rd/x", true},
		{"local:" + b + "/l2/*", "local:" + r + "/weXrd/x", false},
		// A link under the allowed folder that leads out of it is not under it.
		{"local:" + b + "/allowed/**", "local:" + b + "/allowed/out/x", false},
		{"git:" + b + "/allowed/*", "git:" + b + "/allowed/out", false},
	}
	for _, tt := range tests {
		p := mustParse(t, "version: 1\nsources:\n  allow: [\""+tt.pattern+"\"]\n")
		s, err := source.ParseOrigin(tt.source)
		if err != nil {
			t.Fatalf("ParseOrigin(%s) = %v", tt.source, err)
		}
		if err := p.Check(s); (err == nil) != tt.want {
			t.Errorf("allow [%s] Check(%s, at %s) = %v, want allowed %v", tt.pattern, tt.source, s.Location, err, tt.want)
		}
	}
}

// A local pattern of a policy file named by a relative path is relative
// too: its wildcards stay wildcards.
func TestPatternRelativeFileKeepsWildcards(t *testing.T) {
	t.Chdir(t.TempDir())
	p, err := policy.Parse([]byte("version: 1\nsources:\n  allow: [\"local:skills/*\"]\n"), policy.FileName)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(source.Origin{Kind: "local", Location: "skills/review"}); err != nil {
		t.Errorf("allow [local:skills/*] in a file named by a relative path: Check(local skills/review) = %v, want allowed", err)
	}
}
