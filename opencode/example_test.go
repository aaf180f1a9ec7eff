package opencode_test

import (
	"context"
	"fmt"
	"log"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/opencode"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Run OpenCode with a folder of skills mounted for the run. Needs the
// opencode CLI and ripgrep (rg) on PATH, and a model OpenCode is set up
// for (its login, or a provider in ~/.config/opencode/opencode.json).
func ExampleDriver() {
	agent := adaptor.New(
		opencode.Driver(opencode.Config{Model: "anthropic/claude-sonnet-4-5", Agent: "plan"}),
		adaptor.WithSkills(skill.Dir("./skills/code-review")),
	)
	res, err := agent.Run(context.Background(), "Review the last commit")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text, res.SessionID)
}
