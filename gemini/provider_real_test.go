package gemini_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealProviderSetup runs the real Gemini CLI with
// GOOGLE_GEMINI_BASE_URL and settings that choose no auth type: the run
// is refused before the start, naming the setting; settings that only
// seem to choose one pass the check, and Gemini CLI's own refusal (exit
// 41) is worded the same way; a base URL where nothing listens is
// refused before the start, naming it.
func TestRealProviderSetup(t *testing.T) {
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, func(*modeltest.GeminiRequest) modeltest.GeminiReply { return modeltest.GeminiText("unused") })
	env, home := s.GeminiEnv(t)
	env, _ = clitest.TaggedEnv(env, cli)
	settings := filepath.Join(home, ".gemini", "settings.json")
	root, ws := cachetest.Root(t), t.TempDir()
	run := func(env []string) error {
		_, err := clitest.NewAgent(gemini.Driver(gemini.Config{Env: env, CacheRoot: root}), root, ws).Run(clitest.RunCtx(t), "hello")
		return err
	}

	if err := os.WriteFile(settings, []byte(`{"privacy":{"usageStatisticsEnabled":false}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(env)
	var pe *driver.ProcessError
	if !errors.Is(err, driver.ErrProviderSetup) || errors.As(err, &pe) || !strings.Contains(err.Error(), settings) || !strings.Contains(err.Error(), `"selectedType": "gemini-api-key"`) {
		t.Errorf("run without an auth type = %v, want it refused before the start naming %s and the setting", err, settings)
	}

	if err := os.WriteFile(settings, []byte(`{"privacy":{"usageStatisticsEnabled":false},"note":"selectedType"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err = run(env)
	if !errors.Is(err, driver.ErrProviderSetup) || !errors.As(err, &pe) || pe.ExitCode != 41 || !strings.Contains(err.Error(), `"selectedType": "gemini-api-key"`) {
		t.Errorf("run Gemini CLI refuses = %v, want its exit 41 worded with the setting", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the refused runs sent %d requests", n)
	}

	if err := os.WriteFile(settings, []byte(modeltest.GeminiSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	err = run(process.MergeEnv(env, []string{"GOOGLE_GEMINI_BASE_URL=" + closed}))
	if !errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), "GOOGLE_GEMINI_BASE_URL is "+closed+", and a connection to it is refused") {
		t.Errorf("run with nothing at the base URL = %v, want it refused naming %s", err, closed)
	}
}
