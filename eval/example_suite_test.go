package eval_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/eval"
)

// A skill's evals/evals.json, read and checked; each file of a case goes
// to its place in the run's workspace.
func ExampleLoadSuite() {
	skill, _ := os.MkdirTemp("", "skill")
	defer os.RemoveAll(skill)
	os.MkdirAll(filepath.Join(skill, "evals", "files"), 0o755)
	os.WriteFile(filepath.Join(skill, "evals", "files", "sales.csv"), []byte("month,revenue\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "evals", "evals.json"), []byte(`{
  "skill_name": "csv-analyzer",
  "evals": [{
    "id": 1,
    "prompt": "Find the top 3 months by revenue in sales.csv",
    "files": ["evals/files/sales.csv"],
    "expectations": [
      "The answer names three months",
      {"text": "chart.png is a PNG image", "command": ["file", "--brief", "chart.png"]}
    ]
  }]
}`), 0o644)

	suite, err := eval.LoadSuite(skill)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range suite.Evals {
		fmt.Printf("eval-%s: %q\n", c.ID, c.Prompt)
		for _, f := range c.Files {
			fmt.Printf("  %s -> %s\n", f, c.FilePlace(f))
		}
		for _, e := range c.Expectations {
			fmt.Printf("  %q %q\n", e.Text, e.Command)
		}
	}

	// A case without a prompt is refused, naming the case and the field.
	os.WriteFile(filepath.Join(skill, "evals", "evals.json"), []byte(`{"skill_name": "csv-analyzer", "evals": [{"id": "top-months"}]}`), 0o644)
	_, err = eval.LoadSuite(skill)
	fmt.Println(errors.Is(err, eval.ErrInvalidSuite))
	fmt.Println(filepath.ToSlash(strings.Replace(err.Error(), skill, "SKILL", 1)))
	// Output:
	// eval-1: "Find the top 3 months by revenue in sales.csv"
	//   evals/files/sales.csv -> sales.csv
	//   "The answer names three months" []
	//   "chart.png is a PNG image" ["file" "--brief" "chart.png"]
	// true
	// invalid evaluation file: SKILL/evals/evals.json: evals[0] (id top-months).prompt: missing; give the task the agent is asked
}
