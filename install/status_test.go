package install

import (
	"encoding/json"
	"testing"
)

// TestStatusIsTyped checks that a Status carries a State and a Kind, not
// bare strings, and that its JSON (what `agentskills list --json` and
// `verify` print) is still the plain words.
func TestStatusIsTyped(t *testing.T) {
	tests := []struct {
		name string
		st   Status
		want string
	}{
		{"installed link", Status{Skill: "a", Agent: "claude-code", Path: "/p/.claude/skills/a", Kind: KindLink, State: StateInstalled},
			`{"skill":"a","agent":"claude-code","path":"/p/.claude/skills/a","kind":"link","state":"installed"}`},
		{"external", Status{Skill: "b", Agent: "codex", Path: "/p/.agents/skills/b", State: StateExternal},
			`{"skill":"b","agent":"codex","path":"/p/.agents/skills/b","state":"external"}`},
		{"moved copy", Status{Skill: "c", Agent: "windsurf", Path: "/p/c", Kind: KindCopy, State: StateMoved},
			`{"skill":"c","agent":"windsurf","path":"/p/c","kind":"copy","state":"moved"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var state State = tt.st.State // a compile error while State is a string
			var kind Kind = tt.st.Kind
			_, _ = state, kind
			got, err := json.Marshal(tt.st)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal(%+v) = %s, want %s", tt.st, got, tt.want)
			}
		})
	}
}
