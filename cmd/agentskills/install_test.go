package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallExitCodes checks the one exit rule of the install commands:
// 0 success, 1 an operation or a check failed, 2 bad input only, 130
// interrupted.
func TestInstallExitCodes(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	good := filepath.Join(src, "good")
	// A port nothing listens on: the connection is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/kit.tgz"
	l.Close()
	canceled, cancel := context.WithCancel(t.Context())
	cancel()

	tests := []struct {
		name  string
		setup func(t *testing.T, project string)
		ctx   context.Context
		args  []string
		code  int
		errs  string
	}{
		{name: "verify with nothing recorded", args: []string{"verify"}, code: 1, errs: "no skills are recorded"},
		{name: "add of a missing folder", args: []string{"add", filepath.Join(src, "nope"), "-a", "codex"}, code: 2, errs: "source cannot be installed"},
		{name: "add of a refused URL", args: []string{"add", refused, "-a", "codex"}, code: 1, errs: "source unavailable"},
		{name: "remove of what is not installed", args: []string{"remove", "good"}, code: 2, errs: "not installed by agentskills"},
		{name: "add interrupted", ctx: canceled, args: []string{"add", good, "-a", "codex"}, code: 130, errs: "nothing was changed"},
		{name: "add over a user's folder", args: []string{"add", good, "-a", "claude-code"}, code: 1, errs: "was not installed by agentskills",
			setup: func(t *testing.T, project string) {
				os.MkdirAll(filepath.Join(project, ".claude", "skills", "good"), 0o755)
			}},
	}
	for _, cmd := range [][]string{{"add", good, "-a", "codex"}, {"list"}, {"verify"}, {"sync"}, {"remove", "good"}} {
		tests = append(tests, struct {
			name  string
			setup func(t *testing.T, project string)
			ctx   context.Context
			args  []string
			code  int
			errs  string
		}{name: cmd[0] + " with an invalid lock file", args: cmd, code: 2, errs: "lock file is not valid", setup: func(t *testing.T, project string) {
			os.MkdirAll(filepath.Join(project, ".agents"), 0o755)
			os.WriteFile(filepath.Join(project, ".agents", "agentskills.lock"), []byte("{"), 0o644)
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := t.TempDir()
			t.Chdir(project)
			if tt.setup != nil {
				tt.setup(t, project)
			}
			ctx := tt.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			var stdout, stderr bytes.Buffer
			code := run(ctx, tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.errs) {
				t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), tt.code, tt.errs)
			}
		})
	}
}
