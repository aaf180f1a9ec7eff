package eval_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/eval"
)

// The units of two cases on two agents, as a Kubernetes Indexed Job
// numbers its completions.
func ExampleUnits() {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "evals"), 0o755)
	os.WriteFile(filepath.Join(dir, "evals", "evals.json"), []byte(`{"skill_name": "answer", "evals": [
	  {"id": 1, "prompt": "What is 6 times 7?"},
	  {"id": "sum", "prompt": "What is 6 plus 7?"}]}`), 0o644)
	suite, err := eval.LoadSuite(dir)
	if err != nil {
		log.Fatal(err)
	}
	units, err := eval.Units(suite, eval.Request{Agents: []eval.Agent{{ID: "claude-code"}, {ID: "codex"}}})
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range units {
		fmt.Println(u.Index, u.Dir)
	}
	// Output:
	// 0 claude-code/eval-1/with_skill
	// 1 claude-code/eval-1/without_skill
	// 2 claude-code/eval-sum/with_skill
	// 3 claude-code/eval-sum/without_skill
	// 4 codex/eval-1/with_skill
	// 5 codex/eval-1/without_skill
	// 6 codex/eval-sum/with_skill
	// 7 codex/eval-sum/without_skill
}
