package admission_test

import (
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/policy/admission"
)

// parse reads a policy file's content written in a scratch folder.
func parse(t *testing.T, yaml string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(yaml), filepath.Join(t.TempDir(), policy.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Rule 7: what cannot be written is left out with a note, and a policy
// with nothing to write is ErrNoSigners, saying what to add.
func TestNoSigners(t *testing.T) {
	for _, tt := range []struct {
		name   string
		yaml   string
		format admission.Format
		note   string
		fix    string
	}{
		{"no file", "", admission.Kyverno, "", "add a signers rule"},
		{"no signers", "version: 1\nsources:\n  pinned: true\n", admission.PolicyController, "", "add a signers rule"},
		{"commits only", "version: 1\nsigners:\n  - sources: [github:acme/*]\n    commits: {allowed_signers: " + filepath.Join("testdata", "allowed_signers") + "}\n", admission.Kyverno, "whose commits no image admission checks", "add a signers rule"},
		{"keys only, for policy-controller", "version: 1\nsigners:\n  - sources: [oci:ghcr.io/acme/*]\n    keys: [" + filepath.Join("testdata", "release.pub") + "]\n", admission.PolicyController, "names keys alone; the kyverno format checks keys", "give a rule an identity and issuer"},
		{"a pattern that names no repository", "version: 1\nsigners:\n  - sources: [\"oci:*\"]\n    identity: a@b.example\n    issuer: https://b.example\n", admission.PolicyController, "it matches no repository", "fix them as the notes say"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &policy.Policy{}
			if tt.yaml != "" {
				abs, _ := filepath.Abs(".")
				tt.yaml = strings.ReplaceAll(tt.yaml, "testdata", filepath.Join(abs, "testdata"))
				p = parse(t, tt.yaml)
			}
			e, err := admission.Policies(p, tt.format)
			if !errors.Is(err, admission.ErrNoSigners) || !strings.Contains(err.Error(), tt.fix) {
				t.Fatalf("Policies() = %v, want %v saying what to add", err, admission.ErrNoSigners)
			}
			if tt.note != "" && !slices.ContainsFunc(e.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("Policies() notes = %q, want one saying %q", e.Notes, tt.note)
			}
		})
	}
}

// An unknown format is refused, naming the formats.
func TestUnknownFormat(t *testing.T) {
	p := loadPolicy(t, "policy.yaml")
	if _, err := admission.Policies(p, "gatekeeper"); err == nil || !strings.Contains(err.Error(), "policy-controller") {
		t.Errorf("Policies(gatekeeper) = %v, want an error naming the formats", err)
	}
}

// Rules 4 and 5: what the tools' admission webhooks check beyond the
// schema, as their projects document it: policy-controller's keyless
// authorities have a URL and identities each with an issuer and a
// subject (exact or expression) and not both; Kyverno's attestor sets
// count no more than their entries, keys name a known algorithm, and
// keyless entries a Rekor URL. And an identity_regexp is anchored.
func TestWebhookChecks(t *testing.T) {
	p := loadPolicy(t, "policy.yaml")
	e, err := admission.Policies(p, admission.PolicyController)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range documents(t, e.YAML) {
		for _, a := range spec(o, "authorities").([]any) {
			k := a.(map[string]any)["keyless"].(map[string]any)
			if k["url"] == nil {
				t.Errorf("%v: keyless authority without url", o["metadata"])
			}
			for _, id := range k["identities"].([]any) {
				id := id.(map[string]any)
				if (id["issuer"] == nil) == (id["issuerRegExp"] == nil) || (id["subject"] == nil) == (id["subjectRegExp"] == nil) {
					t.Errorf("identity %v: want one of issuer and issuerRegExp, one of subject and subjectRegExp", id)
				}
				checkAnchored(t, id["subjectRegExp"], id["issuerRegExp"])
			}
		}
	}
	e, err = admission.Policies(p, admission.Kyverno)
	if err != nil {
		t.Fatal(err)
	}
	o := documents(t, e.YAML)[0]
	for _, r := range spec(o, "rules").([]any) {
		for _, vi := range r.(map[string]any)["verifyImages"].([]any) {
			for _, set := range vi.(map[string]any)["attestors"].([]any) {
				set := set.(map[string]any)
				entries := set["entries"].([]any)
				if set["count"].(int) > len(entries) || len(entries) == 0 {
					t.Errorf("attestor set count %v over %d entries", set["count"], len(entries))
				}
				for _, en := range entries {
					en := en.(map[string]any)
					if k, ok := en["keys"].(map[string]any); ok && !slices.Contains([]string{"sha224", "sha256", "sha384", "sha512"}, k["signatureAlgorithm"].(string)) {
						t.Errorf("keys with signatureAlgorithm %v", k["signatureAlgorithm"])
					}
					if k, ok := en["keyless"].(map[string]any); ok {
						if k["rekor"].(map[string]any)["url"] == nil {
							t.Errorf("keyless entry without rekor.url: %v", k)
						}
						checkAnchored(t, k["subjectRegExp"], k["issuerRegExp"])
					}
				}
			}
		}
	}
}

// checkAnchored fails unless each expression given is ^(?:...)$ and
// compiles.
func checkAnchored(t *testing.T, exprs ...any) {
	t.Helper()
	for _, x := range exprs {
		s, ok := x.(string)
		if !ok {
			continue
		}
		if !strings.HasPrefix(s, "^(?:") || !strings.HasSuffix(s, ")$") {
			t.Errorf("expression %q is not anchored", s)
		}
		if _, err := regexp.Compile(s); err != nil {
			t.Errorf("expression %q: %v", s, err)
		}
	}
}

// Rule 5: an anchored expression matches the whole value, as the
// policy's does, and not a value that only holds a match.
func TestAnchoredIdentity(t *testing.T) {
	p := parse(t, "version: 1\nsigners:\n  - sources: [oci:ghcr.io/acme/*]\n    identity_regexp: alice@example\\.com\n    issuer: https://issuer.example\n")
	e, err := admission.Policies(p, admission.Kyverno)
	if err != nil {
		t.Fatal(err)
	}
	entry := verifyImage(documents(t, e.YAML)[0])["attestors"].([]any)[0].(map[string]any)["entries"].([]any)[0].(map[string]any)
	re := regexp.MustCompile(entry["keyless"].(map[string]any)["subjectRegExp"].(string))
	if !re.MatchString("alice@example.com") || re.MatchString("evil-alice@example.com.attacker") {
		t.Errorf("subjectRegExp %s: want alice@example.com alone", re)
	}
}
