package modeltest_test

// Tests that run the real Gemini CLI against the Gemini stand-in.

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestGemini runs the CLI headless against the stand-in: the router's
// call is answered by the server, a tool call runs, and the final answer
// ends up in the result.
func TestGemini(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Gemini CLI")
	}
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, modeltest.GeminiIfPrompt("list",
		modeltest.GeminiToolThenText(modeltest.GeminiFunctionCall("list_directory", map[string]string{"dir_path": "."}), "listed"),
		modeltest.GeminiAlways(modeltest.GeminiText("hello from the stand-in"))))
	env, _ := s.GeminiEnv(t)
	dir := t.TempDir()
	args := []string{"-p", "", "-o", "stream-json", "--skip-trust"}

	r := runCLI(t, cli, env, dir, "say hello", args...)
	if r.Code != 0 {
		t.Fatalf("gemini exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var types []string
	var text strings.Builder
	for _, l := range r.Lines {
		typ, _ := l["type"].(string)
		types = append(types, typ)
		if typ == "message" && l["role"] == "assistant" {
			c, _ := l["content"].(string)
			text.WriteString(c)
		}
	}
	if got := text.String(); got != "hello from the stand-in" {
		t.Errorf("assistant text = %q, want %q\nstdout: %s", got, "hello from the stand-in", r.Stdout)
	}
	if len(types) == 0 || types[0] != "init" || types[len(types)-1] != "result" {
		t.Errorf("line types = %v, want init first and result last", types)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || !reqs[0].Router || reqs[1].Router || !reqs[1].Stream {
		t.Fatalf("requests = %v, want the router's then one streamed turn", paths(reqs))
	}
	if got := reqs[1].Prompt(); !strings.Contains(got, "say hello") {
		t.Errorf("turn prompt = %q, want it to hold %q", got, "say hello")
	}

	t.Run("tool", func(t *testing.T) {
		r := runCLI(t, cli, env, dir, "list the folder", append(args, "-m", "modeltest-model")...)
		if r.Code != 0 {
			t.Fatalf("gemini exit %d\nstderr: %s", r.Code, r.Stderr)
		}
		var sawTool bool
		for _, l := range r.Lines {
			if l["type"] == "tool_use" && l["tool_name"] == "list_directory" {
				sawTool = true
			}
		}
		if !sawTool {
			t.Errorf("no tool_use line for list_directory\nstdout: %s", r.Stdout)
		}
		turns := s.TurnRequests()
		last := turns[len(turns)-1]
		fr, ok := last.FunctionResponse()
		if !ok || fr.Name != "list_directory" || last.Model != "modeltest-model" {
			t.Errorf("last request: model %q, function response %+v (%v), want list_directory's on modeltest-model", last.Model, fr, ok)
		}
		if !slices.Contains(last.Tools, "list_directory") {
			t.Errorf("tools = %v, want list_directory among them", last.Tools)
		}
	})
}

func paths(reqs []*modeltest.GeminiRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}
