package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// suiteOf is a suite of cases with the ids given as JSON.
func suiteOf(t *testing.T, ids ...string) *Suite {
	t.Helper()
	s := &Suite{SkillName: "demo"}
	for _, raw := range ids {
		var id CaseID
		if err := json.Unmarshal([]byte(raw), &id); err != nil {
			t.Fatal(err)
		}
		s.Evals = append(s.Evals, Case{ID: id, Prompt: "p"})
	}
	return s
}

func agentsOf(ids ...string) []Agent {
	var as []Agent
	for _, id := range ids {
		as = append(as, Agent{ID: id})
	}
	return as
}

func unitText(u Unit) string {
	return fmt.Sprintf("%d %s %s %s %d %s", u.Index, u.Agent, u.Case, u.Config, u.Run, u.Dir)
}

// TestUnitsOrder pins the order of the package doc's "Units": a Job's
// completion index names a unit by it.
func TestUnitsOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ids    []string
		agents []string
		runs   int
		old    bool
		want   []string
	}{
		{"one agent, one run", []string{`1`, `"b"`}, []string{"a"}, 0, false, []string{
			"0 a 1 with_skill 1 eval-1/with_skill",
			"1 a 1 without_skill 1 eval-1/without_skill",
			"2 a b with_skill 1 eval-b/with_skill",
			"3 a b without_skill 1 eval-b/without_skill",
		}},
		{"file order, not id order", []string{`"z"`, `10`, `2`}, []string{"a"}, 1, true, []string{
			"0 a z with_skill 1 eval-z/with_skill",
			"1 a z old_skill 1 eval-z/old_skill",
			"2 a 10 with_skill 1 eval-10/with_skill",
			"3 a 10 old_skill 1 eval-10/old_skill",
			"4 a 2 with_skill 1 eval-2/with_skill",
			"5 a 2 old_skill 1 eval-2/old_skill",
		}},
		{"agents and runs", []string{`1`, `2`}, []string{"y", "x"}, 2, false, []string{
			"0 y 1 with_skill 1 y/eval-1/with_skill/run-1",
			"1 y 1 with_skill 2 y/eval-1/with_skill/run-2",
			"2 y 1 without_skill 1 y/eval-1/without_skill/run-1",
			"3 y 1 without_skill 2 y/eval-1/without_skill/run-2",
			"4 y 2 with_skill 1 y/eval-2/with_skill/run-1",
			"5 y 2 with_skill 2 y/eval-2/with_skill/run-2",
			"6 y 2 without_skill 1 y/eval-2/without_skill/run-1",
			"7 y 2 without_skill 2 y/eval-2/without_skill/run-2",
			"8 x 1 with_skill 1 x/eval-1/with_skill/run-1",
			"9 x 1 with_skill 2 x/eval-1/with_skill/run-2",
			"10 x 1 without_skill 1 x/eval-1/without_skill/run-1",
			"11 x 1 without_skill 2 x/eval-1/without_skill/run-2",
			"12 x 2 with_skill 1 x/eval-2/with_skill/run-1",
			"13 x 2 with_skill 2 x/eval-2/with_skill/run-2",
			"14 x 2 without_skill 1 x/eval-2/without_skill/run-1",
			"15 x 2 without_skill 2 x/eval-2/without_skill/run-2",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Agents: agentsOf(tt.agents...), Runs: tt.runs}
			if tt.old {
				req.Baseline = skill.Dir("old")
			}
			us, err := Units(suiteOf(t, tt.ids...), req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range us {
				got = append(got, unitText(u))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Units =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestUnitsFormula checks the package doc's formula for unit I over
// shapes of every size up to a few, against the nested loops of rule 1.
func TestUnitsFormula(t *testing.T) {
	t.Parallel()
	for a := 1; a <= 3; a++ {
		for c := 1; c <= 3; c++ {
			for r := 1; r <= 3; r++ {
				var ids, names []string
				for i := range c {
					ids = append(ids, fmt.Sprint(i+1))
				}
				for i := range a {
					names = append(names, fmt.Sprintf("agent%d", i))
				}
				us, err := Units(suiteOf(t, ids...), Request{Agents: agentsOf(names...), Runs: r})
				if err != nil {
					t.Fatal(err)
				}
				if len(us) != a*c*2*r {
					t.Fatalf("%d agents, %d cases, %d runs: %d units, want %d", a, c, r, len(us), a*c*2*r)
				}
				i := 0
				for ai := range a {
					for ci := range c {
						for _, cfg := range []Config{WithSkill, WithoutSkill} {
							for k := 1; k <= r; k++ {
								u := us[i]
								if u.Index != i || u.Agent != names[ai] || u.Case.String() != ids[ci] || u.Config != cfg || u.Run != k {
									t.Fatalf("%d agents, %d cases, %d runs: unit %d = %s, want agent %s case %s %s run %d", a, c, r, i, unitText(u), names[ai], ids[ci], cfg, k)
								}
								// The doc's closed form.
								if names[i/(c*2*r)] != u.Agent || ids[(i/(2*r))%c] != u.Case.String() || (i/r)%2 == 1 != (u.Config == WithoutSkill) || i%r+1 != u.Run {
									t.Fatalf("unit %d = %s: not the doc's formula", i, unitText(u))
								}
								i++
							}
						}
					}
				}
			}
		}
	}
}

func TestUnitsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		suite *Suite
		req   Request
		want  string
	}{
		{"no suite", nil, Request{Agents: agentsOf("a")}, "Skill: invalid evaluation request: the suite holds no case"},
		{"no case", &Suite{}, Request{Agents: agentsOf("a")}, "Skill: invalid evaluation request: the suite holds no case"},
		{"no agent", suiteOf(t, `1`), Request{}, "Agents: invalid evaluation request: at least one agent is required"},
		{"bad id", suiteOf(t, `1`), Request{Agents: agentsOf("a/b")}, `Agents[0].ID: invalid evaluation request: "a/b" cannot name a folder`},
		{"same id", suiteOf(t, `1`), Request{Agents: agentsOf("a", "A")}, `Agents[1].ID: invalid evaluation request: "A" is the id of Agents[0] too`},
		{"too many runs", suiteOf(t, `1`), Request{Agents: agentsOf("a"), Runs: 1001}, "Runs: invalid evaluation request: 1001"},
		{"negative runs", suiteOf(t, `1`), Request{Agents: agentsOf("a"), Runs: -1}, "Runs: invalid evaluation request: -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			us, err := Units(tt.suite, tt.req)
			if !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Units = %d units, %v, want %q", len(us), err, tt.want)
			}
		})
	}
}

