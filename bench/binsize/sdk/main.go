// Command sdk is the smallest SDK program: it runs Claude Code with one
// folder skill through an adaptor.Agent. Package binsize builds it to
// weigh what the SDK adds to a driver.
package main

import (
	"context"
	"fmt"
	"log"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/skill"
)

func main() {
	agent := adaptor.New(claude.Driver(claude.Config{}), adaptor.WithSkills(skill.Dir("./skills/review")))
	res, err := agent.Run(context.Background(), "Review the open change")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}
