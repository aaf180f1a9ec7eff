package copilot_test

import (
	"context"
	"fmt"
	"log"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/copilot"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Run GitHub Copilot CLI with a folder of skills mounted for the run,
// against an OpenAI-compatible API instead of a GitHub login. Needs
// @github/copilot installed (its `copilot` on PATH).
func ExampleDriver() {
	agent := adaptor.New(
		copilot.Driver(copilot.Config{
			Env: []string{
				"COPILOT_OFFLINE=true",
				"COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:8080/v1",
				"COPILOT_PROVIDER_API_KEY=sk-local",
				"COPILOT_MODEL=my-model",
			},
			AllowedTools: []string{"write"},
		}),
		adaptor.WithSkills(skill.Dir("./skills/code-review")),
	)
	res, err := agent.Run(context.Background(), "Review the last commit")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text, res.SessionID, res.Usage)
}
