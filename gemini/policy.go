package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// toolName is the form of a tool name the driver writes into a policy
// rule: Gemini CLI's own tools ("run_shell_command") and those of MCP
// servers ("server__tool").
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })

// Priorities of the run's rules: a tool denied wins over one allowed,
// and both over Gemini CLI's own rules, whatever the approval mode.
const (
	allowPriority = 500
	denyPriority  = 900
)

// toolPolicy returns the policy rules of c's AllowedTools and
// DisallowedTools, "" when there are none, or an error naming a tool
// name a rule cannot hold.
func (c *Config) toolPolicy() (string, error) {
	var b strings.Builder
	for _, r := range []struct {
		tools    []string
		decision string
		priority int
		field    string
	}{
		{c.AllowedTools, "allow", allowPriority, "AllowedTools"},
		{c.DisallowedTools, "deny", denyPriority, "DisallowedTools"},
	} {
		for _, t := range r.tools {
			if !toolName().MatchString(t) {
				return "", fmt.Errorf("gemini: tool %q of Config.%s is not a tool name (letters, digits, _ . -, such as run_shell_command)", t, r.field)
			}
			fmt.Fprintf(&b, "[[rule]]\ntoolName = %q\ndecision = %q\npriority = %d\n\n", t, r.decision, r.priority)
		}
	}
	if b.Len() == 0 {
		return "", nil
	}
	return "# Written by agentadaptor for one run: the tools allowed and denied.\n" + b.String(), nil
}

// writeToolPolicy writes c's tool rules, if any, to a policy file of the
// run's own in a new folder under the temporary folder, and returns its
// path ("" with none) and the removal of the folder.
func (c *Config) writeToolPolicy() (path string, remove func(), err error) {
	rules, err := c.toolPolicy()
	if err != nil || rules == "" {
		return "", func() {}, err
	}
	dir, err := os.MkdirTemp("", "agentadaptor-gemini-")
	if err != nil {
		return "", nil, fmt.Errorf("gemini: write the run's policy: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "tools-policy.toml")
	if strings.Contains(path, ",") {
		remove()
		return "", nil, fmt.Errorf("gemini: the run's policy file %s holds a comma, which Gemini CLI reads as a list of policies; set TMPDIR to a folder without one", path)
	}
	if err := os.WriteFile(path, []byte(rules), 0o600); err != nil {
		remove()
		return "", nil, fmt.Errorf("gemini: write the run's policy: %w", err)
	}
	return path, remove, nil
}
