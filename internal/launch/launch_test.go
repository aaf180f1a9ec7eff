package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir}, Install: "get it from the shop"}

	l, err := Prepare(t.Context(), &driver.Request{}, p)
	wd, _ := os.Getwd()
	if err != nil || l.Path != filepath.Join(dir, "agent") || l.Workspace != wd {
		t.Fatalf("Prepare = %+v, %v; want the program from the agent's PATH and the current folder", l, err)
	}
	if l, err := Prepare(t.Context(), &driver.Request{Workspace: "/w"}, p); err != nil || l.Workspace != "/w" {
		t.Errorf("Prepare with a workspace = %+v, %v", l, err)
	}
	if _, err := Prepare(t.Context(), nil, p); err == nil {
		t.Error("Prepare of a nil request succeeded")
	}

	missing := p
	missing.Command = "nothing-by-this-name"
	_, err = Prepare(t.Context(), &driver.Request{}, missing)
	if !errors.Is(err, driver.ErrProcessFailed) || !strings.Contains(err.Error(), "get it from the shop") {
		t.Errorf("Prepare of a missing program = %v, want a process error saying how to install it", err)
	}

	cause := errors.New("user pressed stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	_, err = Prepare(ctx, &driver.Request{}, p)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("Prepare with a cancelled context = %v, want both the context's error and its cause", err)
	}
}

func TestNoResult(t *testing.T) {
	err := NoResult("agent", "  it said this\n")
	if !errors.Is(err, driver.ErrNoResult) || errors.Is(err, driver.ErrProcessFailed) || !strings.HasSuffix(err.Error(), "; stderr: it said this") {
		t.Errorf("NoResult = %v", err)
	}
	if err := NoResult("agent", ""); strings.Contains(err.Error(), "stderr") {
		t.Errorf("NoResult without stderr = %v", err)
	}
}
