package search_test

import (
	"context"
	"fmt"

	"github.com/agentadaptor/agentadaptor/search"
)

// catalogue is a backend over a fixed list, as an index of a team's own
// skills might be.
type catalogue []search.Result

func (catalogue) Name() string { return "team catalogue" }

func (c catalogue) Search(_ context.Context, query string, limit int) ([]search.Result, error) {
	var out []search.Result
	for _, r := range c {
		if search.Matches(query, r.Name, r.Description, r.Source) && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func ExampleSearch() {
	team := catalogue{
		{Name: "release-notes", Description: "Writes release notes from a PR list", Source: "acme/skills/release-notes", Install: "agentskills add acme/skills/release-notes"},
		{Name: "pr-review", Description: "Reviews a pull request", Source: "acme/skills/pr-review", Install: "agentskills add acme/skills/pr-review"},
		{Name: "review", Description: "Reviews a change", Source: "acme/skills/review", Install: "agentskills add acme/skills/review"},
	}
	res, err := search.Search(context.Background(), "review", []search.Backend{team})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Results {
		fmt.Printf("%s: %s\n", r.Name, r.Install)
	}
	// Output:
	// review: agentskills add acme/skills/review
	// pr-review: agentskills add acme/skills/pr-review
}
