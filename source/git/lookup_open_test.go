package git_test

import (
	"testing"

	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestLookUpRefToNoCommit checks that a ref naming no commit (a tag of a
// tree, lightweight or annotated) is no pin for LookUp, as it is none
// for Resolve: git ls-remote tells no object's type, and a tree's id
// must not pass for a commit's.
func TestLookUpRefToNoCommit(t *testing.T) {
	t.Skip("open: LookUp returns a tag's tree id as the commit (git ls-remote tells no type); a pin from LookUp must be checked to be a commit where its content is fetched, or LookUp must say it may not be one")
	hermetic(t)
	repo := newRepo(t)
	tree := gitIn(t, repo.bare, "rev-parse", repo.main+"^{tree}")
	gitIn(t, repo.bare, "tag", "treetag", tree)
	gitIn(t, repo.bare, "-c", "user.name=t", "-c", "user.email=t@example.com", "tag", "-a", "-m", "a tree", "annotree", tree)
	for _, ref := range []string{"treetag", "annotree"} {
		t.Run(ref, func(t *testing.T) {
			src, err := git.Parse(repo.fileURL() + "#ref=" + ref)
			if err != nil {
				t.Fatal(err)
			}
			resolver := git.NewRemote(src, git.WithTempDir(t.TempDir()))
			want, werr := resolver.Resolve(t.Context())
			resolver.Close()
			got, err := git.NewRemote(src, git.WithTempDir(t.TempDir())).LookUp(t.Context())
			if (err == nil) != (werr == nil) || got != want {
				t.Errorf("LookUp = %q, %v; Resolve = %q, %v", got, err, want, werr)
			}
		})
	}
}
