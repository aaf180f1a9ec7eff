package admission

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/policy"
)

// Format is a kind of admission policy [Policies] writes.
type Format string

const (
	// PolicyController is Sigstore policy-controller's ClusterImagePolicy.
	PolicyController Format = "policy-controller"
	// Kyverno is Kyverno's ClusterPolicy with verifyImages rules.
	Kyverno Format = "kyverno"
)

// Formats returns the formats [Policies] writes.
func Formats() []Format { return []Format{PolicyController, Kyverno} }

// ErrNoSigners is wrapped by the error of [Policies] for a policy with no
// signers rule it can write (rule 7).
var ErrNoSigners = errors.New("no signer rule for oci sources")

// Export is what [Policies] writes.
type Export struct {
	// YAML holds the objects, one YAML document each (rule 8).
	YAML []byte
	// Notes say, one line each, what was left out or matched more
	// widely than the policy says, and why (rules 2 to 7); for the user
	// to read beside the YAML, never to be dropped.
	Notes []string

	keysOnly int // rules left out for having keys alone (policy-controller)
}

// The public Sigstore services named where a tool requires a URL
// (rule 5).
const (
	fulcioURL = "https://fulcio.sigstore.dev"
	rekorURL  = "https://rekor.sigstore.dev"
)

// Policies returns the admission policy of format f that requires, of
// the images of the oci sources p's signers rules name, the signers
// those rules require (package doc, rules 1 to 8). The error is
// [ErrNoSigners] when no rule can be written, naming what to add (the
// Export returned beside it holds the notes that say why), or an
// unknown format.
func Policies(p *policy.Policy, f Format) (*Export, error) {
	if !slices.Contains(Formats(), f) {
		return nil, fmt.Errorf("admission policy format %q is not one this package writes: use %s or %s", f, PolicyController, Kyverno)
	}
	sigs, commits := p.Signers()
	e := &Export{}
	for _, c := range commits {
		e.notef(c.Rule, "left out: its commits rule names git and github sources (%s), whose commits no image admission checks", strings.Join(c.Sources, ", "))
	}
	var checks []check
	for i, r := range sigs {
		if c, ok := e.check(i+1, r, f); ok {
			checks = append(checks, c)
		}
	}
	var docs []any
	switch f {
	case PolicyController:
		e.Notes = append(e.Notes, "policy-controller v0.13.1 checks the images of containers and not those of image volumes, where skills are mounted; the release after it checks both (sigstore/policy-controller#1976)")
		for _, c := range checks {
			docs = append(docs, e.clusterImagePolicy(c))
		}
	case Kyverno:
		if len(checks) > 0 {
			docs = append(docs, e.kyvernoPolicy(checks))
		}
	}
	if len(docs) == 0 {
		where := "no policy file"
		if files := p.Files(); len(files) > 0 {
			where = strings.Join(files, ", ")
		}
		if len(sigs) > 0 {
			fix := "fix them as the notes say"
			if e.keysOnly == len(sigs) {
				fix = "give a rule an identity and issuer (policy-controller checks no key of ours), or write the kyverno format"
			}
			return e, fmt.Errorf("%s: %w: none of its %d signers rules for oci sources can be written for %s (the notes say why): %s", where, ErrNoSigners, len(sigs), f, fix)
		}
		return e, fmt.Errorf("%s: %w: add a signers rule for the skills' repositories to the policy, with keys or an identity and issuer (as sources: [oci:ghcr.io/acme/*] and keys: [cosign.pub])", where, ErrNoSigners)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	e.YAML = buf.Bytes()
	return e, nil
}

// notef adds a note about rule r.
func (e *Export) notef(r policy.Rule, format string, args ...any) {
	e.Notes = append(e.Notes, r.String()+": "+fmt.Sprintf(format, args...))
}

// check is one signers rule in a tool's terms.
type check struct {
	n       int // its place in the policy's signers rules, from 1 (rule 1)
	rule    policy.SignerRule
	globs   []string
	keys    []key
	keyless []policy.Signer
}

// key is a public key as PEM, with the hash its signatures are made over.
type key struct {
	pem, hash string
}

// check turns r into f's globs, keys and identities, noting what is
// left out or wider; false when nothing of it can be written.
func (e *Export) check(n int, r policy.SignerRule, f Format) (check, bool) {
	d := kyvernoGlob
	if f == PolicyController {
		d = policyControllerGlob
	}
	c := check{n: n, rule: r}
	if f == PolicyController && !slices.ContainsFunc(r.Requirements, func(s policy.Signer) bool { return s.Key == nil }) {
		e.keysOnly++
		e.notef(r.Rule, "left out: policy-controller v0.13.1 verifies Sigstore bundles (as cosign 3 and agentskills sign) for keyless authorities only, and this rule names keys alone; the kyverno format checks keys")
		return c, false
	}
	for _, src := range r.Sources {
		loc, ok := strings.CutPrefix(src, "oci:")
		if !ok {
			e.notef(r.Rule, "left out %s: not an oci pattern", src)
			continue
		}
		globs, wider, err := d.widerGlobs(loc)
		if err != nil {
			e.notef(r.Rule, "left out %s: %v", src, err)
			continue
		}
		if wider != "" {
			e.notef(r.Rule, "%s is written %s, which matches more images than the pattern: %s", src, strings.Join(globs, " "), wider)
		}
		c.globs = append(c.globs, globs...)
	}
	for _, s := range r.Requirements {
		if s.Key == nil {
			c.keyless = append(c.keyless, s)
			continue
		}
		k, err := publicKey(s)
		if err != nil {
			e.notef(r.Rule, "left out the key %s: %v", s.KeyName, err)
			continue
		}
		c.keys = append(c.keys, k)
	}
	if len(c.globs) == 0 {
		e.notef(r.Rule, "left out: none of its patterns can be written as an image glob")
		return c, false
	}
	if len(c.keys) == 0 && len(c.keyless) == 0 {
		e.notef(r.Rule, "left out: none of its signers can be written")
		return c, false
	}
	return c, true
}

// publicKey returns s's key as PEM and the hash it signs over (rule 4).
func publicKey(s policy.Signer) (key, error) {
	der, err := x509.MarshalPKIXPublicKey(s.Key)
	if err != nil {
		return key{}, err
	}
	hash := "sha256"
	switch k := s.Key.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P384():
			hash = "sha384"
		case elliptic.P521():
			hash = "sha512"
		}
	case ed25519.PublicKey:
	default:
		return key{}, fmt.Errorf("a %T key, which signatures are not made with", s.Key)
	}
	return key{pem: strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))), hash: hash}, nil
}

// anchored returns a regular expression that must match the whole
// value, as the policy's do (rule 5).
func anchored(expr string) string {
	if expr == "" {
		return ""
	}
	return "^(?:" + expr + ")$"
}

// rootName returns the name of the TrustRoot that stands for a trusted
// root's content (rule 5).
func rootName(root []byte) string {
	sum := sha256.Sum256(root)
	return "agentskills-root-" + hex.EncodeToString(sum[:])[:12]
}

// description says which rule an object or rule stands for.
func description(r policy.SignerRule) string {
	return fmt.Sprintf("agentskills policy %s: sources %s", r.Name, strings.Join(r.Sources, ", "))
}

// meta is an object's metadata.
type meta struct {
	Name        string            `yaml:"name"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// descriptionAnnotation names the rule a ClusterImagePolicy stands for.
const descriptionAnnotation = "description"
