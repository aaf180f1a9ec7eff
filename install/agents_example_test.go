package install_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/install"
)

func ExampleLookupAgents() {
	agents, _ := install.LookupAgents("claude-code", "codex")
	for _, a := range agents {
		fmt.Println(a.ID, a.ProjectDir)
	}
	all, _ := install.LookupAgents(install.AllAgents)
	fmt.Println(len(all), "agents")
	_, err := install.LookupAgents("claud-code", "codex", "nobody")
	fmt.Println(err)
	// Output:
	// claude-code .claude/skills
	// codex .agents/skills
	// 45 agents
	// unknown agents "claud-code" (did you mean claude-code?) and "nobody"
}

func ExampleAgent_Reads() {
	env := install.Env{Home: "/home/me", Project: "/src/app", Getenv: func(string) string { return "" }}
	cursor, _ := install.LookupAgent("cursor")
	fmt.Println("installed into", cursor.Dir(env, install.User))
	for _, dir := range cursor.Reads(env, install.Project) {
		fmt.Println("reads", dir)
	}
	// Output:
	// installed into /home/me/.agents/skills
	// reads /src/app/.agents/skills
	// reads /src/app/.cursor/skills
	// reads /src/app/.claude/skills
	// reads /src/app/.codex/skills
}
