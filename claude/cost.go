package claude

import (
	"encoding/json"
	"errors"

	"github.com/agentadaptor/agentadaptor/driver"
)

// splitCost sets the run's own cost and the session's on the result of a
// run, also on the result an *driver.AgentError holds. Claude Code's
// total_cost_usd is the session's running total, earlier runs of a
// resumed session included, while its usage is the run's; the run's cost
// is the sum of model_usage_since_last_result's costUSD (Claude Code
// 2.1.328). Without that field the total is the run's cost only for a run
// that starts its session; a resumed run's cost is then unknown (nil).
func splitCost(req *driver.Request, ev *driver.ResultEvent, res *driver.Result, err error) {
	var agentErr *driver.AgentError
	if res == nil && errors.As(err, &agentErr) {
		res = agentErr.Result
	}
	if res == nil || ev == nil || ev.CostUSD == nil {
		return
	}
	total := *ev.CostUSD
	res.SessionCostUSD = &total
	res.CostUSD = nil
	if own, ok := runCost(ev.Raw); ok {
		res.CostUSD = &own
	} else if req.Resume == "" {
		res.CostUSD = &total
	}
}

// runCost sums the costUSD of each model in a result line's
// model_usage_since_last_result; ok is false when the line has none.
func runCost(line json.RawMessage) (cost float64, ok bool) {
	var l struct {
		Since map[string]struct {
			CostUSD *float64 `json:"costUSD"`
		} `json:"model_usage_since_last_result"`
	}
	if json.Unmarshal(line, &l) != nil || l.Since == nil {
		return 0, false
	}
	for _, m := range l.Since {
		if m.CostUSD == nil {
			return 0, false
		}
		cost += *m.CostUSD
	}
	return cost, true
}
