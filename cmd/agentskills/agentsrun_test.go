package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestAgentsRun checks that agents marks the agents run can drive, in
// its table and its JSON, and no others.
func TestAgentsRun(t *testing.T) {
	r := newStubRig(t)
	code, out, errs := r.run(t, "agents", "--json")
	if code != 0 {
		t.Fatalf("agents --json = %d, stderr %q", code, errs)
	}
	var rows []struct {
		ID  string `json:"id"`
		Run bool   `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range rows {
		if row.Run {
			got = append(got, row.ID)
		}
	}
	if want := strings.Split(runAgents(", "), ", "); strings.Join(got, ",") != strings.Join(slices.Sorted(slices.Values(want)), ",") {
		t.Errorf("agents marked run = %q, want %q", got, want)
	}
	code, out, _ = r.run(t, "agents")
	lines := strings.Split(out, "\n")
	if code != 0 || !strings.Contains(lines[0], "DETECTED  RUN") {
		t.Fatalf("agents = %d, header %q; want a RUN column", code, lines[0])
	}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "cursor" && !strings.Contains(l, " yes ") {
			t.Errorf("agents row %q, want cursor marked for run", l)
		}
	}
}
