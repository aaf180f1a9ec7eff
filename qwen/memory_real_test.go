package qwen_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// TestRealNoMemoryExtraction checks Config.NoMemoryExtraction against the
// real Qwen Code: by default a run makes the managed memory extraction
// call after its turn; with the option it makes none, with skills
// mounted (the system defaults beside the mount) or without (a file of
// the run's own).
func TestRealNoMemoryExtraction(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	for _, tt := range []struct {
		name     string
		skills   bool
		noMemory bool
		want     bool // a memory call
	}{
		{"default", true, false, true},
		{"off, with skills", true, true, false},
		{"off, without skills", false, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("Hello.")))
			env, _ := s.QwenEnv(t)
			env = append(env, "PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"))
			req := &driver.Request{Prompt: "hi", Workspace: t.TempDir()}
			if tt.skills {
				dir := writeSkill(t, filepath.Join(t.TempDir(), "greet"), "GREET-BODY-MARK")
				req.Skills = driver.ResolvedSkills{Fingerprint: "f", Entries: []driver.ResolvedSkill{{Key: "greet", RuntimeName: "greet", Path: dir}}}
			}
			d := qwen.Driver(qwen.Config{Env: env, CacheRoot: t.TempDir(), NoMemoryExtraction: tt.noMemory})
			if res, err := d.Run(t.Context(), req); err != nil || res.Text != "Hello." {
				t.Fatalf("Run = %+v, %v; want Hello.", res, err)
			}
			memory := 0
			for _, r := range s.Requests() {
				if r.Kind() == modeltest.ChatMemory {
					memory++
				}
			}
			if got := memory > 0; got != tt.want {
				t.Errorf("memory extraction calls: %d; want some: %v", memory, tt.want)
			}
		})
	}
}
