package adaptor_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"testing/fstest"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
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

// A run continues an earlier session with WithResume. The agent records
// what each session ran with, so a resume with other skills is refused
// before the agent starts: the session remembers what its skills said.
func ExampleWithResume() {
	drv := &drivertest.Driver{Handler: func(_ context.Context, req *driver.Request) (*driver.Result, error) {
		if req.Resume != "" {
			return &driver.Result{Text: "resumed", SessionID: req.Resume}, nil
		}
		return &driver.Result{Text: "started", SessionID: "6f1c0d6e-4b8a-4a53-9a11-0c2f4d2b7e10"}, nil
	}}
	tone := skill.Inline("tone", "---\nname: tone\ndescription: Answer warmly.\n---\nBe warm.\n")
	agent := adaptor.New(drv, adaptor.WithSkills(tone))
	ctx := context.Background()
	first, err := agent.Run(ctx, "Draft the release notes")
	if err != nil {
		log.Fatal(err)
	}
	again, err := agent.Run(ctx, "Shorten them", adaptor.WithResume(first.SessionID))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(first.Text, "then", again.Text)

	terse := skill.Inline("terse", "---\nname: terse\ndescription: Answer in few words.\n---\nBe brief.\n")
	_, err = agent.Run(ctx, "And now tersely", adaptor.WithResume(first.SessionID), adaptor.WithSkills(terse))
	var changed *adaptor.ThreadChangedError
	if errors.As(err, &changed) {
		fmt.Println("refused; skills added:", changed.Added)
	}
	// Output:
	// started then resumed
	// refused; skills added: [terse]
}

// A skill whose SKILL.md an agent would not load (here one without front
// matter) fails the run before the agent starts, naming the skill.
func ExampleInvalidSkillError() {
	agent := adaptor.New(&drivertest.Driver{},
		adaptor.WithSkills(skill.Inline("greet", "# Greeting\nSay hello.\n")))
	_, err := agent.Run(context.Background(), "Greet the team")
	var invalid *adaptor.InvalidSkillError
	if errors.As(err, &invalid) {
		fmt.Println("skill:", invalid.Key)
		fmt.Println("front matter missing:", errors.Is(err, skillmd.ErrFrontMatter))
	}
	// Output:
	// skill: greet
	// front matter missing: true
}

// A skill that requires others (metadata.requires in its SKILL.md) is
// selected with them, and theirs, when marked with skill.WithRequires
// (or given adaptor.WithRequires). Requirements relative to the skill's
// folder or fs.FS tree need no resolver; published ones need the
// resolver of package source/requirement (adaptor.WithRequirementResolver).
func ExampleWithRequires() {
	skills := fstest.MapFS{
		"release/SKILL.md":   {Data: []byte("---\nname: release\ndescription: Cut a release.\nmetadata:\n  requires: ../changelog\n---\nWrite the changelog, then tag.\n")},
		"changelog/SKILL.md": {Data: []byte("---\nname: changelog\ndescription: Write the changelog.\nmetadata:\n  requires: ../semver\n---\nList the changes.\n")},
		"semver/SKILL.md":    {Data: []byte("---\nname: semver\ndescription: Pick the next version.\n---\nBreaking changes bump the major version.\n")},
	}
	rec := &drivertest.Driver{}
	agent := adaptor.New(rec, adaptor.WithSkills(skill.WithRequires(skill.FS(skills, "release"))))
	if _, err := agent.Run(context.Background(), "Release 1.4"); err != nil {
		log.Fatal(err)
	}
	for _, s := range rec.Last().Skills.Entries {
		fmt.Printf("%s %q\n", s.Key, s.Reason)
	}
	// Output:
	// changelog "required by release"
	// release ""
	// semver "required by release -> changelog"
}
