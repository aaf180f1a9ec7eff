package adaptor_test

import (
	"context"
	"fmt"
	"log"
	"os"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// A program follows the agent's work as it happens with WithEvents. Here a
// recording driver stands in for a real one such as claude.Driver.
func ExampleWithEvents() {
	drv := &drivertest.Driver{
		Events: []driver.Event{
			&driver.ToolCallEvent{Name: "Skill", Input: []byte(`{"skill":"tone"}`)},
			&driver.TextDeltaEvent{Text: "Hello, "},
			&driver.TextDeltaEvent{Text: "world"},
		},
		Result: &driver.Result{Text: "Hello, world", SessionID: "0b1c"},
	}
	agent := adaptor.New(drv,
		adaptor.WithSkills(skill.Inline("tone", "---\nname: tone\ndescription: Answer warmly.\n---\nBe warm.\n")),
		adaptor.WithEvents(func(ev driver.Event) {
			switch e := ev.(type) {
			case *driver.ToolCallEvent:
				fmt.Printf("[tool %s %s]\n", e.Name, e.Input)
			case *driver.TextDeltaEvent:
				fmt.Print(e.Text)
			}
		}),
	)
	res, err := agent.Run(context.Background(), "Greet the world")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nsession %s\n", res.SessionID)
	// Output:
	// [tool Skill {"skill":"tone"}]
	// Hello, world
	// session 0b1c
}

// A Thread resumes the agent's session from run to run while its skills and
// workspace stay the same; a file store keeps threads across processes.
func ExampleAgent_Thread() {
	state, err := os.MkdirTemp("", "threads")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(state)
	n := 0
	drv := &drivertest.Driver{Handler: func(_ context.Context, req *driver.Request) (*driver.Result, error) {
		if req.Resume != "" {
			return &driver.Result{Text: "resumed " + req.Resume, SessionID: req.Resume}, nil
		}
		n++
		return &driver.Result{Text: "started", SessionID: fmt.Sprintf("session-%d", n)}, nil
	}}
	agent := adaptor.New(drv, adaptor.WithThreadStore(adaptor.NewFileThreadStore(state)))
	chat := agent.Thread("review-42", adaptor.ResumeOnly())
	for _, prompt := range []string{"Review the change", "Now fix the typo"} {
		res, err := chat.Run(context.Background(), prompt)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Text)
	}
	// Output:
	// started
	// resumed session-1
}
