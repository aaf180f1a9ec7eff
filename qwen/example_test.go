package qwen_test

import (
	"context"
	"fmt"
	"log"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/qwen"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Run Qwen Code with a folder of skills mounted for the run. Needs the
// qwen CLI on PATH and a model it is set up for (OPENAI_BASE_URL,
// OPENAI_API_KEY and OPENAI_MODEL, or the user's settings).
func ExampleDriver() {
	agent := adaptor.New(
		qwen.Driver(qwen.Config{ApprovalMode: "default", MaxSessionTurns: 10}),
		adaptor.WithSkills(skill.Dir("./skills/code-review")),
	)
	res, err := agent.Run(context.Background(), "Review the last commit")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}
