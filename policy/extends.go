package policy

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
)

// MaxExtends is the longest chain of files a policy file may extend
// through (rule 18): the file itself and at most 8 it extends, one
// extending the next.
const MaxExtends = 8

// extension is what a file says of extends, and where it is in a chain.
type extension struct {
	source string // what the file extends ("": nothing)
	line   int    // the line of extends

	// Of a file fetched because another extends it:
	fetched  Extended
	chain    []string // the files from the one loaded to this one, this one last
	loosened []Loosening
}

// Extended is a policy file fetched because another extends it, as the
// caller of [LoadWith] read it.
type Extended struct {
	// Data is the file's content, at most [MaxFileSize] bytes.
	Data []byte
	// Source is the source as the extends key names it, without the
	// credentials a URL's user information may hold (LoadWith removes
	// them, as every message and lock file shows a source); Pin is the
	// immutable version it was read at (a commit, a manifest digest, a
	// SHA-256 of the file); Digest is the file's content digest
	// (sha256:HEX). Rules of the file are named SOURCE@PIN.
	Source, Pin, Digest string
}

// name is how the rules of the file are located: SOURCE@PIN.
func (e Extended) name() string {
	if e.Pin == "" {
		return e.Source
	}
	return e.Source + "@" + e.Pin
}

// ExtendsRequest is one policy file to fetch for [LoadOptions].Extends.
type ExtendsRequest struct {
	// Source is what the extends key names, as written.
	Source string
	// By locates the extends key that names it.
	By Rule
	// User reports whether the chain starts at the user's file (true) or
	// at the project's: where the caller records the pin (rule 19).
	User bool
	// Chain names the files from the one loaded to the one that names
	// Source, each as its rules are located (a path, or SOURCE@PIN).
	Chain []string
	// Trust is the policy Source must pass before it is fetched (rule
	// 19): for a file of the user's chain, the files of that chain
	// loaded so far (the user's file and those it extends, up to the one
	// that names Source); for a file of the project's chain, the user's
	// whole chain. Without a user's file it is the zero policy, which
	// allows every source.
	Trust *Policy
}

// LoadOptions are what [LoadWith] is given besides the folders.
type LoadOptions struct {
	// Extends fetches the file a policy file extends and returns it,
	// verified (rule 19); package install's LoadPolicy gives one that
	// fetches with the installer's sources, pins in the lock file and
	// reads its cache offline. Nil: a file that says extends is refused
	// with [ErrInvalid], as a policy that cannot be read whole.
	Extends func(ExtendsRequest) (Extended, error)
}

// Loosening is a rule of a file that would allow more than a file it
// extends (rule 21): it has no effect, as the rules of every file of a
// chain apply, and [Policy.Loosenings] reports it so that its author
// knows.
type Loosening struct {
	Rule
	// Base locates the rule of the extended file it would loosen.
	Base Rule
	// Reason says what the rule tries and what holds instead.
	Reason string
}

func (l Loosening) String() string {
	return fmt.Sprintf("%s: %s (%s holds)", l.Rule, l.Reason, l.Base)
}

// extends reads the extends key (rule 18).
func (p *parser) extends(n *yaml.Node, f *rules) error {
	s, err := p.str(n, "extends")
	if err != nil {
		return err
	}
	if strings.ContainsAny(s, " \t\n") {
		return p.errf(n, "extends %q holds white space: name one source (as git+https://git.example.com/acme/agent-policy#ref=v3&path=%s)", redact.URL(s), FileName)
	}
	f.ext.source, f.ext.line = s, n.Line
	return nil
}

// pattern reads one pattern of the file (rule 3); a file fetched
// because another extends it names no local pattern relative to its
// folder, which it does not have (rule 20).
func (p *parser) pattern(n *yaml.Node, what string) (pattern, error) {
	if k, loc, _ := strings.Cut(n.Value, ":"); p.fetched && source.Kind(k) == source.Local &&
		loc != "~" && !strings.HasPrefix(loc, "~/") && !filepath.IsAbs(loc) && !strings.HasPrefix(loc, "/") {
		return pattern{}, p.errf(n, "%s: pattern %q is relative, but this file was fetched (extends) and has no folder of its own; write an absolute path or one under ~/", what, n.Value)
	}
	pat, err := parsePattern(n.Value, n.Line, p.dir, p.home)
	if err != nil {
		return pattern{}, p.errf(n, "%s: %v", what, err)
	}
	return pat, nil
}

