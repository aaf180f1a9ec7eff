package github_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/source/github"
)

func ExampleParse() {
	for _, text := range []string{
		"anthropics/skills",
		"anthropics/skills/skills/pdf@v1.2.0",
		"https://github.com/anthropics/skills/tree/main/skills/pdf",
	} {
		src, err := github.Parse(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("owner %s, repo %s, path %q, ref %q\n", src.Owner, src.Repo, src.Path, src.Ref)
	}
	// Output:
	// owner anthropics, repo skills, path "", ref ""
	// owner anthropics, repo skills, path "skills/pdf", ref "v1.2.0"
	// owner anthropics, repo skills, path "skills/pdf", ref "main"
}
