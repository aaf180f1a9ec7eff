package install_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/install"
)

// An Installer puts the skills of a source (here a folder holding one
// skill) into the project's canonical folder, .agents/skills, and links
// them into the folders of the agents that do not read that one (as a
// link, a junction or a copy, whichever the system allows: Change.Kind
// says). Running the same request again changes nothing.
func ExampleInstaller_Add() {
	tmp, err := os.MkdirTemp("", "install-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	home, project := filepath.Join(tmp, "home"), filepath.Join(tmp, "project")
	review := filepath.Join(tmp, "skills", "review")
	for _, dir := range []string{home, project, review} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	md := "---\nname: review\ndescription: Review a change before it is merged.\n---\nRead the diff and list what is wrong.\n"
	if err := os.WriteFile(filepath.Join(review, "SKILL.md"), []byte(md), 0o644); err != nil {
		log.Fatal(err)
	}

	env := install.Env{Home: home, Project: project, Getenv: func(string) string { return "" }}
	agents, err := install.LookupAgents("claude-code", "codex")
	if err != nil {
		log.Fatal(err)
	}
	in := install.New(env)
	for range 2 {
		changes, err := in.Add(context.Background(), install.AddRequest{Sources: []string{review}, Agents: agents})
		if err != nil {
			log.Fatal(err)
		}
		for _, c := range changes {
			agent := c.Agent
			if agent == "" {
				agent = "(all)" // the canonical copy
			}
			rel, _ := filepath.Rel(project, c.Path)
			fmt.Printf("%-11s %-9s %s\n", agent, c.Action, filepath.ToSlash(rel))
		}
	}
	// Output:
	// (all)       installed .agents/skills/review
	// claude-code installed .claude/skills/review
	// codex       installed .agents/skills/review
	// (all)       unchanged .agents/skills/review
	// claude-code unchanged .claude/skills/review
	// codex       unchanged .agents/skills/review
}
