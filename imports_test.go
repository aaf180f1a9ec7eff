package adaptor_test

import (
	"os/exec"
	"strings"
	"testing"
)

// importRules are the rules of docs/DESIGN-NOTES.md ("Imports"): what
// each package must not link, directly or through another package. An
// entry ending in "/" forbids every package under that path.
var importRules = []struct {
	pkg       string
	forbidden []string
	why       string
}{
	{
		pkg: ".",
		forbidden: []string{
			modulePath + "/policy", modulePath + "/signature", modulePath + "/audit", modulePath + "/trust",
			"github.com/sigstore/", "google.golang.org/grpc",
		},
		why: "the root package takes trust through a materializer (package trust), so a program that wants none links none of it",
	},
	{pkg: ".", forbidden: []string{modulePath + "/source", "oras.land/"}, why: "the root package resolves a published requirement through a skill.RequirementResolver the program gives (package source/requirement has one), so a program that requires no published skill links no source's client"},
	{pkg: "./source/requirement", forbidden: []string{modulePath + "/policy", modulePath + "/trust", modulePath + "/signature", "github.com/sigstore/", "google.golang.org/grpc"}, why: "a requirement's skill carries its origin and pin (package source); package trust checks them, so resolving requirements links no trust code"},
	{pkg: "./source/git", forbidden: []string{modulePath + "/policy", modulePath + "/trust", "github.com/sigstore/"}, why: "a source's origin is a fact about the source (source.Origin); the policy matches it"},
	{pkg: "./source/github", forbidden: []string{modulePath + "/policy", modulePath + "/trust", "github.com/sigstore/"}, why: "a source's origin is a fact about the source (source.Origin); the policy matches it"},
	{pkg: "./source/oci", forbidden: []string{modulePath + "/policy", modulePath + "/trust"}, why: "a source's origin is a fact about the source (source.Origin); the policy matches it"},
	{pkg: "./source/oci", forbidden: []string{modulePath + "/signature", "github.com/sigstore/", "google.golang.org/grpc"}, why: "Sign and Verify take a signer and a check of bundles (package signature's KeySigner and BundleCheck), so a program that fetches OCI skills links no Sigstore code"},
	{pkg: "./trust", forbidden: []string{modulePath}, why: "the trust engine is below the root package"},
	{pkg: "./trust", forbidden: []string{modulePath + "/source/oci", modulePath + "/source/git", modulePath + "/source/github", "oras.land/"}, why: "the trust engine takes a source's origin, pin and signatures through the interfaces of package source (OriginSource, PinnedSource, CommitVerifier, Signed), so it links no source's client"},
	{pkg: "./policy", forbidden: []string{modulePath + "/signature", "github.com/sigstore/", "google.golang.org/grpc"}, why: "a policy's signers rules are plain data (policy.Signer), which package trust turns into signature.Requirement, so a program that only reads a policy links no Sigstore code"},
	{pkg: "./internal/kube", forbidden: []string{"k8s.io/", "sigs.k8s.io/"}, why: "runs are rendered with types of the package's own (internal/kube): the official Kubernetes types, which only its tests decode into, are a large graph every command would link"},
	{pkg: "./cmd/agentskills", forbidden: []string{"k8s.io/api/", "k8s.io/apimachinery/", "k8s.io/client-go/", "sigs.k8s.io/"}, why: "run --emit and eval --emit render with internal/kube's own types; the official Kubernetes and agent-sandbox types are for tests"},
	{pkg: "./policy/admission", forbidden: []string{modulePath + "/signature", modulePath + "/trust", "github.com/sigstore/", "google.golang.org/grpc", "k8s.io/", "github.com/santhosh-tekuri/"}, why: "an admission policy is written from the policy's plain data as YAML: no Sigstore code, no Kubernetes client types, no schema validator (the tests alone check the output against the CRDs)"},
	{pkg: "./audit", forbidden: []string{"github.com/owenrumney/", "github.com/xeipuuv/"}, why: "the audit writes SARIF with types of its own (audit/sarif.go): a SARIF library links a JSON Schema validator whose start-up every command of a program that links the audit pays"},
}

// TestImports checks the import rules with go list -deps: a package that
// links what its rule forbids fails, naming the package and why.
func TestImports(t *testing.T) {
	for _, r := range importRules {
		t.Run(r.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", r.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v (the test needs the go command on PATH)", r.pkg, err)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 10 {
				t.Fatalf("go list -deps %s lists %d packages; want its whole graph", r.pkg, len(deps))
			}
			for _, dep := range deps {
				for _, f := range r.forbidden {
					if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) || strings.HasPrefix(dep, f+"/") && f != modulePath {
						t.Errorf("%s links %s; it must not: %s", r.pkg, dep, r.why)
					}
				}
			}
		})
	}
}