// LoadWith is [Load] for files that may extend others: opts.Extends
// fetches each file extended, and the rules of every file of each chain
// apply, the file extended before the one that extends it (rules 18 to
// 21).
func LoadWith(home, projectRoot string, opts LoadOptions) (*Policy, error) {
	p := &Policy{}
	for i, dir := range []string{home, projectRoot} {
		if dir == "" {
			continue
		}
		name := filepath.Join(dir, ".agents", FileName)
		data, err := readfile.Small(name, MaxFileSize)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		f, err := parse(data, name, home)
		if err != nil {
			return nil, err
		}
		chain, err := extendChain(f, home, i == 0, p.files, opts)
		if err != nil {
			return nil, err
		}
		for _, c := range chain {
			c.project = i == 1
		}
		p.files = append(p.files, chain...)
	}
	return p, nil
}

// LoadOwn reads the user's policy file under home alone, without what
// it extends (which [LoadWith] reads, checking each source extended
// against [ExtendsRequest].Trust, rule 19). A missing file is the
// default policy.
func LoadOwn(home string) (*Policy, error) {
	p := &Policy{}
	if home == "" {
		return p, nil
	}
	name := filepath.Join(home, ".agents", FileName)
	data, err := readfile.Small(name, MaxFileSize)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	f, err := parse(data, name, home)
	if err != nil {
		return nil, err
	}
	p.files = []*rules{f}
	return p, nil
}

// extendChain fetches what f extends, and what that extends, and returns
// the files of the chain, the last one extended first and f last. users
// is the user's whole chain, loaded already, when f is the project's.
func extendChain(f *rules, home string, user bool, users []*rules, opts LoadOptions) ([]*rules, error) {
	f.ext.chain = []string{f.path}
	chain := []*rules{f}
	seen := []string{f.path}
	for cur := f; cur.ext.source != ""; {
		at := Rule{Name: "extends", File: cur.path, Line: cur.ext.line}
		shown := redact.URL(cur.ext.source) // what messages and the chain show of it
		switch {
		case len(chain) > MaxExtends:
			return nil, fmt.Errorf("%w: %s: extends %q: the chain from %s is longer than %d files extended; extend a file that extends fewer", ErrInvalid, where(at.File, at.Line), shown, f.path, MaxExtends)
		case opts.Extends == nil:
			return nil, fmt.Errorf("%w: %s: extends %q, which this program cannot fetch here; read the policy with package install's LoadPolicy (as agentskills does)", ErrInvalid, where(at.File, at.Line), shown)
		case slices.ContainsFunc(chain, func(r *rules) bool { return r.ext.fetched.Source == shown }):
			return nil, fmt.Errorf("%w: %s: extends %q, which the chain holds already (%s): a file cannot extend itself", ErrInvalid, where(at.File, at.Line), shown, strings.Join(cur.ext.chain, " extends "))
		}
		// The source must pass the user's word (rule 19): the part of
		// the user's chain loaded so far, or the user's whole chain.
		trust := &Policy{files: slices.Clone(users)}
		if user {
			trust.files = slices.Clone(chain)
			slices.Reverse(trust.files)
		}
		ext, err := opts.Extends(ExtendsRequest{Source: cur.ext.source, By: at, User: user, Chain: slices.Clone(cur.ext.chain), Trust: trust})
		if err != nil {
			return nil, fmt.Errorf("%s: extends %q: %w", where(at.File, at.Line), shown, err)
		}
		if len(ext.Data) > MaxFileSize {
			return nil, fmt.Errorf("%w: %s: extends %q: the file is larger than %d bytes", ErrInvalid, where(at.File, at.Line), shown, MaxFileSize)
		}
		ext.Source = redact.URL(cmp.Or(ext.Source, cur.ext.source))
		name := ext.name()
		if slices.Contains(seen, name) {
			return nil, fmt.Errorf("%w: %s: extends %q, which the chain holds already (%s): a file cannot extend itself", ErrInvalid, where(at.File, at.Line), shown, strings.Join(cur.ext.chain, " extends "))
		}
		seen = append(seen, name)
		base, err := (&parser{path: name, home: home, fetched: true}).parse(ext.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: extends %q: %w", where(at.File, at.Line), shown, err)
		}
		base.ext.fetched = ext
		base.ext.chain = append(slices.Clone(cur.ext.chain), name)
		chain = append(chain, base)
		cur = base
	}
	// Each file's rules against those of every file it extends (rule 21).
	for i, r := range chain {
		r.ext.loosened = loosenings(r, chain[i+1:])
	}
	slices.Reverse(chain)
	return chain, nil
}

