package claude

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestUserSkillsDir(t *testing.T) {
	if got := userSkillsDir([]string{"CLAUDE_CONFIG_DIR=/c", "HOME=/h"}); got != filepath.Join("/c", "skills") {
		t.Errorf("userSkillsDir with CLAUDE_CONFIG_DIR = %q", got)
	}
	if got := userSkillsDir([]string{"HOME=/h"}); got != filepath.Join("/h", ".claude", "skills") {
		t.Errorf("userSkillsDir with HOME = %q", got)
	}
	if home, err := os.UserHomeDir(); err == nil {
		if got := userSkillsDir(nil); got != filepath.Join(home, ".claude", "skills") {
			t.Errorf("userSkillsDir without HOME = %q", got)
		}
	}
}

func TestArgs(t *testing.T) {
	d := Driver(Config{Model: "m", PermissionMode: "plan", SkipPermissions: true, MaxTurns: 3,
		AppendSystemPrompt: "be brief", PartialMessages: true, Args: []string{"--x"}}).(*claudeDriver)
	got := d.args(&driver.Request{Resume: "s"}, "/mount")
	want := []string{"-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--resume", "s", "--model", "m", "--permission-mode", "plan", "--dangerously-skip-permissions",
		"--max-turns", "3", "--append-system-prompt", "be brief", "--x", "--add-dir", "/mount"}
	if !slices.Equal(got, want) {
		t.Errorf("args = %q, want %q", got, want)
	}
}
