package source_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// ExampleParseOrigin reads origins in a policy's notation: each location
// is made canonical, and a github location on github.com written as git
// is of kind github.
func ExampleParseOrigin() {
	for _, text := range []string{
		"oci:GHCR.IO:0443/acme/skills",
		"git:github.com/Acme/Tools.git",
		"url:https://Example.ORG:443/kit.tgz",
	} {
		o, err := source.ParseOrigin(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(o.Kind, o.Location)
	}
	// Output:
	// oci ghcr.io/acme/skills
	// github acme/tools
	// url https://example.org/kit.tgz
}

// ExampleOriginOf tells where SDK skills come from: an inline skill has
// no location, and an archive that does not say where it comes from is
// unknown, which a policy with rules that could apply refuses.
func ExampleOriginOf() {
	for _, s := range []skill.Skill{
		skill.Inline("tone", "---\nname: tone\ndescription: Keeps a calm tone.\n---\n"),
		skill.Archive("kit", skill.ArchiveURL("https://example.org/kit.tgz")),
	} {
		fmt.Println(source.OriginOf(s.Source).Kind)
	}
	// Output:
	// inline
	// unknown
}
