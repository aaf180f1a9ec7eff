package gemini_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealRetryEvent runs the real Gemini CLI against a model API that
// answers the first turn call with a 429: the retry it reports on
// standard error arrives as a driver.RetryEvent while the run goes on
// (the stand-in holds the retried call back until the event is seen),
// and the retried call's answer is the run's.
func TestRealRetryEvent(t *testing.T) {
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	seen := make(chan struct{})
	var once sync.Once
	var calls atomic.Int32
	var late atomic.Bool
	s := modeltest.NewGemini(t, func(*modeltest.GeminiRequest) modeltest.GeminiReply {
		switch calls.Add(1) {
		case 1:
			return modeltest.GeminiAPIError(429, "slow down")
		case 2:
			select {
			case <-seen:
			case <-time.After(time.Minute):
				late.Store(true)
			}
		}
		return modeltest.GeminiText("recovered")
	})
	env, _ := s.GeminiEnv(t)
	env, _ = clitest.TaggedEnv(env, cli)
	root, ws := cachetest.Root(t), t.TempDir()
	var mu sync.Mutex
	var retries []driver.RetryEvent
	agent := clitest.NewAgent(gemini.Driver(gemini.Config{Env: env, CacheRoot: root}), root, ws,
		adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))),
		adaptor.WithEvents(func(ev driver.Event) {
			if r, ok := ev.(*driver.RetryEvent); ok {
				mu.Lock()
				retries = append(retries, *r)
				mu.Unlock()
				once.Do(func() { close(seen) })
			}
		}))
	res, err := agent.Run(clitest.RunCtx(t), "hello")
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if res.Text != "recovered" {
		t.Errorf("Run text = %q, want the retried call's answer", res.Text)
	}
	if late.Load() {
		t.Error("no RetryEvent while Gemini CLI retried")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(retries) != 1 || retries[0].Attempt != 1 || retries[0].Status != 429 || retries[0].Message != "slow down" {
		t.Errorf("retry events = %+v, want attempt 1, status 429, message \"slow down\"", retries)
	}
}
