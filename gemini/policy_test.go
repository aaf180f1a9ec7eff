package gemini

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolPolicy checks "Tools and turns": a rule per tool, deny above
// allow, and a name a rule cannot hold refused.
func TestToolPolicy(t *testing.T) {
	c := Config{AllowedTools: []string{"run_shell_command"}, DisallowedTools: []string{"web_fetch", "srv__tool.x"}}
	got, err := c.toolPolicy()
	want := `# Written by agentadaptor for one run: the tools allowed and denied.
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 500

[[rule]]
toolName = "web_fetch"
decision = "deny"
priority = 900

[[rule]]
toolName = "srv__tool.x"
decision = "deny"
priority = 900

`
	if err != nil || got != want {
		t.Errorf("toolPolicy = %v\n%s", err, cmp.Diff(want, got))
	}
	if got, err := (&Config{}).toolPolicy(); got != "" || err != nil {
		t.Errorf("toolPolicy of no tools = %q, %v; want nothing", got, err)
	}
	for _, bad := range []string{"", "a\"\ndecision = \"allow", "-x", "a b", "x\x00"} {
		if _, err := (&Config{DisallowedTools: []string{bad}}).toolPolicy(); err == nil || !strings.Contains(err.Error(), "DisallowedTools") {
			t.Errorf("toolPolicy of %q = %v, want an error naming the field", bad, err)
		}
	}

	path, remove, err := c.writeToolPolicy()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("the policy file holds %q, %v", b, err)
	}
	remove()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the policy file is still there after remove: %v", err)
	}
	if path, remove, err := (&Config{}).writeToolPolicy(); path != "" || err != nil {
		t.Errorf("writeToolPolicy of no tools = %q, %v", path, err)
	} else {
		remove()
	}
}
