package signature_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/opencontainers/go-digest"
)

// Example signs a manifest digest with a key and verifies the bundle with
// the key's public half.
func Example() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	manifest := digest.FromString(`{"schemaVersion":2}`)
	bundle, err := signature.Sign(key, manifest)
	if err != nil {
		panic(err)
	}
	signer, err := signature.Verify(bundle, manifest, signature.Requirement{Key: key.Public()})
	fmt.Println(strings.HasPrefix(signer.String(), "key sha256:"), err)

	_, err = signature.Verify(bundle, digest.FromString("another manifest"), signature.Requirement{Key: key.Public()})
	fmt.Println(errors.Is(err, source.ErrInvalidSignature))
	// Output:
	// true <nil>
	// true
}

// ExampleRequirement names the release workflow of acme/skills, run on a
// tag, as the signer. The expression must match the whole identity: an
// identity that only holds a match is refused.
func ExampleRequirement() {
	r := signature.Requirement{
		IdentityRegexp: `https://github\.com/acme/skills/\.github/workflows/release\.yml@refs/tags/v.*`,
		Issuer:         "https://token.actions.githubusercontent.com",
	}
	fmt.Println(r)
	release := signature.Signer{
		Identity: "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0",
		Issuer:   "https://token.actions.githubusercontent.com",
	}
	fmt.Println(release)
	fmt.Println(r.Matches(release))
	branch := release
	branch.Identity = "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main"
	fmt.Println(r.Matches(branch))
	fork := release
	fork.Identity = "https://github.com/evil/fork/.github/workflows/x.yml@refs/heads/https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0"
	fmt.Println(r.Matches(fork))
	// Output:
	// identity matching "https://github\\.com/acme/skills/\\.github/workflows/release\\.yml@refs/tags/v.*" from issuer "https://token.actions.githubusercontent.com"
	// https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0 (issuer https://token.actions.githubusercontent.com)
	// true
	// false
	// false
}
