package git

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
)

// KnownHost reports whether host (lower case, without a port) is one of
// the public git hosts of rule 22 (gitlab.com, codeberg.org, gitea.com,
// bitbucket.org), none of which is GitHub.
func KnownHost(host string) bool {
	_, ok := gitsyntax.WebHost(strings.ToLower(host))
	return ok
}

// ParseWeb reads a repository's web address on a git host, as the host's
// pages show it, in the forms of rules 18 to 22:
// https://gitlab.com/GROUP/SUB/REPO/-/tree/REF/PATH,
// https://codeberg.org/OWNER/REPO/src/branch/REF/PATH,
// https://bitbucket.org/OWNER/REPO/src/REF/PATH,
// https://HOST/PATH.git[#ref=REF&path=PATH] and the others the rules
// list. It fails with [source.ErrInvalid] for any other address, which a
// caller may then read as something else (an archive to download). Like
// [Parse] it looks at neither the network nor the file system.
func ParseWeb(text string) (Source, error) {
	u, err := url.Parse(text)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return Source{}, invalidWeb(text, fmt.Errorf("want an https:// address of a repository's web page"))
	}
	if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), ".git") {
		return Parse("git+" + text) // rule 18: git's own address
	}
	if u.Fragment != "" || (u.RawQuery != "" && !gitLabQuery(u)) {
		return Source{}, invalidWeb(text, fmt.Errorf("a web address of a repository has no fragment and no query other than GitLab's ref_type"))
	}
	elems := strings.Split(strings.Trim(u.Path, "/"), "/")
	host := strings.ToLower(u.Hostname())
	repo, ref, dir, err := webForm(host, elems)
	if err != nil {
		return Source{}, invalidWeb(text, err)
	}
	for _, e := range repo {
		if err := checkElem(e); err != nil {
			return Source{}, invalidWeb(text, err)
		}
	}
	s := Source{Ref: ref, Path: strings.Join(dir, "/")}
	if ref != "" {
		if err := checkRef(ref); err != nil {
			return Source{}, invalidWeb(text, err)
		}
	}
	if err := gitsyntax.CheckPath(s.Path); err != nil {
		return Source{}, invalidWeb(text, err)
	}
	g := url.URL{Scheme: "https", User: u.User, Host: u.Host, Path: "/" + strings.Join(repo, "/") + ".git"}
	if err := checkURL(&g); err != nil {
		return Source{}, invalidWeb(text, err)
	}
	s.URL = g.String()
	return s, nil
}

// gitLabQuery reports whether u's query is GitLab's ref_type=heads or
// ref_type=tags, which its tree pages add (rule 19).
func gitLabQuery(u *url.URL) bool {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil || len(q) != 1 || len(q["ref_type"]) != 1 || !strings.Contains(u.Path, "/-/tree/") {
		return false
	}
	v := q.Get("ref_type")
	return v == "heads" || v == "tags"
}

// webForm splits a web address's path elements into the repository's,
// the ref and the folder's (rules 19 to 22).
func webForm(host string, elems []string) (repo []string, ref string, dir []string, err error) {
	// Rule 19: GitLab's /-/ separates the repository from its pages.
	for i, e := range elems {
		if e != "-" {
			continue
		}
		if i < 2 || len(elems) < i+3 || elems[i+1] != "tree" {
			return nil, "", nil, fmt.Errorf("only a GitLab repository's address or its /-/tree/REF/PATH page is read")
		}
		return elems[:i], elems[i+2], elems[i+3:], nil
	}
	want, known := gitsyntax.WebHost(host)
	// Rule 21: Bitbucket's /src/REF/PATH.
	if host == "bitbucket.org" && len(elems) >= 4 && elems[2] == "src" {
		return elems[:2], elems[3], elems[4:], nil
	}
	// Rule 20: Gitea's and Forgejo's /src/branch|tag|commit/REF/PATH.
	if len(elems) >= 5 && elems[2] == "src" && (elems[3] == "branch" || elems[3] == "tag" || elems[3] == "commit") {
		return elems[:2], elems[4], elems[5:], nil
	}
	// Rule 22: a repository's own page on a known host.
	switch {
	case !known:
		return nil, "", nil, fmt.Errorf("%s is not a known git host and the address has none of the forms of a repository's page: write git+https://HOST/REPOSITORY#ref=REF&path=PATH", host)
	case want == 0 && len(elems) >= 2, len(elems) == want:
		return elems, "", nil, nil
	}
	return nil, "", nil, fmt.Errorf("the address is not a repository's page on %s: want https://%s/OWNER/REPO, or a page of a folder at a ref", host, host)
}

// checkElem applies rule 18's character set to one element of a
// repository's path.
func checkElem(e string) error {
	if e == "" || e == "." || e == ".." || len(e) > 255 {
		return fmt.Errorf("the repository's path has an empty, '.', '..' or overlong element")
	}
	for i, r := range e {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && (r == '.' || r == '-' || r == '_')
		if !ok {
			return fmt.Errorf("the repository's path element %q may hold only letters, digits, '.', '-' and '_', and starts with a letter or a digit", e)
		}
	}
	return nil
}

func invalidWeb(text string, err error) error {
	return fmt.Errorf("git host address %q: %w: %w", redact.URL(text), source.ErrInvalid, err)
}
