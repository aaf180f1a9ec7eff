package eval

// Stand-ins of the suite, statistics and grading parts, deleted when they
// land.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

func benchmarkOf(results []runResult, baseline Config) *Benchmark {
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
