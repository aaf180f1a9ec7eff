package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestStallStopsHelpers fetches over ssh from an ssh stand-in that
// never answers: after the stall timeout git fails with ErrStalled, and
// the stand-in, which git started, is stopped with it (rule 5).
func TestStallStopsHelpers(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "ssh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ >"+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_SSH_COMMAND", script)
	t.Setenv("GIT_SSH_VARIANT", "simple")
	c := newClient(t, git.WithStallTimeout(time.Second))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, err := c.Resolve(ctx, git.Source{URL: "ssh://git@git.example.test/skills.git"})
	if !errors.Is(err, source.ErrStalled) {
		t.Fatalf("Resolve over a silent ssh = %v, want %v", err, source.ErrStalled)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the ssh stand-in never ran: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL was sent to the group before Resolve returned; wait for
	// the kernel to finish the process (a zombie is finished).
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the ssh stand-in (pid %d) is still running after git was stopped", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not ended.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	state := strings.Fields(rest)[0]
	return state != "Z" && state != "X"
}
