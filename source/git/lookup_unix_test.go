//go:build unix

package git_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestLookUpHostileListing runs LookUp through a git whose ls-remote
// prints what a hostile or broken server could make it print: more than
// the bound for one ref is refused as source.ErrInvalid, a line that is
// not a ref's is refused, and none fills memory or passes for a commit.
func TestLookUpHostileListing(t *testing.T) {
	hermetic(t)
	repo := newRepo(t)
	id := strings.Repeat("a", 40)
	for _, c := range []struct {
		name, print string
		want        error
	}{
		{"over the bound", "yes '" + id + "\trefs/heads/x/main' | head -c 2000000", source.ErrInvalid},
		{"not a ref line", "echo 'not a ref'", nil},
		{"short id", "printf '1234\\trefs/heads/main\\n'", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			program, _ := wrapper(t, `case "$*" in *ls-remote*) `+c.print+`; exit 0;; esac`)
			src, err := git.Parse(repo.fileURL() + "#ref=main")
			if err != nil {
				t.Fatal(err)
			}
			got, err := git.NewRemote(src, git.WithGit(program), git.WithTempDir(t.TempDir())).LookUp(t.Context())
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("LookUp = %q, %v; want an error (%v)", got, err, c.want)
			}
		})
	}
}
