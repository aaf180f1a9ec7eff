package github

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Source names a folder of a GitHub repository at a ref. The zero Ref
// means the repository's default branch; the zero Path its root. A Source
// parsed from a web address remembers that its ref and path were split at
// a guess (rule 2), so compare sources by their String, not with ==.
type Source struct {
	// Owner is the user or organization that owns the repository.
	Owner string
	// Repo is the repository's name, without ".git".
	Repo string
	// Path is the slash-separated folder inside the repository.
	Path string
	// Ref is a branch, a tag or a commit id.
	Ref string
	// Host is the GitHub Enterprise Server that holds the repository,
	// HOST or HOST:PORT in lower case (rule 16); "" for github.com (or
	// the API of GITHUB_API_URL).
	Host string

	// tree marks a source read from a web address whose ref and path
	// were split at a guess (rule 2).
	tree bool
}

// Pin is a Source resolved to a commit: what a lock file records.
type Pin struct {
	// Source is the source as resolved, with the ref it was asked for.
	Source Source
	// Commit is the full hex commit id the ref named when resolved.
	Commit string
	// Version is the tag a version range picked (rule 15), "" when the
	// ref is no range.
	Version string
}

// String returns the source in the OWNER/REPO[/PATH][@REF] form, or
// for an Enterprise host its https://HOST/OWNER/REPO[/tree/REF/PATH]
// address, which [Parse] reads back.
func (s Source) String() string {
	if s.Host != "" {
		return s.webString()
	}
	out := s.Owner + "/" + s.Repo
	if s.Path != "" {
		out += "/" + s.Path
	}
	if s.Ref != "" {
		out += "@" + s.Ref
	}
	return out
}

// String returns the pinned form OWNER/REPO[/PATH]@COMMIT.
func (p Pin) String() string {
	s := p.Source
	s.Ref = p.Commit
	return s.String()
}

// Parse reads a GitHub source in one of the forms of the package doc's
// rules 1 to 3. It does not look at the file system or the network: a
// caller that also accepts local folders decides first whether the text
// names one.
func Parse(text string) (Source, error) {
	if strings.HasPrefix(text, "https://") || strings.HasPrefix(text, "http://") {
		return parseURL(text)
	}
	head, ref, hasRef := strings.Cut(text, "@")
	if hasRef {
		if err := checkRef(ref); err != nil {
			return Source{}, invalid(text, err)
		}
	}
	parts := strings.SplitN(head, "/", 3)
	if len(parts) < 2 {
		return Source{}, invalid(text, fmt.Errorf("want OWNER/REPO, OWNER/REPO/PATH or a https://github.com address"))
	}
	s := Source{Owner: parts[0], Repo: parts[1], Ref: ref}
	if len(parts) == 3 {
		s.Path = strings.TrimSuffix(parts[2], "/")
	}
	if err := s.check(); err != nil {
		return Source{}, invalid(text, err)
	}
	return s, nil
}

func parseURL(text string) (Source, error) {
	u, err := url.Parse(text)
	if err != nil {
		return Source{}, invalid(text, fmt.Errorf("not a web address"))
	}
	if u.Scheme != "https" {
		return Source{}, invalid(text, fmt.Errorf("only https://github.com addresses are read; name another host's repository as OWNER/REPO with GITHUB_API_URL set"))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Source{}, invalid(text, fmt.Errorf("the address must not have a user, a query or a fragment"))
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 {
		return Source{}, invalid(text, fmt.Errorf("want https://github.com/OWNER/REPO[/tree/REF/PATH]"))
	}
	s := Source{Owner: parts[0], Repo: strings.TrimSuffix(parts[1], ".git")}
	if s.Host, err = enterpriseHost(u, len(parts) > 2 && parts[2] == "tree"); err != nil { // rule 16
		return Source{}, invalid(text, err)
	}
	switch rest := parts[2:]; {
	case len(rest) == 0:
	case rest[0] == "tree" && len(rest) >= 2:
		s.Ref = rest[1]
		s.Path = strings.Join(rest[2:], "/")
		s.tree = len(rest) > 2
		if err := checkRef(s.Ref); err != nil {
			return Source{}, invalid(text, err)
		}
	default:
		return Source{}, invalid(text, fmt.Errorf("only a repository's address or a /tree/REF/PATH address is read"))
	}
	if err := s.check(); err != nil {
		return Source{}, invalid(text, err)
	}
	return s, nil
}

func invalid(text string, err error) error {
	return fmt.Errorf("GitHub source %q: %w: %w", text, source.ErrInvalid, err)
}

// check applies rule 3 to the owner, repository and path.
func (s Source) check() error {
	if err := checkName("owner", s.Owner); err != nil {
		return err
	}
	if err := checkName("repository", s.Repo); err != nil {
		return err
	}
	return gitsyntax.CheckPath(s.Path)
}

func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("the %s is empty", what)
	}
	if len(name) > 100 {
		return fmt.Errorf("the %s has more than 100 bytes", what)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !ok && (i == 0 || (r != '.' && r != '-' && r != '_')) {
			return fmt.Errorf("the %s %q may hold only letters, digits, '.', '-' and '_', and starts with a letter or a digit", what, name)
		}
	}
	return nil
}

// checkRef applies git check-ref-format's rules (rule 3), or checks a
// version range (rule 15).
func checkRef(ref string) error {
	return version.CheckRef(ref, gitsyntax.CheckRef)
}