// loosenings returns the rules of f that would allow more than the files
// it extends, bases (rule 21).
func loosenings(f *rules, bases []*rules) []Loosening {
	var out []Loosening
	type key struct {
		Rule
		reason string
	}
	seen := map[key]bool{} // each rule of f once, against the first base it would loosen
	add := func(l Loosening) {
		if k := (key{l.Rule, l.Reason}); !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	// The strictest threshold of the bases, for fail_on.
	var strict *rules
	for _, b := range bases {
		if strict == nil || b.failOn < strict.failOn {
			strict = b
		}
	}
	if strict != nil && f.failOnLine > 0 && f.failOn > strict.failOn {
		add(Loosening{Rule: Rule{Name: "audit.fail_on", File: f.path, Line: f.failOnLine},
			Base: Rule{Name: "audit.fail_on", File: strict.path, Line: strict.failOnLine}, Reason: fmt.Sprintf("fail_on %s is above the extended file's %s, which still refuses at %s", f.failOn, strict.failOn, strict.failOn)})
	}
	for _, b := range bases {
		if f.pinnedLine > 0 && !f.pinned && b.pinned {
			add(Loosening{Rule: Rule{Name: "sources.pinned", File: f.path, Line: f.pinnedLine},
				Base: Rule{Name: "sources.pinned", File: b.path, Line: b.pinnedLine}, Reason: "pinned: false does not lift the pinning the extended file requires"})
		}
		if f.hasAllow && b.hasAllow {
			for _, pat := range f.allow {
				if !slices.ContainsFunc(b.allow, func(bp pattern) bool { return covers(bp, pat) }) {
					add(Loosening{Rule: Rule{Name: "sources.allow", File: f.path, Line: pat.line},
						Base: Rule{Name: "sources.allow", File: b.path, Line: b.allowLine}, Reason: fmt.Sprintf("pattern %s allows sources the extended file's sources.allow does not; only those both allow are allowed", pat.text)})
				}
			}
		}
		for _, e := range f.accept {
			ar, ok := audit.LookupRule(e.rule)
			if !ok || ar.Severity < b.failOn || slices.ContainsFunc(b.accept, func(be acceptEntry) bool { return be.rule == e.rule }) {
				continue
			}
			add(Loosening{Rule: e.Rule, Base: Rule{Name: "audit.fail_on", File: b.path, Line: b.failOnLine},
				Reason: fmt.Sprintf("it accepts %s findings (%s), which the extended file refuses and does not accept; they are still refused", e.rule, ar.Severity)})
		}
	}
	return out
}

// covers reports whether every location pattern q matches is matched by
// p too, as far as can be told by matching q's text as a location: a
// wildcard of q is matched only by a wildcard of p or by **. It errs
// towards reporting a loosening, which is a warning (rule 21).
func covers(p, q pattern) bool {
	if p.kind != q.kind {
		return false
	}
	// As matchElems, an element of q for an element of p.
	ok := make([]bool, len(q.elems)+1)
	ok[0] = true
	for _, pe := range p.elems {
		next := make([]bool, len(q.elems)+1)
		for j := 0; j <= len(q.elems); j++ {
			switch {
			case pe == "**":
				next[j] = ok[j] || (j > 0 && next[j-1])
			case j > 0 && ok[j-1]:
				next[j] = coversElem(pe, q.elems[j-1])
			}
		}
		ok = next
	}
	return ok[len(q.elems)]
}

// coversElem reports whether pattern element pe matches every element
// qe matches.
func coversElem(pe, qe string) bool {
	switch {
	case qe == "**":
		return false
	case strings.ContainsAny(qe, `*?[\`):
		return pe == "*" || pe == qe
	}
	m, _ := path.Match(pe, qe)
	return m
}

// Loosenings returns the rules of the files that would allow more than
// a file they extend (rule 21), which have no effect.
func (p *Policy) Loosenings() []Loosening {
	var out []Loosening
	for _, f := range p.files {
		out = append(out, f.ext.loosened...)
	}
	return out
}
