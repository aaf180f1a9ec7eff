package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/skill"
)

// An agent the skill helps: with it, the agent writes answer.txt.
func ExampleEvaluator_Run() {
	base, err := os.MkdirTemp("", "example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)
	dir := filepath.Join(base, "answer")
	os.MkdirAll(filepath.Join(dir, "evals"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: answer\ndescription: Answers in answer.txt.\n---\nWrite the answer to answer.txt.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "evals", "evals.json"), []byte(`{"skill_name": "answer", "evals": [
	  {"id": 1, "prompt": "What is 6 times 7?",
	   "expectations": [{"text": "answer.txt holds the answer", "command": ["grep", "-q", "42", "answer.txt"]}]}]}`), 0o644)

	agent := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if len(req.Skills.Entries) > 0 {
			os.WriteFile(filepath.Join(req.Workspace, "answer.txt"), []byte("42\n"), 0o644)
		}
		return &driver.Result{Text: "42"}, nil
	}}
	ev := eval.New(eval.WithMaterializer(skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache")))))
	out := filepath.Join(base, "answer-workspace")
	if _, err := ev.Run(context.Background(), eval.Request{
		Skill:  skill.Dir(dir),
		Agents: []eval.Agent{{ID: "claude-code", Driver: agent}},
		Out:    out,
	}); err != nil {
		log.Fatal(err)
	}
	iter := filepath.Join(out, "iteration-1")
	fs.WalkDir(os.DirFS(iter), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fmt.Println(p)
		}
		return err
	})
	for _, cfg := range []string{"with_skill", "without_skill"} {
		var g eval.Grading
		b, _ := os.ReadFile(filepath.Join(iter, "eval-1", cfg, "grading.json"))
		if err := json.Unmarshal(b, &g); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d of %d passed\n", cfg, g.Summary.Passed, g.Summary.Total)
	}
	// Output:
	// benchmark.json
	// eval-1/with_skill/grading.json
	// eval-1/with_skill/outputs/answer.txt
	// eval-1/with_skill/response.md
	// eval-1/with_skill/timing.json
	// eval-1/with_skill/transcript.jsonl
	// eval-1/without_skill/grading.json
	// eval-1/without_skill/response.md
	// eval-1/without_skill/timing.json
	// eval-1/without_skill/transcript.jsonl
	// iteration.json
	// with_skill: 1 of 1 passed
	// without_skill: 0 of 1 passed
}
