package policy

import (
	"crypto"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/pubkey"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/strictyaml"
	"github.com/agentadaptor/agentadaptor/source"
)

// defaultFailOn is the threshold of a file that does not say (rule 9).
const defaultFailOn = audit.High

// noFailOn is the threshold of a file that extends another and does not
// say (rule 21): above every severity, so that it refuses nothing itself.
const noFailOn = audit.Critical + 1

// rules are one policy file, read.
type rules struct {
	path    string
	project bool // the project's file, which can only tighten (rule 14)

	allow      []pattern
	hasAllow   bool
	allowLine  int
	pinned     bool
	pinnedLine int

	signers []*signerRule

	failOn     audit.Severity
	failOnLine int
	accept     []acceptEntry

	ext      extension // extends, and where the file is in a chain (extends.go)
	required []Requirement
}

// signerRule is one entry of signers (rules 6 and 7).
type signerRule struct {
	Rule
	sources []pattern

	keys        []key
	identity    string
	identityRE  string
	issuer      string
	issuerRE    string
	trustedRoot []byte
	rootFile    string // the file trustedRoot was read from

	commits                    bool
	allowedSigners, gpgKeyring string
}

// key is one public key of a rule, with where it was named.
type key struct {
	name string // the file, or "the key at line N"
	pub  crypto.PublicKey
}

// acceptEntry is one entry of audit.accept (rule 10).
type acceptEntry struct {
	Rule
	rule, skill, reason string
	source              *pattern
}

// parser reads one file; its errors name the file and line (rule 1).
type parser struct {
	path, dir, home string
	fetched         bool // a file another extends: it names no file relative to its folder (rule 20)
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, where(p.path, n.Line), fmt.Sprintf(format, args...))
}

// parse reads data, the content of the policy file named name; home
// stands for ~.
func parse(data []byte, name, home string) (*rules, error) {
	return (&parser{path: name, dir: filepath.Dir(name), home: home}).parse(data)
}

func (p *parser) parse(data []byte) (*rules, error) {
	name := p.path
	root, err := strictyaml.Document(data, name, "a policy file")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if root == nil {
		return nil, fmt.Errorf("%w: %s: empty; a policy file starts with version: 1", ErrInvalid, name)
	}
	fields, err := p.fields(root, "the policy", "version", "extends", "sources", "signers", "audit", "required")
	if err != nil {
		return nil, err
	}
	v, ok := fields["version"]
	if !ok {
		return nil, p.errf(root, "no version; a policy file says version: 1")
	}
	if v.Kind != yaml.ScalarNode || v.Value != "1" {
		return nil, p.errf(v, "version %q is not one this program reads; write version: 1", v.Value)
	}
	f := &rules{path: name, failOn: defaultFailOn}
	if n, ok := fields["extends"]; ok {
		if err := p.extends(n, f); err != nil {
			return nil, err
		}
	}
	if n, ok := fields["sources"]; ok {
		if err := p.sources(n, f); err != nil {
			return nil, err
		}
	}
	if n, ok := fields["signers"]; ok {
		if err := p.signers(n, f); err != nil {
			return nil, err
		}
	}
	if n, ok := fields["audit"]; ok {
		if err := p.audit(n, f); err != nil {
			return nil, err
		}
	}
	if n, ok := fields["required"]; ok {
		if err := p.required(n, f); err != nil {
			return nil, err
		}
	}
	if f.ext.source != "" && f.failOnLine == 0 {
		// A file that extends another and does not say has no threshold
		// of its own: the chain's file extended last keeps the default
		// (rule 21), and an acceptance of a file extended takes effect.
		f.failOn = noFailOn
	}
	return f, nil
}

