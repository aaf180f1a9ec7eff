package policy_test

import (
	"errors"
	"fmt"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

func Example() {
	p, err := policy.Parse([]byte(`version: 1
sources:
  allow:
    - github:anthropics/*
    - oci:ghcr.io/acme/*
  pinned: true
signers:
  - sources: [oci:ghcr.io/acme/*]
    identity_regexp: ^https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/.*
    issuer: https://token.actions.githubusercontent.com
audit:
  fail_on: medium
  accept:
    - rule: download-exec
      skill: setup-helper
      reason: installs our own CLI
`), "/etc/agentskills.policy.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := source.Origin{Kind: "oci", Location: "ghcr.io/acme/skills", Pinned: true, Display: "oci://ghcr.io/acme/skills@sha256:..."}
	for _, line := range p.Explain(s) {
		fmt.Println(line)
	}
	err = p.Check(source.Origin{Kind: "github", Location: "evil/skills", Display: "evil/skills"})
	fmt.Println(errors.Is(err, policy.ErrDenied))
	fmt.Println(err)
	// Output:
	// allowed
	//   sources.allow (/etc/agentskills.policy.yaml:5): matches oci:ghcr.io/acme/*
	//   must be pinned: sources.pinned (/etc/agentskills.policy.yaml:6), it is
	//   signature required: signers[1] (/etc/agentskills.policy.yaml:8): identity matching ^https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/.* issued by https://token.actions.githubusercontent.com (Sigstore public-good root)
	//   audit: a finding at medium or above refuses a skill: audit.fail_on (/etc/agentskills.policy.yaml:12)
	//   accepted: download-exec in skill setup-helper, audit.accept[1] (/etc/agentskills.policy.yaml:14): installs our own CLI
	// true
	// evil/skills: denied by the policy: sources.allow (/etc/agentskills.policy.yaml:3): no pattern of sources.allow matches github:evil/skills; use a source it allows, or add a pattern that matches it to /etc/agentskills.policy.yaml
}
