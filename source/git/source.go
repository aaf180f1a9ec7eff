package git

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Source names a folder of a git repository at a ref. The zero Ref means
// the remote's default branch; the zero Path its root.
type Source struct {
	// URL is the repository's address as git reads it: https://, ssh://,
	// file:// or (loopback only) http://, without a password.
	URL string
	// Ref is a branch, a tag or a full commit id.
	Ref string
	// Path is the slash-separated folder inside the repository.
	Path string
}

// Pin is a Source resolved to a commit: what a lock file records.
type Pin struct {
	// Source is the source as resolved, with the ref it was asked for.
	Source Source
	// Commit is the full hex commit id the ref named when resolved.
	Commit string
	// Version is the tag a version range picked (rule 17), "" when the
	// ref is no range.
	Version string
}

// String returns the source in the git+URL#ref=REF&path=PATH form that
// [Parse] reads back.
func (s Source) String() string {
	out := "git+" + s.URL
	var frag []string
	if s.Ref != "" {
		frag = append(frag, "ref="+escape(s.Ref))
	}
	if s.Path != "" {
		frag = append(frag, "path="+escape(s.Path))
	}
	if len(frag) > 0 {
		out += "#" + strings.Join(frag, "&")
	}
	return out
}

// String returns the source with the commit as its ref.
func (p Pin) String() string {
	s := p.Source
	s.Ref = p.Commit
	return s.String()
}

// escape percent-encodes what the fragment's key=value form would
// misread, keeping "/" and the other characters refs and paths hold.
func escape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/!$'()*,;@^<>=|", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Parse reads a source in the syntax of the package doc (rules 1 to 4).
func Parse(text string) (Source, error) {
	rest, ok := strings.CutPrefix(text, "git+")
	if !ok {
		return Source{}, invalid(text, fmt.Errorf("want git+https://, git+ssh:// or git+file:// followed by the repository, then #ref=REF&path=PATH"))
	}
	u, err := url.Parse(rest)
	if err != nil {
		return Source{}, invalid(text, fmt.Errorf("not a URL"))
	}
	var s Source
	if u.Fragment != "" {
		_, frag, _ := strings.Cut(rest, "#") // as written: EscapedFragment re-encodes what a range holds
		q, err := url.ParseQuery(frag)
		if err != nil {
			return Source{}, invalid(text, fmt.Errorf("the part after # must be ref=REF&path=PATH, percent-encoded"))
		}
		for k, v := range q {
			if len(v) != 1 {
				return Source{}, invalid(text, fmt.Errorf("%s= is given %d times", k, len(v)))
			}
			switch k {
			case "ref":
				s.Ref = v[0]
				if err := checkRef(s.Ref); err != nil {
					return Source{}, invalid(text, err)
				}
			case "path":
				s.Path = strings.TrimSuffix(v[0], "/")
				if err := gitsyntax.CheckPath(s.Path); err != nil {
					return Source{}, invalid(text, err)
				}
			default:
				return Source{}, invalid(text, fmt.Errorf("unknown key %q after #: only ref= and path= are read", k))
			}
		}
	} else if strings.HasSuffix(rest, "#") {
		return Source{}, invalid(text, fmt.Errorf("an empty # part: write #ref=REF&path=PATH, or leave out the #"))
	}
	u.Fragment, u.RawFragment = "", ""
	if err := checkURL(u); err != nil {
		return Source{}, invalid(text, err)
	}
	s.URL = u.String()
	return s, nil
}

func invalid(text string, err error) error {
	return fmt.Errorf("git source %q: %w: %w", redacted(text), source.ErrInvalid, err)
}

// redacted is text, a source, without its credentials, for a message
// (rule 13).
func redacted(text string) string {
	rest, ok := strings.CutPrefix(text, "git+")
	if !ok {
		return text
	}
	return "git+" + redact.URL(rest)
}

