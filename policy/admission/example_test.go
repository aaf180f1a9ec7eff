package admission_test

import (
	"fmt"
	"log"
	"os"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/policy/admission"
)

// A ClusterImagePolicy that admits the team's skill images only when
// its release workflow signed them.
func ExamplePolicies() {
	p, err := policy.Parse([]byte(`version: 1
signers:
  - sources: [oci:ghcr.io/acme/*]
    identity_regexp: https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v.*
    issuer: https://token.actions.githubusercontent.com
`), "agentskills.policy.yaml")
	if err != nil {
		log.Fatal(err)
	}
	e, err := admission.Policies(p, admission.PolicyController)
	if err != nil {
		log.Fatal(err)
	}
	os.Stdout.Write(e.YAML)
	fmt.Println(len(e.Notes), "note")
	// Output:
	// apiVersion: policy.sigstore.dev/v1beta1
	// kind: ClusterImagePolicy
	// metadata:
	//   name: agentskills-signers-1
	//   annotations:
	//     description: 'agentskills policy signers[1]: sources oci:ghcr.io/acme/*'
	// spec:
	//   images:
	//     - glob: ghcr.io/acme/*:*
	//     - glob: ghcr.io/acme/*@*
	//   authorities:
	//     - name: keyless-1
	//       keyless:
	//         url: https://fulcio.sigstore.dev
	//         identities:
	//           - issuer: https://token.actions.githubusercontent.com
	//             subjectRegExp: ^(?:https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v.*)$
	//       signatureFormat: bundle
	//   mode: enforce
	// 1 note
}
