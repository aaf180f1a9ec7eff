package gemini_test

import (
	"context"
	"fmt"
	"log"
	"os"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Run Gemini CLI with a folder of skills mounted for the run, printing the
// answer as it is written. Needs the gemini CLI on PATH, a login or an API
// key, and a workspace the user trusts.
func ExampleDriver() {
	agent := adaptor.New(
		gemini.Driver(gemini.Config{Model: "gemini-2.5-pro"}),
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
