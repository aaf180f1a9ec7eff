package audit

import "testing"

// TestRuleIndex checks that ruleIDs holds every rule once, in the
// package doc's order, and that ruleIndex finds each where it is.
func TestRuleIndex(t *testing.T) {
	rules := allRules()
	if len(rules) != numRules {
		t.Fatalf("%d rules, numRules is %d", len(rules), numRules)
	}
	for i, r := range rules {
		if ruleIDs[i] != r.ID || ruleIndex(r.ID) != i {
			t.Errorf("rule %d is %s: ruleIDs holds %s there, ruleIndex gives %d", i, r.ID, ruleIDs[i], ruleIndex(r.ID))
		}
	}
}
