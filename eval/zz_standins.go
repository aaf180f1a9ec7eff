package eval

// Stand-ins of the suite, statistics and grading parts, deleted when they
// land.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	adaptor "github.com/agentadaptor/agentadaptor"
)

func LoadSuite(dir string) (*Suite, error) {
	b, err := os.ReadFile(filepath.Join(dir, "evals", "evals.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEvals, err)
	}
	var s struct {
		SkillName string `json:"skill_name"`
		Evals     []struct {
			ID           json.RawMessage `json:"id"`
			Prompt       string          `json:"prompt"`
			Files        []string        `json:"files"`
			Expectations []Expectation   `json:"expectations"`
		} `json:"evals"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSuite, err)
	}
	out := &Suite{SkillName: s.SkillName}
	for _, c := range s.Evals {
		id := strings.Trim(string(c.ID), `"`)
		out.Evals = append(out.Evals, Case{ID: CaseID{text: id}, Prompt: c.Prompt, Files: c.Files, Expectations: c.Expectations})
	}
	return out, nil
}

func LoadQueries(dir string) ([]Query, error) {
	b, err := os.ReadFile(filepath.Join(dir, "evals", "eval_queries.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEvals, err)
	}
	var q []Query
	if err := json.Unmarshal(b, &q); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSuite, err)
	}
	return q, nil
}

func (id CaseID) MarshalJSON() ([]byte, error) { return json.Marshal(id.text) }

func (c Case) FilePlace(file string) string {
	if rest, ok := strings.CutPrefix(file, "evals/files/"); ok {
		return rest
	}
	return file
}

func (e *Expectation) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		e.Text = s
		return nil
	}
	type plain Expectation
	return json.Unmarshal(b, (*plain)(e))
}

func summarize(results []runResult, baseline Config) *Benchmark {
	b := &Benchmark{}
	for _, r := range results {
		if r.reused {
			b.Reused++
		}
		if r.failed {
			b.Failed++
		}
	}
	return b
}

func combine(per map[string]*Benchmark) *Benchmark {
	b := &Benchmark{Agents: map[string]RunSummary{}, PerAgent: per}
	for id, p := range per {
		b.Agents[id] = p.RunSummary
		b.Reused += p.Reused
		b.Failed += p.Failed
	}
	return b
}

func (e *Evaluator) grade(ctx context.Context, judge *Agent, skillDir string, c Case, runDir, workspace string, res *adaptor.Result) Grading {
	var g Grading
	for _, x := range c.Expectations {
		if len(x.Command) == 0 {
			f := false
			g.Expectations = append(g.Expectations, GradedExpectation{Text: x.Text, Graded: &f})
			g.Summary.NotGraded++
			continue
		}
		_, err := os.Stat(filepath.Join(workspace, x.Command[len(x.Command)-1]))
		g.Expectations = append(g.Expectations, GradedExpectation{Text: x.Text, Passed: err == nil, Evidence: fmt.Sprint(err)})
		g.Summary.Total++
		if err == nil {
			g.Summary.Passed++
		} else {
			g.Summary.Failed++
		}
	}
	if g.Summary.Total > 0 {
		g.Summary.PassRate = float64(g.Summary.Passed) / float64(g.Summary.Total)
	}
	return g
}
