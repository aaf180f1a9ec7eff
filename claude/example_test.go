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

// Read what the driver says about Claude Code, and build a driver from
// the settings every driver takes, as a host offering several agents
// does.
func ExampleDescriptor() {
	d := claude.Descriptor()
	fmt.Println(d.ID, "-", d.Agent, "- program", d.Program)
	fmt.Println("modes:", d.Modes, "bypass:", d.Bypass)
	fmt.Println("a turn limit:", d.Turns.Option, "(Config."+d.Turns.Field+")")
	drv := d.New(driver.Settings{Model: "sonnet", MaxTurns: 5})
	_ = adaptor.New(drv)
	// Output:
	// claude-code - Claude Code - program claude
	// modes: [acceptEdits auto bypassPermissions manual dontAsk plan] bypass: bypassPermissions
	// a turn limit: --max-turns (Config.MaxTurns)
}
