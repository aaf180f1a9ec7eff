package codex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestUserHome(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		home string
		env  []string
		want string
	}{
		{home: filepath.Join(dir, "configured"), env: []string{"CODEX_HOME=" + filepath.Join(dir, "env")}, want: filepath.Join(dir, "configured")},
		{env: []string{"CODEX_HOME=" + filepath.Join(dir, "env"), "HOME=" + dir}, want: filepath.Join(dir, "env")},
		{env: []string{"HOME=" + dir}, want: filepath.Join(dir, ".codex")},
	} {
		d := &codexDriver{c: Config{Home: tc.home}}
		if got, err := d.userHome(tc.env); err != nil || got != tc.want {
			t.Errorf("userHome with Home %q and env %q = %q, %v; want %q", tc.home, tc.env, got, err, tc.want)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		d := &codexDriver{}
		if got, err := d.userHome(nil); err != nil || got != filepath.Join(home, ".codex") {
			t.Errorf("userHome without HOME = %q, %v; want ~/.codex", got, err)
		}
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		req  driver.Request
		want []string
	}{
		{"plain", Config{}, driver.Request{}, []string{"exec", "--json", "--skip-git-repo-check", "--", "-"}},
		{"every field", Config{Model: "m", Sandbox: "read-only", BypassApprovalsAndSandbox: true, Overrides: []string{"a=1", "b=2"}, Args: []string{"--x"}},
			driver.Request{Resume: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"},
			[]string{"exec", "--json", "--skip-git-repo-check", "--model=m", "--sandbox=read-only", "--dangerously-bypass-approvals-and-sandbox",
				"--config=a=1", "--config=b=2", "--x", "resume", "--", "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "-"}},
		{"values like options", Config{Model: "--settings=x", Sandbox: "-s", Overrides: []string{"--cd=/"}}, driver.Request{},
			[]string{"exec", "--json", "--skip-git-repo-check", "--model=--settings=x", "--sandbox=-s", "--config=--cd=/", "--", "-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Driver(tt.c).(*codexDriver).args(&tt.req).List()
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("args = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