// TestUnitsAreRunsOrder checks that Evaluator.Units reads the skill's
// suite and that Run, one job at a time, starts its runs in the units'
// order.
func TestUnitsAreRunsOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d, d)
	req.Runs = 2
	us, err := f.evaluator().Units(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 2*2*2*2 {
		t.Fatalf("Units = %d units, want 16", len(us))
	}
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	var started []string
	for _, p := range f.progress {
		if p.State == "started" {
			started = append(started, fmt.Sprintf("%s %s %s %d", p.Agent, p.Case, p.Config, p.Run))
		}
	}
	var want []string
	for _, u := range us {
		want = append(want, fmt.Sprintf("%s %s %s %d", u.Agent, u.Case, u.Config, u.Run))
	}
	if strings.Join(started, "\n") != strings.Join(want, "\n") {
		t.Errorf("Run started\n%s\nwant the units' order\n%s", strings.Join(started, "\n"), strings.Join(want, "\n"))
	}

	none := Request{Skill: skill.Dir(t.TempDir()), Agents: agentsOf("a"), Out: f.out}
	if _, err := f.evaluator().Units(t.Context(), none); err == nil {
		t.Error("Evaluator.Units of a folder without a skill = nil error")
	}
	if _, err := f.evaluator().Units(t.Context(), Request{Agents: agentsOf("a")}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("Evaluator.Units without a skill = %v, want ErrInvalidRequest", err)
	}
}
