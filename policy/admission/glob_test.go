package admission_test

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/policy/admission"
	"github.com/agentadaptor/agentadaptor/source"
)

// policyControllerMatch matches an image (fully qualified, not on Docker
// Hub) against a glob as policy-controller's glob package documents it:
// only letters, digits and -_:/*.@; ** any run of characters, * any run
// without "/", the rest itself, over the whole reference.
func policyControllerMatch(t *testing.T, glob, image string) bool {
	t.Helper()
	if !regexp.MustCompile(`^[a-zA-Z0-9-_:/*.@]+$`).MatchString(glob) {
		t.Fatalf("glob %q holds a character policy-controller refuses", glob)
	}
	re := strings.ReplaceAll(glob, ".", `\.`)
	re = strings.ReplaceAll(re, "**", "#")
	re = strings.ReplaceAll(re, "*", "[^/]*")
	re = strings.ReplaceAll(re, "#", ".*")
	return regexp.MustCompile("^" + re + "$").MatchString(image)
}

// kyvernoMatch matches an image against a glob as Kyverno's wildcard
// matching documents it: * any run of characters, "/" included, ? any
// one character, the rest itself, over the whole reference.
func kyvernoMatch(glob, image string) bool {
	switch {
	case glob == "":
		return image == ""
	case glob[0] == '*':
		for i := 0; i <= len(image); i++ {
			if kyvernoMatch(glob[1:], image[i:]) {
				return true
			}
		}
		return false
	case image == "":
		return false
	case glob[0] == '?' || glob[0] == image[0]:
		return kyvernoMatch(glob[1:], image[1:])
	}
	return false
}

// Rules 2 and 3: for every pattern and repository, a glob matches the
// repository's images (by tag or by digest) whenever the pattern matches
// the repository (never narrower), and only then unless a note says the
// globs are wider. The policy's own matching (SignerRules) is the
// reference.
func TestGlobs(t *testing.T) {
	patterns := []string{
		"oci:ghcr.io/acme/skills",
		"oci:ghcr.io/acme/*",
		"oci:ghcr.io/acme/**",
		"oci:ghcr.io/**/skills",
		"oci:**/skills",
		"oci:*.io/acme/*",
		"oci:localhost:5000/team/**/skills",
		"oci:ghcr.io/**/a/**",
		"oci:ghcr.io/tools/skill-?",
		"oci:ghcr.io/tools/[ab]*",
		"oci:ghcr.io/tools/x*y",
		"oci:**",
		"oci:ghcr.io/**",
		"oci:ghcr.io/**/**/**/**/**/x",
		"oci:ghcr.io/a/**/b/**/c/**/d/**/e/**/skills",
		"oci:ghcr.io/tools/x~y",
		"oci:ghcr.io/tools/x%y/z",
	}
	repos := []string{
		"ghcr.io/acme/skills", "ghcr.io/acme/skills2", "ghcr.io/acme/x", "ghcr.io/acme/team/x",
		"ghcr.io/acme", "ghcr.io/acmex/y", "ghcr.io/skills", "ghcr.io/a/skills", "ghcr.io/a/b/skills",
		"ghcr.io/skillsx", "ghcr.io/a", "ghcr.io/a/b", "ghcr.io/x/a/y", "ghcr.io/xa/y",
		"quay.io/acme/x", "quay.io/acme/x/y", "gcr.io/acme/x", "registry.acme.corp/skills",
		"localhost:5000/team/skills", "localhost:5000/team/a/skills", "localhost:5000/team/a/b/skills",
		"localhost:5000/team/skillsx", "localhost:5000/teamx/skills", "localhost:5000/skills",
		"ghcr.io/tools/skill-a", "ghcr.io/tools/skill-ab", "ghcr.io/tools/skill-", "ghcr.io/tools/skill-a/b",
		"ghcr.io/tools/a1", "ghcr.io/tools/b", "ghcr.io/tools/c", "ghcr.io/tools/a/b",
		"ghcr.io/tools/xy", "ghcr.io/tools/x-y", "ghcr.io/tools/x/y", "ghcr.io/tools/xay/z",
		"ghcr.io/a/b/c/d/e/f/x", "ghcr.io/a/q/b/c/r/d/e/s/skills", "ghcr.io/a/b/c/d/e/skills", "ghcr.io/a/b/c/d/e/f/skillsx",
	}
	suffixes := []string{":1", ":latest", "@sha256:" + strings.Repeat("ab", 32)}
	for _, pat := range patterns {
		p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [\""+pat+"\"]\n    identity: dev@acme.example\n    issuer: https://issuer.example\n"), filepath.Join(t.TempDir(), policy.FileName))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range admission.Formats() {
			e, err := admission.Policies(p, f)
			if err != nil {
				t.Fatalf("Policies(%s, %s) = %v", pat, f, err)
			}
			globs := exportedGlobs(t, f, e.YAML)
			wider := slices.ContainsFunc(e.Notes, func(n string) bool { return strings.Contains(n, pat+" is written") })
			for _, repo := range repos {
				rules, err := p.SignerRules(source.Origin{Kind: source.OCI, Location: repo})
				if err != nil {
					t.Fatal(err)
				}
				want := len(rules) > 0
				for _, sfx := range suffixes {
					image := repo + sfx
					got := slices.ContainsFunc(globs, func(g string) bool {
						if f == admission.PolicyController {
							return policyControllerMatch(t, g, image)
						}
						return kyvernoMatch(g, image)
					})
					switch {
					case want && !got:
						t.Errorf("%s: %s matches %s, but no glob of %v matches %s", f, pat, repo, globs, image)
					case got && !want && !wider:
						t.Errorf("%s: %s does not match %s, but a glob of %v matches %s, and no note says the globs are wider", f, pat, repo, globs, image)
					}
				}
			}
		}
	}
}

