package source_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/source"
)

// ExampleParse tells the kinds of a few source texts apart; each kind's
// package reads Spec.Text.
func ExampleParse() {
	for _, text := range []string{
		"./skills/review",
		"acme/tools@v1",
		"github:acme/tools/skills/review",
		"https://github.com/acme/tools/tree/main/skills",
		"git+https://git.example.org/team/skills.git#ref=v1&path=skills",
		"https://gitlab.com/group/repo/-/tree/main/skills",
		"oci://ghcr.io/acme/skills:v1",
		"https://example.org",
		"https://example.org/kit.zip#sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	} {
		spec, err := source.Parse(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(spec.Kind, spec.Text, spec.Bare, spec.SHA256 != "")
	}
	// Output:
	// local ./skills/review false false
	// github acme/tools@v1 true false
	// github acme/tools/skills/review false false
	// github https://github.com/acme/tools/tree/main/skills false false
	// git git+https://git.example.org/team/skills.git#ref=v1&path=skills false false
	// git https://gitlab.com/group/repo/-/tree/main/skills false false
	// oci oci://ghcr.io/acme/skills:v1 false false
	// webindex https://example.org false false
	// url https://example.org/kit.zip#sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 false true
}
