package requirement_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/requirement"
)

// A Resolver is what an agent asks for the requirements that name
// published skills (adaptor.WithRequirementResolver). It takes
// github:, git+ and oci:// sources; an archive URL, with no version to
// pin, is refused before anything is downloaded.
func ExampleResolver_ResolveRequirement() {
	r, err := requirement.New()
	if err != nil {
		log.Fatal(err)
	}
	for _, text := range []string{"https://example.com/kits/changelog.tgz", "../changelog"} {
		_, err := r.ResolveRequirement(context.Background(), skill.Requirement{Text: text, By: skill.Skill{Key: "release"}, Chain: []string{"release"}})
		fmt.Println(err)
	}
	// Output:
	// https://example.com/kits/changelog.tgz: invalid source: a requirement names a published skill (github:OWNER/REPO/PATH@RANGE, git+URL#ref=RANGE&path=PATH or oci://HOST/REPO:RANGE), not a url source
	// ../changelog: invalid source: a published skill (release) names its requirements by published source, not by a path relative to its folder
}