// exportedGlobs returns the image globs of an export's first object.
func exportedGlobs(t *testing.T, f admission.Format, data []byte) []string {
	t.Helper()
	o := documents(t, data)[0]
	var out []string
	if f == admission.PolicyController {
		for _, i := range spec(o, "images").([]any) {
			out = append(out, i.(map[string]any)["glob"].(string))
		}
		return out
	}
	for _, r := range verifyImage(o)["imageReferences"].([]any) {
		out = append(out, r.(string))
	}
	return out
}

// Rule 3: which patterns each tool writes exactly, and which wider.
func TestGlobsWider(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		wider   map[admission.Format]bool
	}{
		{"oci:ghcr.io/acme/skills", nil},
		{"oci:ghcr.io/acme/**", nil},
		{"oci:ghcr.io/**/skills", nil},
		{"oci:ghcr.io/acme/*", map[admission.Format]bool{admission.Kyverno: true}},
		{"oci:ghcr.io/tools/skill-?", map[admission.Format]bool{admission.Kyverno: true, admission.PolicyController: true}},
		{"oci:ghcr.io/tools/[ab]x", map[admission.Format]bool{admission.Kyverno: true, admission.PolicyController: true}},
		// Rule 3: a part no glob can say is cut off, and the rest
		// written PREFIX/**, wider: more than 4 **, or a character
		// policy-controller's globs cannot hold (Kyverno's can).
		{"oci:ghcr.io/**/**/**/**/**/x", map[admission.Format]bool{admission.Kyverno: true, admission.PolicyController: true}},
		{"oci:ghcr.io/tools/x~y", map[admission.Format]bool{admission.PolicyController: true}},
	} {
		p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [\""+tt.pattern+"\"]\n    identity: dev@acme.example\n    issuer: https://issuer.example\n"), filepath.Join(t.TempDir(), policy.FileName))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range admission.Formats() {
			e, err := admission.Policies(p, f)
			if err != nil {
				t.Fatal(err)
			}
			wider := slices.ContainsFunc(e.Notes, func(n string) bool { return strings.Contains(n, tt.pattern+" is written") })
			if wider != tt.wider[f] {
				t.Errorf("Policies(%s, %s) notes %q: wider = %v, want %v", tt.pattern, f, e.Notes, wider, tt.wider[f])
			}
		}
	}
}

// No pattern a policy accepts makes Policies panic, and every glob it
// writes for policy-controller holds only the characters that tool
// accepts; a pattern it cannot write is a note, never a bad glob.
func FuzzPolicies(f *testing.F) {
	for _, s := range []string{"oci:ghcr.io/acme/*", "oci:**", "oci:ghcr.io/[a-", "oci:ghcr.io/[]a]/x", "oci:ghcr.io/\\*", "oci:[::1]:5000/x", "oci:ghcr.io/**/**/**/**/**", "oci:xn--bcher-kva.example/x?"} {
		f.Add(s)
	}
	valid := regexp.MustCompile(`^[a-zA-Z0-9-_:/*.@]+$`)
	f.Fuzz(func(t *testing.T, pat string) {
		if strings.ContainsAny(pat, "\"\\\n") {
			return // not one YAML string
		}
		p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [\""+pat+"\"]\n    identity: a@b.example\n    issuer: https://b.example\n"), "agentskills.policy.yaml")
		if err != nil {
			return
		}
		for _, f := range admission.Formats() {
			e, err := admission.Policies(p, f)
			if err != nil {
				continue
			}
			if f != admission.PolicyController {
				continue
			}
			for _, d := range documents(t, e.YAML) {
				for _, i := range spec(d, "images").([]any) {
					if g := i.(map[string]any)["glob"].(string); !valid.MatchString(g) {
						t.Errorf("Policies(%q) wrote the glob %q", pat, g)
					}
				}
			}
		}
	})
}
