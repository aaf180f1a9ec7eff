package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/editdist"
	"github.com/agentadaptor/agentadaptor/source"
)

// typoError is the error of a typed OWNER/REPO source whose OWNER is a
// file or folder here while the whole path is not (rule 13): a mistyped
// local path far more often than a GitHub repository.
func typoError(text string) error {
	owner, _, _ := strings.Cut(text, "/")
	return fmt.Errorf("%w: %s; it is not read as the GitHub repository %s because %s exists here: write ./%s for a folder, %s%s for the GitHub repository",
		ErrInvalidSource, notHere(text), text, owner, text, source.GitHubPrefix, text)
}

// notHere says that no file or folder of the path p exists, and names
// the nearest name in the deepest folder of p that exists, when one is
// close enough to be a typo of the element there (two edits at most,
// fewer for short names).
func notHere(p string) string {
	msg := fmt.Sprintf("no file or folder %s here", p)
	if near := nearestPath(p); near != "" {
		msg += " (did you mean " + near + "?)"
	}
	return msg
}

// nearestPath returns p with its first missing element replaced by the
// closest entry of the folder above it, and the elements after it kept,
// or "" when no entry is close.
func nearestPath(p string) string {
	elems := strings.Split(filepath.ToSlash(p), "/")
	for i := range elems {
		dir := strings.Join(elems[:i], "/")
		switch {
		case i == 0:
			dir = "."
		case dir == "":
			dir = "/"
		}
		if _, err := os.Lstat(filepath.FromSlash(strings.Join(elems[:i+1], "/"))); err == nil || elems[i] == "" {
			continue
		}
		entries, err := os.ReadDir(filepath.FromSlash(dir))
		if err != nil {
			return ""
		}
		best, bestDist, ties := "", 3, 0
		for _, e := range entries {
			d := editdist.Distance(elems[i], e.Name())
			if d > min(2, len(e.Name())/3) {
				continue
			}
			switch {
			case d < bestDist:
				best, bestDist, ties = e.Name(), d, 1
			case d == bestDist:
				ties++
			}
		}
		if ties != 1 {
			return ""
		}
		out := append(append(elems[:i:i], best), elems[i+1:]...)
		return strings.Join(out, "/")
	}
	return ""
}
