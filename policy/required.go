package policy

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Requirement is one entry of required (rules 23 to 26): a skill every
// project under the policy must have installed.
type Requirement struct {
	// Rule locates the entry: "required[N]" (counted from 1), its file
	// and line.
	Rule
	// Source is the source as the file writes it, as add takes it
	// (github:acme/skills/changelog@^1).
	Source string
	// Ref is the reference the source names: a version range (^1, ~1.2,
	// >=1.0 <2), a version (v1.2.3), or "" for any version (rule 24).
	Ref string
	// Agents are the agent IDs the skill must be installed for; nil: any
	// agent (rule 25).
	Agents []string
	// Reason says why the skill is required, for the reader; "" when the
	// file does not say.
	Reason string
	// Project reports whether the entry is the project's file's (or a
	// file's it extends): the project's word, not the user's (rules 16
	// and 26).
	Project bool
}

// Admits reports whether a skill installed at version tag (v1.4.0, as
// the lock file records it; "" when no version is known) meets r's
// reference (rule 24): any version when r names none; a version within
// the range; exactly the version r names.
func (r Requirement) Admits(tag string) bool {
	switch {
	case r.Ref == "":
		return true
	case tag == "":
		return false
	case version.IsRange(r.Ref):
		rg, err := version.ParseRange(r.Ref)
		return err == nil && rg.Admits(tag)
	}
	return version.IsVersion(tag) && version.Compare(tag, r.Ref) == 0
}

// Required returns the skills the policy requires: every entry of both
// files' required, the user's first (rule 26). Two entries may name one
// source: both apply.
func (p *Policy) Required() []Requirement {
	var out []Requirement
	for _, f := range p.files {
		for _, r := range f.required {
			r.Agents = slices.Clone(r.Agents)
			r.Project = f.project
			out = append(out, r)
		}
	}
	return out
}

// required reads the required section (rules 23 to 25).
func (p *parser) required(n *yaml.Node, f *rules) error {
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "required must be a list of skills, each with a source (as - source: github:acme/skills/changelog@^1)")
	}
	for i, item := range n.Content {
		r, err := p.requirement(item, fmt.Sprintf("required[%d]", i+1))
		if err != nil {
			return err
		}
		if j := slices.IndexFunc(f.required, func(o Requirement) bool { return o.Source == r.Source }); j >= 0 {
			return p.errf(item, "%s names %s, as %s does: keep one entry per source", r.Name, quote(r.Source), f.required[j].Rule)
		}
		f.required = append(f.required, r)
	}
	return nil
}

