package policy_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

func ExampleLoadWith() {
	home, err := os.MkdirTemp("", "home")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	os.MkdirAll(filepath.Join(home, ".agents"), 0o755)
	os.WriteFile(filepath.Join(home, ".agents", policy.FileName), []byte("version: 1\nextends: oci://ghcr.io/acme/policy:3\n"), 0o644)
	// The fetcher: package install's LoadPolicy fetches, verifies and pins.
	team := policy.Extended{Data: []byte("version: 1\nsources:\n  allow: [oci:ghcr.io/acme/*]\n"), Pin: "sha256:1234"}
	p, err := policy.LoadWith(home, "", policy.LoadOptions{Extends: func(r policy.ExtendsRequest) (policy.Extended, error) {
		team.Source = r.Source
		return team, nil
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range p.Entries() {
		fmt.Printf("%s (line %d of %s): %s\n", e.Name, e.Line, strings.TrimPrefix(filepath.ToSlash(e.File), filepath.ToSlash(home)), e.Value)
	}
	fmt.Println(p.Check(source.Origin{Kind: "github", Location: "evil/skills", Display: "evil/skills"}) != nil)
	// Output:
	// sources.allow (line 3 of oci://ghcr.io/acme/policy:3@sha256:1234): oci:ghcr.io/acme/*
	// extends (line 2 of /.agents/agentskills.policy.yaml): oci://ghcr.io/acme/policy:3
	// true
}
