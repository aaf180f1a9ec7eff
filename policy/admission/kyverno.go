package admission

import (
	"fmt"
	"slices"
	"strings"
)

// The objects of Kyverno (kyverno.io/v1), with the fields written here,
// in the order written.
type (
	clusterPolicy struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   meta   `yaml:"metadata"`
		Spec       kySpec `yaml:"spec"`
	}
	kySpec struct {
		Background            bool     `yaml:"background"`
		FailurePolicy         string   `yaml:"failurePolicy"`
		WebhookTimeoutSeconds int      `yaml:"webhookTimeoutSeconds"`
		Rules                 []kyRule `yaml:"rules"`
	}
	kyRule struct {
		Name            string                        `yaml:"name"`
		Match           kyMatch                       `yaml:"match"`
		ImageExtractors map[string][]kyImageExtractor `yaml:"imageExtractors"`
		VerifyImages    []kyVerifyImage               `yaml:"verifyImages"`
	}
	kyMatch struct {
		Any []kyFilter `yaml:"any"`
	}
	kyFilter struct {
		Resources kyResources `yaml:"resources"`
	}
	kyResources struct {
		Kinds []string `yaml:"kinds"`
	}
	kyImageExtractor struct {
		Name  string `yaml:"name"`
		Path  string `yaml:"path"`
		Value string `yaml:"value"`
		Key   string `yaml:"key,omitempty"`
	}
	kyVerifyImage struct {
		ImageReferences []string        `yaml:"imageReferences"`
		Type            string          `yaml:"type"`
		FailureAction   string          `yaml:"failureAction"`
		MutateDigest    bool            `yaml:"mutateDigest"`
		VerifyDigest    bool            `yaml:"verifyDigest"`
		Attestors       []kyAttestorSet `yaml:"attestors"`
	}
	kyAttestorSet struct {
		Count   int          `yaml:"count"`
		Entries []kyAttestor `yaml:"entries"`
	}
	kyAttestor struct {
		Keys    *kyKeys    `yaml:"keys,omitempty"`
		Keyless *kyKeyless `yaml:"keyless,omitempty"`
	}
	kyKeys struct {
		PublicKeys         string  `yaml:"publicKeys"`
		SignatureAlgorithm string  `yaml:"signatureAlgorithm"`
		Rekor              kyRekor `yaml:"rekor"`
		CTLog              kyCTLog `yaml:"ctlog"`
	}
	kyKeyless struct {
		Subject       string  `yaml:"subject,omitempty"`
		SubjectRegExp string  `yaml:"subjectRegExp,omitempty"`
		Issuer        string  `yaml:"issuer,omitempty"`
		IssuerRegExp  string  `yaml:"issuerRegExp,omitempty"`
		Rekor         kyRekor `yaml:"rekor"`
	}
	kyRekor struct {
		URL        string `yaml:"url,omitempty"`
		IgnoreTlog bool   `yaml:"ignoreTlog,omitempty"`
	}
	kyCTLog struct {
		IgnoreSCT bool `yaml:"ignoreSCT,omitempty"`
	}
)

// podImages are the images of a pod Kyverno's rules check (rule 6):
// its containers' and its image volumes'.
var podImages = []kyImageExtractor{
	{Name: "containers", Path: "/spec/containers/*", Value: "image", Key: "name"},
	{Name: "initContainers", Path: "/spec/initContainers/*", Value: "image", Key: "name"},
	{Name: "ephemeralContainers", Path: "/spec/ephemeralContainers/*", Value: "image", Key: "name"},
	{Name: "imageVolumes", Path: "/spec/volumes/*/image", Value: "reference"},
}

// kyvernoPolicy returns the checks as the ClusterPolicy
// agentskills-signers, one rule each (rules 1, 4, 5 and 6).
func (e *Export) kyvernoPolicy(checks []check) clusterPolicy {
	o := clusterPolicy{
		APIVersion: "kyverno.io/v1",
		Kind:       "ClusterPolicy",
		Metadata: meta{
			Name: "agentskills-signers",
			Annotations: map[string]string{
				// Pods only: a Job's pods are checked as they are created.
				"pod-policies.kyverno.io/autogen-controllers": "none",
				"policies.kyverno.io/title":                   "Skill images signed as the agentskills policy requires",
			},
		},
		Spec: kySpec{FailurePolicy: "Fail", WebhookTimeoutSeconds: 30},
	}
	var desc []string
	for _, c := range checks {
		name := fmt.Sprintf("signers-%d", c.n)
		desc = append(desc, name+": "+description(c.rule))
		set := kyAttestorSet{Count: 1}
		for _, k := range c.keys {
			set.Entries = append(set.Entries, kyAttestor{Keys: &kyKeys{
				PublicKeys: k.pem, SignatureAlgorithm: k.hash,
				Rekor: kyRekor{IgnoreTlog: true}, CTLog: kyCTLog{IgnoreSCT: true},
			}})
		}
		noted := false
		for _, s := range c.keyless {
			if s.TrustedRoot != nil && !noted {
				noted = true
				e.notef(c.rule.Rule, "its trusted_root %s cannot be named in a Kyverno rule: Kyverno verifies keyless signatures against its own trusted root (its TUF settings), which must be that root for these signatures to verify", s.TrustedRootFile)
			}
			set.Entries = append(set.Entries, kyAttestor{Keyless: &kyKeyless{
				Subject: s.Identity, SubjectRegExp: anchored(s.IdentityRegexp),
				Issuer: s.Issuer, IssuerRegExp: anchored(s.IssuerRegexp),
				Rekor: kyRekor{URL: rekorURL},
			}})
		}
		o.Spec.Rules = append(o.Spec.Rules, kyRule{
			Name:            name,
			Match:           kyMatch{Any: []kyFilter{{Resources: kyResources{Kinds: []string{"Pod"}}}}},
			ImageExtractors: map[string][]kyImageExtractor{"Pod": slices.Clone(podImages)},
			VerifyImages: []kyVerifyImage{{
				ImageReferences: c.globs,
				Type:            "SigstoreBundle",
				FailureAction:   "Enforce",
				MutateDigest:    false,
				VerifyDigest:    true,
				Attestors:       []kyAttestorSet{set},
			}},
		})
	}
	o.Metadata.Annotations["policies.kyverno.io/description"] = strings.Join(desc, "\n")
	return o
}