func (p *parser) requirement(n *yaml.Node, name string) (Requirement, error) {
	fields, err := p.fields(n, name, "source", "agents", "reason")
	if err != nil {
		return Requirement{}, err
	}
	r := Requirement{Rule: Rule{Name: name, File: p.path, Line: n.Line}}
	v, ok := fields["source"]
	if !ok {
		return r, p.errf(n, "%s has no source: name the skill's source as add takes it (as source: github:acme/skills/changelog@^1)", name)
	}
	if r.Source, err = p.str(v, name+".source"); err != nil {
		return r, err
	}
	if r.Ref, err = requiredRef(r.Source); err != nil {
		return r, p.errf(v, "%s.source %s: %v", name, quote(redact.URL(r.Source)), err)
	}
	if v, ok := fields["agents"]; ok {
		items, err := p.list(v, name+".agents")
		if err != nil {
			return r, err
		}
		if len(items) == 0 {
			return r, p.errf(v, "%s.agents is empty: name the agents the skill is required for (as agents: [claude-code]), or leave agents out for those the project installs for", name)
		}
		for _, item := range items {
			if _, ok := agents.Lookup(item.Value); !ok {
				return r, p.errf(item, "%s.agents: %q is not an agent this program knows ('agentskills agents' lists them)", name, item.Value)
			}
			if slices.Contains(r.Agents, item.Value) {
				return r, p.errf(item, "%s.agents names %q twice", name, item.Value)
			}
			r.Agents = append(r.Agents, item.Value)
		}
	}
	if v, ok := fields["reason"]; ok {
		if r.Reason, err = p.str(v, name+".reason"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// requiredRef checks text, a required source, for form (rule 23) and
// returns its reference: a version range, a version, or "" (rule 24).
// The kind's package reads the rest when the skill is installed (package
// install names the entry's line if it cannot): this package links no
// source's client.
func requiredRef(text string) (string, error) {
	if strings.ContainsFunc(text, func(r rune) bool { return r <= ' ' && r != ' ' || r == 0x7f }) {
		return "", fmt.Errorf("it holds a control character")
	}
	spec, err := source.Parse(text)
	if err != nil {
		return "", err
	}
	var ref string
	switch {
	case spec.Kind == source.GitHub && !spec.Bare && strings.HasPrefix(text, source.GitHubPrefix):
		ref, err = githubRef(spec.Text)
	case spec.Kind == source.Git && strings.HasPrefix(text, "git+"):
		ref, err = gitRef(spec.Text)
	case spec.Kind == source.OCI:
		ref, err = ociRef(spec.Text)
	default:
		return "", fmt.Errorf("a required skill is a published one, named by its repository: github:OWNER/REPO[/PATH][@RANGE], git+URL[#ref=RANGE&path=PATH] or oci://HOST/REPO[:RANGE] (a folder or a download is not the same on every machine)")
	}
	if err != nil {
		return "", err
	}
	switch {
	case ref == "", version.IsVersion(ref):
		return ref, nil
	case version.IsRange(ref):
		if err := version.CheckRange(ref); err != nil {
			return "", err
		}
		return ref, nil
	}
	return "", fmt.Errorf("its reference %q is no version range (^1, ~1.2, >=1.0 <2) and no version (v1.2.3): a required skill names the versions it accepts, or none for any version, never a branch or a commit", ref)
}

// githubRef returns the reference of OWNER/REPO[/PATH][@REF].
func githubRef(text string) (string, error) {
	if strings.Contains(text, "://") {
		return "", fmt.Errorf("write a GitHub repository as github:OWNER/REPO[/PATH][@RANGE], not as a web address")
	}
	head, ref, _ := strings.Cut(text, "@")
	parts := strings.SplitN(head, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", fmt.Errorf("want github:OWNER/REPO[/PATH][@RANGE]")
	}
	return ref, nil
}

// gitRef returns the ref of git+URL[#ref=REF&path=PATH].
func gitRef(text string) (string, error) {
	u, err := url.Parse(strings.TrimPrefix(text, "git+"))
	if err != nil || u.Scheme == "" || u.Path == "" && u.Host == "" {
		return "", fmt.Errorf("want git+URL[#ref=RANGE&path=PATH], the URL as git reads it")
	}
	if _, ok := u.User.Password(); ok {
		return "", fmt.Errorf("its URL holds a password: a policy file is read by others; let git's credential helper supply it")
	}
	if u.RawQuery != "" || u.ForceQuery {
		return "", fmt.Errorf("its URL has a query (?%s): name the reference and folder in the fragment, #ref=RANGE&path=PATH", u.RawQuery)
	}
	q, err := url.ParseQuery(u.Fragment)
	if err != nil || strings.Contains(u.Fragment, ";") {
		return "", fmt.Errorf("its fragment %q is not ref=REF&path=PATH", u.Fragment)
	}
	for key, vals := range q {
		switch {
		case key != "ref" && key != "path":
			return "", fmt.Errorf("its fragment names %q: only ref and path are read", key)
		case len(vals) > 1:
			return "", fmt.Errorf("its fragment names %s %d times: name it once", key, len(vals))
		}
	}
	if p := q.Get("path"); p != "" && slices.Contains(strings.Split(strings.ReplaceAll(p, "\\", "/"), "/"), "..") {
		return "", fmt.Errorf("its path %q climbs out of the repository (..)", p)
	}
	return q.Get("ref"), nil
}

// ociRef returns the tag or range of oci://HOST/REPO[:TAG][@DIGEST]; a
// digest is refused as a commit is (rule 24).
func ociRef(text string) (string, error) {
	rest := strings.TrimPrefix(text, "oci://")
	if i := strings.Index(rest, "@"); i >= 0 {
		return "", fmt.Errorf("it names the digest %q: a required skill names the versions it accepts (a tag such as :^1 or :v1.2.3), or none for any version", rest[i+1:])
	}
	slash := strings.LastIndex(rest, "/")
	if slash <= 0 || slash == len(rest)-1 {
		return "", fmt.Errorf("want oci://HOST/REPO[:TAG]")
	}
	_, tag, _ := strings.Cut(rest[slash+1:], ":")
	return tag, nil
}
