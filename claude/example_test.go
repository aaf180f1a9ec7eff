package claude_test

import (
	"context"
	"fmt"
	"log"
	"os"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Run Claude Code with a folder of skills mounted for the run, printing
// the answer as it is written. Needs the claude CLI on PATH and a login.
func ExampleDriver() {
	agent := adaptor.New(
		claude.Driver(claude.Config{Model: "sonnet", PartialMessages: true, MaxTurns: 10}),
		adaptor.WithSkills(skill.Dir("./skills/code-review")),
		adaptor.WithEvents(func(ev driver.Event) {
			if d, ok := ev.(*driver.TextDeltaEvent); ok {
				fmt.Fprint(os.Stderr, d.Text)
			}
		}),
	)
	res, err := agent.Run(context.Background(), "Review the last commit")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}
