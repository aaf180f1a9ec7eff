package codex_test

import (
	"context"
	"fmt"
	"log"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Run Codex with a folder of skills mounted for the run, in a sandbox that
// lets it edit the workspace, printing each command it runs. Needs the
// codex CLI on PATH and a model provider in ~/.codex/config.toml (or a
// login), which the run's managed Codex home uses.
func ExampleDriver() {
	agent := adaptor.New(
		codex.Driver(codex.Config{Sandbox: "workspace-write"}),
		adaptor.WithSkills(skill.Dir("./skills/code-review")),
		adaptor.WithWorkspace("."),
		adaptor.WithEvents(func(ev driver.Event) {
			if call, ok := ev.(*driver.ToolCallEvent); ok {
				fmt.Printf("[%s %s]\n", call.Name, call.Input)
			}
		}),
	)
	res, err := agent.Run(context.Background(), "Review the last commit")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	fmt.Println("session", res.SessionID) // for adaptor.WithResume, or use a Thread
}