// cleanUser removes from text the user information of u that
// redact.URL leaves out: "USER@" and "USER:PASSWORD@" as written
// in u and as decoded, and the password and (for http(s), where a token is the
// user) the user on their own.
func cleanUser(text string, u *url.URL) string {
	if u == nil || u.User == nil {
		return text
	}
	name := u.User.Username()
	password, hasPassword := u.User.Password()
	keepUser := u.Scheme == "ssh" && name != ""
	var secrets []string
	if hasPassword && password != "" {
		secrets = append(secrets, ":"+url.PathEscape(password)+"@", ":"+password+"@", password)
	}
	if !keepUser {
		secrets = append(secrets, u.User.String()+"@", name+"@")
		if len(name) >= minSecretLen {
			secrets = append(secrets, url.PathEscape(name), name)
		}
	}
	for _, s := range secrets {
		if s == "" || s == "@" || s == ":@" {
			continue
		}
		repl := "[redacted]"
		if strings.HasSuffix(s, "@") {
			repl = ""
			if strings.HasPrefix(s, ":") {
				repl = "@"
			}
		}
		text = strings.ReplaceAll(text, s, repl)
	}
	return text
}

// minSecretLen is the length from which an http(s) URL's user is
// removed from git's messages wherever it appears, not only before "@":
// tokens are long, and a short name would cut words out of messages.
const minSecretLen = 6

// checkURL applies rules 1 and 4 to the repository's URL.
func checkURL(u *url.URL) error {
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			return fmt.Errorf("a password in the URL would be shown and recorded: use a git credential helper, an SSH key, or a header")
		}
	}
	if u.RawQuery != "" || u.ForceQuery {
		return fmt.Errorf("a query (?) is not read")
	}
	host := u.Hostname()
	switch u.Scheme {
	case "https", "ssh":
		if host == "" {
			return fmt.Errorf("the URL has no host")
		}
	case "http":
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("plain http is read only for a loopback address: use git+https:// or git+ssh://")
		}
	case "file":
		if (host != "" && host != "localhost") || u.User != nil || u.Port() != "" {
			return fmt.Errorf("a file URL has no host: write git+file:///absolute/path")
		}
		if !strings.HasPrefix(u.Path, "/") {
			return fmt.Errorf("a file URL's path must be absolute: write git+file:///absolute/path")
		}
	default:
		return fmt.Errorf("the scheme %q is not read: want git+https, git+ssh or git+file", "git+"+u.Scheme)
	}
	if strings.HasPrefix(host, "-") || gitsyntax.HasControl(u.Host) || gitsyntax.HasControl(u.Path) {
		return fmt.Errorf("the host or path holds a leading '-' or a control character")
	}
	if _, last, ok := strings.Cut(u.Path[strings.LastIndex(u.Path, "/")+1:], "@"); ok {
		return fmt.Errorf("the repository's name ends in @%s: write the ref as #ref=%s", last, last)
	}
	if u.Scheme != "file" && (u.Path == "" || u.Path == "/") {
		return fmt.Errorf("the URL names no repository")
	}
	return nil
}

// check applies rules 1 to 4 to a Source built by hand.
func (s Source) check() error {
	if strings.HasPrefix(s.URL, "git+") {
		return fmt.Errorf("the URL %q starts with git+: give git's own URL, or use Parse", s.URL)
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return fmt.Errorf("the URL is not a URL")
	}
	if u.Fragment != "" || strings.Contains(s.URL, "#") {
		return fmt.Errorf("the URL has a fragment: put the ref and the path in their fields")
	}
	if err := checkURL(u); err != nil {
		return err
	}
	if s.Ref != "" {
		if err := checkRef(s.Ref); err != nil {
			return err
		}
	}
	return gitsyntax.CheckPath(s.Path)
}

// checkRef applies git check-ref-format's rules (rule 3), or checks a
// version range (rule 17).
func checkRef(ref string) error {
	return version.CheckRef(ref, gitsyntax.CheckFetchRef)
}
