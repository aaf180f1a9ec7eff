package admission

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// maxDoubleStars bounds the ** elements of one pattern (rule 3): each
// may stand for no element, so n of them give 2^n globs.
const maxDoubleStars = 4

// dialect is one tool's glob syntax.
type dialect struct {
	// crossing reports whether the tool's * matches "/" too.
	crossing bool
	// literal reports whether c may stand for itself in a glob.
	literal func(c rune) bool
}

var (
	// policyControllerGlob: * is [^/]*, ** is .*, and a glob holds
	// letters, digits and -_:/*.@ only (policy-controller's glob package).
	policyControllerGlob = dialect{literal: func(c rune) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("-_:/.@", c)
	}}
	// kyvernoGlob: * is any run of characters, ? any one character
	// (Kyverno's wildcard matching); every other character is itself.
	kyvernoGlob = dialect{crossing: true, literal: func(c rune) bool { return c != '*' && c != '?' }}
)

// unwritable reports the first part of a pattern's location, its
// element at, that d's globs cannot say.
type unwritable struct {
	at     int
	reason string
}

func (u *unwritable) Error() string { return u.reason }

// widerGlobs returns the globs of d for loc, as globs does. Where a part
// of loc cannot be written (more ** elements than maxDoubleStars, an
// element d's syntax cannot say), loc is cut before that part and
// written PREFIX/**, which matches every repository loc matches and
// more (wider, never narrower: rule 2), and the reason says so. A
// location whose host cannot be written is an error.
func (d dialect) widerGlobs(loc string) (out []string, wider string, err error) {
	var cuts []string
	for {
		out, wider, err = d.globs(loc)
		var u *unwritable
		if !errors.As(err, &u) {
			break
		}
		if u.at < 1 {
			return nil, "", err
		}
		elems := strings.Split(loc, "/")
		loc = strings.Join(elems[:u.at], "/") + "/**"
		cuts = append(cuts, fmt.Sprintf("%s, so it is cut at its element %d (%s) and written as %s, which is wider", u.reason, u.at+1, elems[u.at], loc))
	}
	if err != nil {
		return nil, "", err
	}
	if wider != "" {
		cuts = append(cuts, wider)
	}
	return out, strings.Join(cuts, "; "), nil
}

// globs returns the globs of d that match the images of the
// repositories an oci pattern's location matches (canonical, without
// "oci:"), by tag and by digest (rules 2 and 3), and why they match
// more, or "" when they match exactly that.
func (d dialect) globs(loc string) (out []string, wider string, err error) {
	elems := strings.Split(loc, "/")
	n := 0
	for _, e := range elems {
		if e == "**" {
			n++
		}
	}
	if n > maxDoubleStars {
		k := 0
		for i, e := range elems {
			if e == "**" {
				if k++; k == maxDoubleStars {
					return nil, "", &unwritable{at: i, reason: fmt.Sprintf("it has more than %d ** elements, each of which may stand for no element", maxDoubleStars)}
				}
			}
		}
	}
	var reasons []string
	note := func(r string) {
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	tr := make([]string, len(elems))
	for i, e := range elems {
		if e == "**" {
			tr[i] = "**"
			if d.crossing {
				tr[i] = "*"
			}
			continue
		}
		t, why, err := d.element(e)
		if err != nil {
			return nil, "", &unwritable{at: i, reason: err.Error()}
		}
		if why != "" {
			note(why)
		}
		tr[i] = t
	}
	// Each ** stands for one element or more, or for none (left out).
	for mask := 0; mask < 1<<n; mask++ {
		var kept []string
		many := false // a kept ** stands for several elements
		k := 0
		for i, e := range elems {
			if e == "**" {
				k++
				if mask&(1<<(k-1)) != 0 {
					continue
				}
				many = true
			}
			kept = append(kept, tr[i])
		}
		if len(kept) == 0 || len(kept) == 1 && !many {
			continue // a host and no repository: no image
		}
		for _, host := range hosts(kept[0]) {
			repo := strings.Join(append([]string{host}, kept[1:]...), "/")
			for _, g := range []string{repo + ":*", repo + "@*"} {
				if !slices.Contains(out, g) {
					out = append(out, g)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, "", errors.New("it matches no repository (a host and a path)")
	}
	return out, strings.Join(reasons, "; "), nil
}

// element returns one element of a pattern (not **) in d's syntax, and
// why it matches more than the element does.
func (d dialect) element(e string) (string, string, error) {
	var b strings.Builder
	var why string
	star := func() { // one *, never two: ** is another wildcard
		if !strings.HasSuffix(b.String(), "*") {
			b.WriteByte('*')
		}
	}
	for i := 0; i < len(e); i++ {
		c := rune(e[i])
		switch c {
		case '*':
			star()
			if d.crossing {
				why = "its * matches \"/\" too, so it matches repositories below the ones the pattern names"
			}
			continue
		case '?':
			if d.crossing {
				b.WriteByte('?')
				why = "its ? matches \"/\" too"
			} else {
				star()
				why = "a ? is written *"
			}
			continue
		case '[':
			j := classEnd(e, i)
			if j < 0 {
				return "", "", fmt.Errorf("element %q has an unclosed [", e)
			}
			i = j
			star()
			why = "a character class is written *"
			continue
		case '\\':
			if i+1 < len(e) {
				i++
				c = rune(e[i])
			}
		}
		if !d.literal(c) || c >= 0x80 {
			return "", "", fmt.Errorf("element %q holds %q, which its glob syntax cannot write", e, c)
		}
		b.WriteRune(c)
	}
	return b.String(), why, nil
}

// classEnd returns the index of the "]" that closes the character class
// opened at e[i], as [path.Match] reads it (a "]" first is itself, "\"
// escapes), or -1.
func classEnd(e string, i int) int {
	j := i + 1
	if j < len(e) && e[j] == '^' {
		j++
	}
	for first := true; j < len(e); j, first = j+1, false {
		switch {
		case e[j] == ']' && !first:
			return j
		case e[j] == '\\':
			j++
		}
	}
	return -1
}

// hosts returns the spellings of a registry host the tools may see:
// Docker Hub's two names, else the host alone (rule 3).
func hosts(h string) []string {
	if h == "docker.io" || h == "index.docker.io" {
		return []string{"docker.io", "index.docker.io"}
	}
	return []string{h}
}
