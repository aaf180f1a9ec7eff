package driver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// lister is a Driver that lists the skills of a run instead of running an
// agent.
type lister struct{}

func (lister) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	for _, s := range req.Skills.Entries { // sorted by key
		md, err := os.ReadFile(filepath.Join(s.Path, "SKILL.md")) // Path is the folder holding SKILL.md
		if err != nil {
			return nil, err
		}
		fmt.Printf("%s in folder %s, %d bytes of SKILL.md\n", s.Key, filepath.Base(s.Path), len(md))
	}
	return &driver.Result{Text: "listed " + req.Prompt}, nil
}

// A driver receives the run's prompt and its resolved skills: each one's
// key, runtime name and folder. Package adaptor resolves them and calls
// the driver.
func Example_driver() {
	cache, err := os.MkdirTemp("", "driver-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cache)
	agent := adaptor.New(lister{},
		adaptor.WithSkillMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cache))),
		adaptor.WithSkills(
			skill.Inline("tone", "---\nname: tone\ndescription: Answer warmly.\n---\nBe warm.\n"),
			skill.Inline("Code Review", "---\nname: code-review\ndescription: Review a change.\n---\nRead the diff.\n"),
		),
	)
	res, err := agent.Run(context.Background(), "the skills")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	// Output:
	// Code Review in folder code-review, 71 bytes of SKILL.md
	// tone in folder tone, 56 bytes of SKILL.md
	// listed the skills
}
