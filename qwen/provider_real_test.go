package qwen_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// TestRealProviderSetup runs the real Qwen Code without OPENAI_MODEL:
// the run is refused before the start, naming the variable; settings
// that only seem to choose an auth type pass the check, and Qwen Code's
// own refusal ("No auth type is selected") is worded the same way; an
// OPENAI_BASE_URL where nothing listens is refused before the start,
// naming it.
func TestRealProviderSetup(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("unused")))
	env, home := s.QwenEnv(t)
	env = append(env, "PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(env []string) error {
		_, err := qwen.Driver(qwen.Config{Env: env, CacheRoot: t.TempDir()}).Run(t.Context(), &driver.Request{Prompt: "hello", Workspace: t.TempDir()})
		return err
	}
	noModel := process.MergeEnv(env, []string{"OPENAI_MODEL="})
	const want = "OPENAI_API_KEY and OPENAI_BASE_URL set without OPENAI_MODEL"
	err := run(noModel)
	var pe *driver.ProcessError
	var ae *driver.AgentError
	if !errors.Is(err, driver.ErrProviderSetup) || errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
		t.Errorf("run without OPENAI_MODEL = %v, want it refused before the start saying %q", err, want)
	}

	settings := filepath.Join(home, ".qwen", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"security":{"auth":{"selectedType":""}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err = run(noModel)
	if !errors.Is(err, driver.ErrProviderSetup) || !errors.As(err, &ae) || !strings.Contains(err.Error(), "No auth type is selected") || !strings.Contains(err.Error(), want) {
		t.Errorf("run Qwen Code refuses = %v, want its refusal worded saying %q", err, want)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the refused runs sent %d requests", n)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	err = run(process.MergeEnv(env, []string{"OPENAI_BASE_URL=" + closed}))
	if !errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), "OPENAI_BASE_URL is "+closed+", and a connection to it is refused") {
		t.Errorf("run with nothing at the base URL = %v, want it refused naming %s", err, closed)
	}
}
