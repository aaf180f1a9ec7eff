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
	tests := []struct {
		name  string
		c     Config
		req   driver.Request
		mount string
		want  []string
	}{
		{"plain", Config{}, driver.Request{}, "", []string{"-p", "--output-format=stream-json", "--verbose"}},
		{"every field", Config{Model: "m", PermissionMode: "plan", SkipPermissions: true, MaxTurns: 3,
			AppendSystemPrompt: "be brief", PartialMessages: true, Args: []string{"--x"}},
			driver.Request{Resume: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"}, "/mount",
			[]string{"-p", "--output-format=stream-json", "--verbose", "--include-partial-messages",
				"--resume=5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "--model=m", "--permission-mode=plan", "--dangerously-skip-permissions",
				"--max-turns=3", "--append-system-prompt=be brief", "--x", "--add-dir=/mount"}},
		{"without user skills", Config{WithoutUserSkills: true, Args: []string{"--x"}}, driver.Request{}, "/mount",
			[]string{"-p", "--output-format=stream-json", "--verbose", "--setting-sources=project,local", "--x", "--add-dir=/mount"}},
		{"tools", Config{AllowedTools: []string{"Bash(touch *)", "Edit"}, DisallowedTools: []string{"--print", "WebFetch"}},
			driver.Request{}, "",
			[]string{"-p", "--output-format=stream-json", "--verbose", "--allowed-tools=Bash(touch *)", "--allowed-tools=Edit",
				"--disallowed-tools=--print", "--disallowed-tools=WebFetch"}},
		{"values like options", Config{Model: "--settings=x", PermissionMode: "-p", AppendSystemPrompt: "--debug-file=/tmp/x"},
			driver.Request{}, "-mount",
			[]string{"-p", "--output-format=stream-json", "--verbose", "--model=--settings=x", "--permission-mode=-p",
				"--append-system-prompt=--debug-file=/tmp/x", "--add-dir=-mount"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Driver(tt.c).(*claudeDriver).args(&tt.req, tt.mount).List()
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("args = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
