package modeltest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestQwen runs the real Qwen Code, headless, against a ChatServer: it
// answers a prompt, and in its default approval mode ("auto") calls a
// skill mounted through skills.directories of a system-defaults file,
// which needs the classifier call the server answers by itself.
func TestQwen(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Qwen Code")
	}
	t.Parallel()
	qwen := modeltest.QwenCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatIfPrompt("use the skill",
		modeltest.ChatToolThenText(modeltest.ChatSkillCall("greet"), "Greeted."),
		modeltest.ChatAlways(modeltest.ChatText("Hello from the stand-in."))))
	env, _ := s.QwenEnv(t)

	skills := t.TempDir()
	if err := os.MkdirAll(filepath.Join(skills, "greet"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: greet\ndescription: Greets the user.\n---\nSay GREETINGS-BODY.\n"
	if err := os.WriteFile(filepath.Join(skills, "greet", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	defaults := filepath.Join(t.TempDir(), "system-defaults.json")
	b, _ := json.Marshal(map[string]any{"skills": map[string]any{"directories": []string{skills}}})
	if err := os.WriteFile(defaults, b, 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(env, "QWEN_CODE_SYSTEM_DEFAULTS_PATH="+defaults)

	var init map[string]any
	run := func(prompt string) (types []string, result map[string]any) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), qwen, "-o", "stream-json")
		cmd.Env, cmd.Dir, cmd.Stdin = env, t.TempDir(), strings.NewReader(prompt)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("qwen: %v; stderr:\n%s\nstdout:\n%s", err, stderr.String(), out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var l map[string]any
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("stdout line %q: %v", sc.Text(), err)
			}
			typ, _ := l["type"].(string)
			types = append(types, typ)
			if typ == "system" {
				init = l
			}
			if typ == "result" {
				result = l
			}
		}
		if result == nil {
			t.Fatalf("no result line; types %v; stderr:\n%s", types, stderr.String())
		}
		return types, result
	}

	types, res := run("Say hello")
	if types[0] != "system" || res["result"] != "Hello from the stand-in." || res["is_error"] != false {
		t.Errorf("Say hello: types %v, result %v; want init first and the stand-in's answer", types, res)
	}
	if cmds, _ := init["slash_commands"].([]any); !slices.Contains(cmds, any("greet")) {
		t.Errorf("init slash_commands %v, want the mounted skill greet among them", cmds)
	}
	main := s.MainRequests()
	if len(main) != 1 || !main[0].Stream || main[0].Model != "qwen-modeltest" {
		t.Fatalf("%d main requests, want one stream for qwen-modeltest", len(main))
	}
	if !strings.Contains(main[0].Prompt(), "<name>\ngreet\n</name>") {
		t.Errorf("the skill listing does not name greet:\n%s", main[0].Prompt())
	}
	if got := main[0].Header.Get("Authorization"); got != "Bearer sk-modeltest" {
		t.Errorf("Authorization %q, want the environment's key", got)
	}

	_, res = run("Please use the skill")
	if res["result"] != "Greeted." {
		t.Errorf("skill run result %v, want Greeted.", res)
	}
	main = s.MainRequests()
	tr, ok := main[len(main)-1].ToolResult()
	if !ok || !strings.Contains(tr.Text, "GREETINGS-BODY") || !strings.Contains(tr.Text, "Base directory for this skill: "+filepath.Join(skills, "greet")) {
		t.Errorf("last main request's tool result %q (found %v), want the skill's base directory and body", tr.Text, ok)
	}
	var classified bool
	for _, r := range s.Requests() {
		classified = classified || r.Kind() == modeltest.ChatClassifier
	}
	if !classified {
		t.Errorf("no classifier call; the default approval mode asks one before the skill tool")
	}
}
