package git_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/source/git"
)

func ExampleParse() {
	for _, text := range []string{
		"git+https://git.example.com/team/skills.git#ref=v1&path=skills/review",
		"git+ssh://git@git.example.com/team/skills.git#path=skills/review",
		"git+file:///srv/git/skills.git",
		"git+https://git.example.com/team/skills.git@v1",
	} {
		src, err := git.Parse(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("url %s, ref %q, path %q\n", src.URL, src.Ref, src.Path)
	}
	// Output:
	// url https://git.example.com/team/skills.git, ref "v1", path "skills/review"
	// url ssh://git@git.example.com/team/skills.git, ref "", path "skills/review"
	// url file:///srv/git/skills.git, ref "", path ""
	// git source "git+https://git.example.com/team/skills.git@v1": invalid source: the repository's name ends in @v1: write the ref as #ref=v1
}
