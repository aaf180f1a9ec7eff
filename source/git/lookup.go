package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// maxRefListing bounds what git ls-remote of one ref may print (rule
// 7): a ref's own lines, a few hundred bytes.
const maxRefListing = 1 << 20

// lookUp returns the commit src's ref names now from the remote's
// advertisement of its refs, fetching nothing (rule 7): a full commit id
// is its own answer, without asking the remote; a version range is
// picked from one git ls-remote --tags (rule 17); any other ref (HEAD
// without one) from one git ls-remote of it, which git matches as git
// fetch does (the ref itself, then refs/REF, refs/tags/REF,
// refs/heads/REF, refs/remotes/REF and refs/remotes/REF/HEAD, the
// first found), a tag's commit from its peeled line (asked for with
// the pattern REF^{}, which rule 3 keeps from being a ref). The folder is not
// checked: the content at the commit is fetched, and the folder looked
// for, only when it is read.
func (c *Client) lookUp(ctx context.Context, src Source) (Pin, error) {
	if err := src.check(); err != nil {
		return Pin{}, invalid(src.String(), err)
	}
	if id := strings.ToLower(src.Ref); gitsyntax.IsCommit(id) {
		return Pin{Source: src, Commit: id}, nil
	}
	repo, err := c.newRepo(ctx, src)
	if err != nil {
		return Pin{}, err
	}
	defer repo.remove()
	if version.IsRange(src.Ref) {
		t, err := repo.pickTag(ctx, src.Ref)
		if err != nil {
			return Pin{}, fmt.Errorf("look up version range %s of %s: %w", src.Ref, repo.shown, err)
		}
		return Pin{Source: src, Commit: t.Commit, Version: t.Name}, nil
	}
	ref, what := src.Ref, "ref "+src.Ref
	if ref == "" {
		ref, what = "HEAD", "the default branch"
	}
	var out bytes.Buffer
	if err := repo.runWatched(ctx, nil, &limitedBuffer{buf: &out, max: maxRefListing + 1}, "ls-remote", "--end-of-options", "origin", ref, ref+"^{}"); err != nil {
		return Pin{}, fmt.Errorf("look up %s of %s: %w", what, repo.shown, err)
	}
	if out.Len() > maxRefListing {
		return Pin{}, fmt.Errorf("look up %s of %s: %w: git ls-remote printed more than %d bytes for one ref", what, repo.shown, source.ErrInvalid, maxRefListing)
	}
	commit, err := pickRef(out.String(), ref)
	if err != nil {
		return Pin{}, fmt.Errorf("look up %s of %s: %w", what, repo.shown, err)
	}
	return Pin{Source: src, Commit: commit}, nil
}

// pickRef returns the commit that ref names in listing, git ls-remote's
// answer (lines of ID, a tab and a ref's name), by git fetch's rules:
// the first of ref, refs/REF, refs/tags/REF, refs/heads/REF,
// refs/remotes/REF and refs/remotes/REF/HEAD that is listed, with its
// peeled line's id (NAME^{}) when it has one.
func pickRef(listing, ref string) (string, error) {
	ids := map[string]string{}
	for line := range strings.Lines(listing) {
		id, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if !ok || !gitsyntax.IsCommit(id) || name == "" {
			return "", fmt.Errorf("git ls-remote printed %.80q, which is not a ref line", line)
		}
		ids[name] = id
	}
	for _, name := range []string{ref, "refs/" + ref, "refs/tags/" + ref, "refs/heads/" + ref, "refs/remotes/" + ref, "refs/remotes/" + ref + "/HEAD"} {
		if id, ok := ids[name+"^{}"]; ok {
			return id, nil
		}
		if id, ok := ids[name]; ok {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: the remote has no ref %s", errNoRef, ref)
}
