package admission

import (
	"fmt"
	"slices"
)

// The objects of policy-controller (policy.sigstore.dev/v1beta1), with
// the fields written here, in the order written.
type (
	clusterImagePolicy struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   meta    `yaml:"metadata"`
		Spec       cipSpec `yaml:"spec"`
	}
	cipSpec struct {
		Images      []cipImage     `yaml:"images"`
		Authorities []cipAuthority `yaml:"authorities"`
		Mode        string         `yaml:"mode"`
	}
	cipImage struct {
		Glob string `yaml:"glob"`
	}
	cipAuthority struct {
		Name            string      `yaml:"name"`
		Keyless         *cipKeyless `yaml:"keyless,omitempty"`
		SignatureFormat string      `yaml:"signatureFormat,omitempty"`
	}
	cipKeyless struct {
		URL          string        `yaml:"url"`
		Identities   []cipIdentity `yaml:"identities"`
		TrustRootRef string        `yaml:"trustRootRef,omitempty"`
	}
	cipIdentity struct {
		Issuer        string `yaml:"issuer,omitempty"`
		IssuerRegExp  string `yaml:"issuerRegExp,omitempty"`
		Subject       string `yaml:"subject,omitempty"`
		SubjectRegExp string `yaml:"subjectRegExp,omitempty"`
	}
)

// clusterImagePolicy returns check c, which names an identity, as the
// ClusterImagePolicy agentskills-signers-N (rules 1, 4 and 5).
func (e *Export) clusterImagePolicy(c check) clusterImagePolicy {
	o := clusterImagePolicy{
		APIVersion: "policy.sigstore.dev/v1beta1",
		Kind:       "ClusterImagePolicy",
		Metadata: meta{
			Name:        fmt.Sprintf("agentskills-signers-%d", c.n),
			Annotations: map[string]string{descriptionAnnotation: description(c.rule)},
		},
		Spec: cipSpec{Mode: "enforce"},
	}
	for _, g := range c.globs {
		o.Spec.Images = append(o.Spec.Images, cipImage{Glob: g})
	}
	if len(c.keys) > 0 { // beside identities: keys alone are left out before (Policies)
		what := "its keys are"
		if len(c.keys) == 1 {
			what = "its key is"
		}
		e.notef(c.rule.Rule, "%s left out: policy-controller v0.13.1 verifies Sigstore bundles (as cosign 3 and agentskills sign) for keyless authorities only, so only its identities are accepted", what)
	}
	var roots []string
	for i, s := range c.keyless {
		k := &cipKeyless{
			URL: fulcioURL,
			Identities: []cipIdentity{{
				Issuer: s.Issuer, IssuerRegExp: anchored(s.IssuerRegexp),
				Subject: s.Identity, SubjectRegExp: anchored(s.IdentityRegexp),
			}},
		}
		if s.TrustedRoot != nil {
			k.TrustRootRef = rootName(s.TrustedRoot)
			if !slices.Contains(roots, k.TrustRootRef) {
				roots = append(roots, k.TrustRootRef)
				e.notef(c.rule.Rule, "its identities are checked against the TrustRoot %s, which the cluster must hold: create it from %s", k.TrustRootRef, s.TrustedRootFile)
			}
		}
		o.Spec.Authorities = append(o.Spec.Authorities, cipAuthority{
			Name:            fmt.Sprintf("keyless-%d", i+1),
			Keyless:         k,
			SignatureFormat: "bundle",
		})
	}
	return o
}
