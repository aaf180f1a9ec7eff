//go:build unix

package claude_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// gate is a materializer that holds up the materialization of one skill
// until the test releases it.
type gate struct {
	skill.Materializer
	key              string
	entered, release chan struct{}
}

func (g *gate) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	if s.Key == g.key {
		close(g.entered)
		select {
		case <-g.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return g.Materializer.Materialize(ctx, s)
}

// TestRunsDoNotWaitForEachOther runs, on one cache, a run held up in the
// materialization of one of its skills and a run whose agent is held up
// after its start (its mount built and leased), and checks that runs of
// other sets sharing skills with both, and a run of the held agent's own
// set, start and finish meanwhile: no lock is held across runs.
func TestRunsDoNotWaitForEachOther(t *testing.T) {
	refs, names := clitest.SkillSets(4, 10)
	root, dir, home, workspace := cachetest.Root(t), t.TempDir(), t.TempDir(), t.TempDir()
	cache := skill.NewCache(skill.WithSkillCacheRoot(root))
	started, proceed := filepath.Join(dir, "started"), filepath.Join(dir, "proceed")
	for _, fifo := range []string{started, proceed} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// agent returns an agent of set i whose stand-in, when hold is set,
	// says it started and waits to be told to go on.
	agent := func(i int, hold bool, m skill.Materializer) *adaptor.Agent {
		script := "#!/bin/bash\n"
		if hold {
			script += "echo started > " + started + "\nread x < " + proceed + "\n"
		}
		script += `echo '{"type":"system","subtype":"init","session_id":"s","skills":["` + strings.Join(names[i], `","`) + `"]}'` + "\n" +
			`echo '{"type":"result","subtype":"success","session_id":"s","result":"ok"}'` + "\n"
		stub := filepath.Join(dir, fmt.Sprintf("claude-%d-%v", i, hold))
		if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		d := claude.Driver(claude.Config{Command: stub, CacheRoot: root, Env: []string{"HOME=" + home}})
		return adaptor.New(d, adaptor.WithSkillMaterializer(m), adaptor.WithWorkspace(workspace), adaptor.WithSkills(refs[i]...))
	}
	ctx := clitest.RunCtx(t)
	g := &gate{Materializer: cache, key: names[0][len(names[0])-1], entered: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 2)
	go func() {
		_, err := agent(0, false, g).Run(ctx, "x")
		done <- err
	}()
	go func() {
		_, err := agent(1, true, cache).Run(ctx, "x")
		done <- err
	}()
	waitFor := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case err := <-done:
			t.Fatalf("a held run ended before %s: %v", what, err)
		}
	}
	waitFor("its materialization was held", g.entered)
	said := make(chan struct{})
	var readErr error
	go func() {
		_, readErr = os.ReadFile(started)
		close(said)
	}()
	t.Cleanup(func() {
		// Frees the read above when the held agent never started.
		if f, err := os.OpenFile(started, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	waitFor("its agent started", said)
	if readErr != nil {
		t.Fatal(readErr)
	}
	tests := []struct {
		name string
		set  int
	}{
		{"a set sharing skills with the held agent's", 2},
		{"the set of the held agent", 1},
		{"a set sharing only the common skills with both", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A bound, not a wait: a run that waited for a held one
			// would wait until it, and fail.
			ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if res, err := agent(tt.set, false, cache).Run(ctx, "x"); err != nil || res.Text != "ok" {
				t.Fatalf("Run of set %d while two runs are held = %v, %v", tt.set, res, err)
			}
		})
	}
	close(g.release)
	if err := os.WriteFile(proceed, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("a held run: %v", err)
		}
	}
}