// fields returns the values of mapping n by key, refusing a key not
// known (rule 1) and a key given twice.
func (p *parser) fields(n *yaml.Node, what string, known ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "%s must be a mapping of keys (%s)", what, strings.Join(known, ", "))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || !slices.Contains(known, k.Value) {
			return nil, p.errf(k, "unknown key %q in %s; the keys are %s", k.Value, what, strings.Join(known, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errf(k, "key %q given twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

// keyLine returns the line of key in mapping n.
func keyLine(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

// str reads a string scalar.
func (p *parser) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.errf(n, "%s must be a string", what)
	}
	if n.Value == "" {
		return "", p.errf(n, "%s is empty", what)
	}
	for _, r := range n.Value {
		if (unicode.IsControl(r) && r != '\n') || unicode.Is(unicode.Cf, r) {
			return "", p.errf(n, "%s holds the control or invisible character %U; a policy's words are shown on terminals: remove it", what, r)
		}
	}
	return n.Value, nil
}

// list reads a sequence of strings.
func (p *parser) list(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errf(n, "%s must be a list", what)
	}
	for _, c := range n.Content {
		if _, err := p.str(c, "an entry of "+what); err != nil {
			return nil, err
		}
	}
	return n.Content, nil
}

// patterns reads a list of patterns (rule 3).
func (p *parser) patterns(n *yaml.Node, what string) ([]pattern, error) {
	items, err := p.list(n, what)
	if err != nil {
		return nil, err
	}
	var out []pattern
	for _, c := range items {
		pat, err := p.pattern(c, what)
		if err != nil {
			return nil, err
		}
		out = append(out, pat)
	}
	return out, nil
}

// sources reads the sources section (rules 2 to 4).
func (p *parser) sources(n *yaml.Node, f *rules) error {
	fields, err := p.fields(n, "sources", "allow", "pinned")
	if err != nil {
		return err
	}
	if a, ok := fields["allow"]; ok {
		if f.allow, err = p.patterns(a, "sources.allow"); err != nil {
			return err
		}
		f.hasAllow, f.allowLine = true, keyLine(n, "allow")
	}
	if v, ok := fields["pinned"]; ok {
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			return p.errf(v, "sources.pinned must be true or false, not %q", v.Value)
		}
		f.pinned, f.pinnedLine = v.Value == "true", v.Line
	}
	return nil
}

// signers reads the signers section (rules 6 to 8).
func (p *parser) signers(n *yaml.Node, f *rules) error {
	if n.Kind != yaml.SequenceNode {
		return p.errf(n, "signers must be a list of rules, each with sources and keys, an identity and issuer, or commits")
	}
	for i, item := range n.Content {
		name := fmt.Sprintf("signers[%d]", i+1)
		r, err := p.signerRule(item, name)
		if err != nil {
			return err
		}
		f.signers = append(f.signers, r)
	}
	return nil
}

func (p *parser) signerRule(n *yaml.Node, name string) (*signerRule, error) {
	fields, err := p.fields(n, name, "sources", "keys", "identity", "identity_regexp", "issuer", "issuer_regexp", "trusted_root", "commits")
	if err != nil {
		return nil, err
	}
	r := &signerRule{Rule: Rule{Name: name, File: p.path, Line: n.Line}}
	src, ok := fields["sources"]
	if !ok {
		return nil, p.errf(n, "%s has no sources: name the sources it applies to (as sources: [oci:ghcr.io/acme/*])", name)
	}
	if r.sources, err = p.patterns(src, name+".sources"); err != nil {
		return nil, err
	}
	if len(r.sources) == 0 {
		return nil, p.errf(src, "%s.sources is empty: name the sources it applies to", name)
	}
	strs := map[string]*string{"identity": &r.identity, "identity_regexp": &r.identityRE, "issuer": &r.issuer, "issuer_regexp": &r.issuerRE}
	for k, dst := range strs {
		if v, ok := fields[k]; ok {
			if *dst, err = p.str(v, name+"."+k); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range []string{"identity_regexp", "issuer_regexp"} {
		if v, ok := fields[k]; ok {
			if _, err := regexp.Compile(v.Value); err != nil {
				return nil, p.errf(v, "%s.%s does not compile: %v", name, k, err)
			}
		}
	}
	if ks, ok := fields["keys"]; ok {
		items, err := p.list(ks, name+".keys")
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, p.errf(ks, "%s.keys is empty: name a public key file", name)
		}
		for _, item := range items {
			k, err := p.key(item, name)
			if err != nil {
				return nil, err
			}
			r.keys = append(r.keys, k)
		}
	}
	if tr, ok := fields["trusted_root"]; ok {
		if r.trustedRoot, r.rootFile, err = p.trustedRoot(tr, name); err != nil {
			return nil, err
		}
	}
	if c, ok := fields["commits"]; ok {
		if err := p.commits(c, name, r); err != nil {
			return nil, err
		}
	}
	return r, p.checkSigner(n, fields, r)
}

// checkSigner refuses a rule that names no signer, half an identity, or
// signers no source it names can carry (rules 6 and 7).
func (p *parser) checkSigner(n *yaml.Node, fields map[string]*yaml.Node, r *signerRule) error {
	hasID := r.identity != "" || r.identityRE != ""
	hasIssuer := r.issuer != "" || r.issuerRE != ""
	switch {
	case r.identity != "" && r.identityRE != "":
		return p.errf(fields["identity"], "%s names identity and identity_regexp: keep one", r.Name)
	case r.issuer != "" && r.issuerRE != "":
		return p.errf(fields["issuer"], "%s names issuer and issuer_regexp: keep one", r.Name)
	case hasID != hasIssuer:
		return p.errf(n, "%s names an identity without an issuer or an issuer without an identity: a certificate is checked for both (as cosign's --certificate-identity and --certificate-oidc-issuer)", r.Name)
	case r.trustedRoot != nil && !hasID:
		return p.errf(fields["trusted_root"], "%s names a trusted_root but no identity: a trusted root checks keyless signatures, which need identity and issuer", r.Name)
	case r.commits && (hasID || len(r.keys) > 0):
		return p.errf(n, "%s names commits and keys or an identity: write two rules, one for commits of git and github sources, one for signatures of oci sources", r.Name)
	case !r.commits && !hasID && len(r.keys) == 0:
		return p.errf(n, "%s names no signer: give keys, identity and issuer, or commits", r.Name)
	}
	for _, pat := range r.sources {
		switch {
		case r.commits && pat.kind != source.Git && pat.kind != source.GitHub:
			return p.errf(&yaml.Node{Line: pat.line}, "%s: commits apply to git and github sources, not %s", r.Name, quote(pat.text))
		case !r.commits && pat.kind != source.OCI:
			return p.errf(&yaml.Node{Line: pat.line}, "%s: keys and identities sign oci sources, not %s (a git or github source's commits are required signed with commits: {allowed_signers: FILE})", r.Name, quote(pat.text))
		}
	}
	return nil
}

// key reads one entry of keys: inline PEM or a file (rule 8).
func (p *parser) key(n *yaml.Node, rule string) (key, error) {
	text := strings.TrimSpace(n.Value)
	if strings.HasPrefix(text, "-----BEGIN") {
		return p.loadKey(n, rule, fmt.Sprintf("the key at line %d", n.Line), []byte(text))
	}
	name, err := p.resolve(n, rule+".keys")
	if err != nil {
		return key{}, err
	}
	data, err := readfile.Small(name, MaxFileSize)
	if err != nil {
		return key{}, p.errf(n, "%s.keys: %v", rule, err)
	}
	return p.loadKey(n, rule, name, data)
}

// loadKey reads a PEM public key as package signature reads it, and
// refuses one it would refuse, with its words (its ErrKey's text is
// "unusable key").
func (p *parser) loadKey(n *yaml.Node, rule, name string, data []byte) (key, error) {
	pub, err := pubkey.Parse(data)
	if err != nil {
		return key{}, p.errf(n, "%s.keys: %s: unusable key: %v", rule, name, err)
	}
	return key{name: name, pub: pub}, nil
}

// trustedRoot reads a trusted_root.json (rule 8), and returns it and the
// file it was read from.
func (p *parser) trustedRoot(n *yaml.Node, rule string) ([]byte, string, error) {
	if _, err := p.str(n, rule+".trusted_root"); err != nil {
		return nil, "", err
	}
	name, err := p.resolve(n, rule+".trusted_root")
	if err != nil {
		return nil, "", err
	}
	data, err := readfile.Small(name, MaxFileSize)
	if err != nil {
		return nil, "", p.errf(n, "%s.trusted_root: %v", rule, err)
	}
	if !json.Valid(data) {
		return nil, "", p.errf(n, "%s.trusted_root: %s is not JSON (a Sigstore trusted_root.json)", rule, name)
	}
	return data, name, nil
}

// commits reads a rule's commits (rule 7).
func (p *parser) commits(n *yaml.Node, rule string, r *signerRule) error {
	fields, err := p.fields(n, rule+".commits", "allowed_signers", "gpg_keyring")
	if err != nil {
		return err
	}
	if len(fields) == 0 {
		return p.errf(n, "%s.commits names neither allowed_signers nor gpg_keyring", rule)
	}
	for k, dst := range map[string]*string{"allowed_signers": &r.allowedSigners, "gpg_keyring": &r.gpgKeyring} {
		v, ok := fields[k]
		if !ok {
			continue
		}
		if _, err := p.str(v, rule+".commits."+k); err != nil {
			return err
		}
		name, err := p.resolve(v, rule+".commits."+k)
		if err != nil {
			return err
		}
		fi, err := os.Stat(name)
		if err != nil {
			return p.errf(v, "%s.commits.%s: %v", rule, k, err)
		}
		if !fi.Mode().IsRegular() {
			return p.errf(v, "%s.commits.%s: %s is not a regular file", rule, k, name)
		}
		*dst = name
	}
	r.commits = true
	return nil
}

// resolve makes the file a policy names a path: absolute, under the home
// for ~/, else in the policy file's folder (rule 8).
func (p *parser) resolve(n *yaml.Node, what string) (string, error) {
	name := n.Value
	switch {
	case name == "~" || strings.HasPrefix(name, "~/"):
		if p.home == "" {
			return "", p.errf(n, "%s: %q starts with ~ but there is no home folder; write an absolute path", what, name)
		}
		return filepath.Join(p.home, name[1:]), nil
	case filepath.IsAbs(name):
		return filepath.Clean(name), nil
	case p.fetched:
		return "", p.errf(n, "%s: %q is relative, but this file was fetched (extends) and has no folder of its own; write the key inline as PEM, or an absolute path or one under ~/", what, name)
	}
	return filepath.Join(p.dir, filepath.FromSlash(name)), nil
}

// audit reads the audit section (rules 9 and 10).
func (p *parser) audit(n *yaml.Node, f *rules) error {
	fields, err := p.fields(n, "audit", "fail_on", "accept")
	if err != nil {
		return err
	}
	if v, ok := fields["fail_on"]; ok {
		s, err := audit.ParseSeverity(v.Value)
		if err != nil || v.Kind != yaml.ScalarNode {
			return p.errf(v, "audit.fail_on %q is not a severity: write info, low, medium, high or critical", v.Value)
		}
		f.failOn, f.failOnLine = s, v.Line
	}
	a, ok := fields["accept"]
	if !ok {
		return nil
	}
	if a.Kind != yaml.SequenceNode {
		return p.errf(a, "audit.accept must be a list of entries, each with rule and reason")
	}
	for i, item := range a.Content {
		e, err := p.acceptEntry(item, fmt.Sprintf("audit.accept[%d]", i+1))
		if err != nil {
			return err
		}
		f.accept = append(f.accept, e)
	}
	return nil
}

func (p *parser) acceptEntry(n *yaml.Node, name string) (acceptEntry, error) {
	fields, err := p.fields(n, name, "rule", "skill", "source", "reason")
	if err != nil {
		return acceptEntry{}, err
	}
	e := acceptEntry{Rule: Rule{Name: name, File: p.path, Line: n.Line}}
	v, ok := fields["rule"]
	if !ok {
		return e, p.errf(n, "%s has no rule: name the audit rule accepted (as rule: download-exec)", name)
	}
	if e.rule, err = p.str(v, name+".rule"); err != nil {
		return e, err
	}
	if _, ok := audit.LookupRule(e.rule); !ok {
		var ids []string
		for _, r := range audit.Rules() {
			ids = append(ids, r.ID)
		}
		return e, p.errf(v, "%s.rule %q is not an audit rule; the rules are %s", name, e.rule, strings.Join(ids, ", "))
	}
	v, ok = fields["reason"]
	if !ok {
		return e, p.errf(n, "%s has no reason: say why the finding is accepted (reason: ...)", name)
	}
	if e.reason, err = p.str(v, name+".reason"); err != nil {
		return e, err
	}
	if v, ok := fields["skill"]; ok {
		if e.skill, err = p.str(v, name+".skill"); err != nil {
			return e, err
		}
		if _, err := path.Match(e.skill, ""); err != nil {
			return e, p.errf(v, "%s.skill %q is not a valid pattern", name, e.skill)
		}
	}
	if v, ok := fields["source"]; ok {
		if _, err := p.str(v, name+".source"); err != nil {
			return e, err
		}
		pat, err := p.pattern(v, name+".source")
		if err != nil {
			return e, err
		}
		e.source = &pat
	}
	return e, nil
}

// allowed returns the pattern of f that allows s (canonical), nil when
// f has no sources.allow, or a refusal (rules 2, 5 and 11); why is the
// reason of a source of kind "unknown".
func (f *rules) allowed(s source.Origin, why string) (*pattern, error) {
	if !f.hasAllow || s.Kind == source.Inline {
		return nil, nil
	}
	r := Rule{Name: "sources.allow", File: f.path, Line: f.allowLine}
	if s.Kind == source.Unknown {
		return nil, r.Deny(s, why)
	}
	for i := range f.allow {
		if f.allow[i].matches(s, false) {
			return &f.allow[i], nil
		}
	}
	return nil, r.Deny(s, fmt.Sprintf("no pattern of sources.allow matches %s:%s; use a source it allows, or add a pattern that matches it to %s", s.Kind, s.Location, f.path))
}

// matches reports whether the rule applies to s (canonical): whatever
// the case of the location's path, so that a rule is never skipped for
// a spelling in another case (rule 3).
func (r *signerRule) matches(s source.Origin) bool {
	return slices.ContainsFunc(r.sources, func(p pattern) bool { return p.matches(s, true) })
}

// patternTexts returns the rule's patterns as KIND:LOCATION, canonical.
func (r *signerRule) patternTexts() []string {
	out := make([]string, len(r.sources))
	for i, p := range r.sources {
		out[i] = p.canonical()
	}
	return out
}

// commitRule returns a rule with commits as its public form.
func (r *signerRule) commitRule() CommitRule {
	return CommitRule{Rule: r.Rule, Sources: r.patternTexts(), AllowedSigners: r.allowedSigners, GPGKeyring: r.gpgKeyring}
}

// requirements returns the signers the rule accepts.
func (r *signerRule) requirements() []Signer {
	var out []Signer
	for _, k := range r.keys {
		out = append(out, Signer{Key: k.pub, KeyName: k.name})
	}
	if r.identity != "" || r.identityRE != "" {
		out = append(out, Signer{
			Identity: r.identity, IdentityRegexp: r.identityRE,
			Issuer: r.issuer, IssuerRegexp: r.issuerRE,
			TrustedRoot: r.trustedRoot, TrustedRootFile: r.rootFile,
		})
	}
	return out
}

// acceptance returns the entry of f that accepts a finding of rule in
// skill from s, or nil (rule 10).
func (f *rules) acceptance(rule, skill string, s source.Origin) *acceptEntry {
	for i, e := range f.accept {
		if e.matches(rule, skill, s) {
			return &f.accept[i]
		}
	}
	return nil
}

func (e acceptEntry) matches(rule, skill string, s source.Origin) bool {
	if e.rule != rule {
		return false
	}
	if e.skill != "" {
		if ok, _ := path.Match(e.skill, skill); !ok {
			return false
		}
	}
	return e.source == nil || e.source.matches(s, false)
}
