package qwen_test

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

var record = flag.Bool("record", false, "write the real Qwen Code's streams to testdata")

// TestRealStreams, run with -record, runs the real Qwen Code headless on
// four scripts and writes its output to testdata as the fixtures of the
// parser's tests (paths of the test's folders made placeholders). Without
// -record it does nothing: the conformance suite covers the real runs.
func TestRealStreams(t *testing.T) {
	if !*record {
		t.Skip("writes the fixtures; run with -record")
	}
	cli := modeltest.QwenCLI(t)
	skills, defaults := greetDefaults(t)
	for _, tt := range []struct {
		file  string
		reply modeltest.ChatReplyFunc
		args  []string
	}{
		{"plain.jsonl", modeltest.ChatAlways(modeltest.ChatText("Hello from the stand-in.")), nil},
		{"partial.jsonl", modeltest.ChatAlways(modeltest.ChatText("Hello from the stand-in.")), []string{"--include-partial-messages"}},
		{"skill-call.jsonl", modeltest.ChatToolThenText(modeltest.ChatSkillCall("greet"), "Greeted."), []string{"--approval-mode=default", "--allowed-tools=skill"}},
		{"api-error.jsonl", modeltest.ChatAlways(modeltest.ChatAPIError(400, "unknown model")), nil},
	} {
		t.Run(tt.file, func(t *testing.T) {
			s := modeltest.NewChat(t, tt.reply)
			env, home := s.QwenEnv(t)
			cwd := t.TempDir()
			cmd := exec.CommandContext(t.Context(), cli, append([]string{"--output-format=stream-json"}, tt.args...)...)
			cmd.Env = append(env, "QWEN_CODE_SYSTEM_DEFAULTS_PATH="+defaults)
			cmd.Dir, cmd.Stdin = cwd, strings.NewReader("Say hello")
			out, _ := cmd.Output()
			if !strings.Contains(string(out), `"type":"result"`) {
				t.Fatalf("no result line in %s", out)
			}
			text := strings.NewReplacer(skills, "$SKILLS", cwd, "$CWD", home, "$HOME", s.URL, "$URL").Replace(string(out))
			if err := os.WriteFile(filepath.Join("testdata", tt.file), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// greetDefaults writes a skill greet and a system-defaults file that
// names its folder, and returns both.
func greetDefaults(t *testing.T) (skills, defaults string) {
	skills = t.TempDir()
	os.MkdirAll(filepath.Join(skills, "greet"), 0o755)
	os.WriteFile(filepath.Join(skills, "greet", "SKILL.md"), []byte("---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n"), 0o644)
	defaults = filepath.Join(t.TempDir(), "system-defaults.json")
	os.WriteFile(defaults, []byte(`{"skills":{"directories":["`+skills+`"]}}`), 0o644)
	return skills, defaults
}

// TestRealRetryStream, run with -record, runs the real Qwen Code against
// a stand-in that answers 429 to every call and writes its output up to
// its first system/retry line (about 90 s in) to testdata/api-retry.jsonl.
// Without -record it does nothing.
func TestRealRetryStream(t *testing.T) {
	t.Parallel()
	if !*record {
		t.Skip("writes the fixtures; run with -record")
	}
	s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatAPIError(429, "slow down")))
	env, home := s.QwenEnv(t)
	skills, defaults := greetDefaults(t)
	cwd := t.TempDir()
	cmd := exec.CommandContext(t.Context(), modeltest.QwenCLI(t), "--output-format=stream-json")
	cmd.Env = append(env, "QWEN_CODE_SYSTEM_DEFAULTS_PATH="+defaults)
	cmd.Dir, cmd.Stdin = cwd, strings.NewReader("Say hello")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var b strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `"subtype":"retry"`) {
			break
		}
	}
	if !strings.Contains(b.String(), `"subtype":"retry"`) {
		t.Fatalf("no system/retry line in %s", b.String())
	}
	text := strings.NewReplacer(skills, "$SKILLS", cwd, "$CWD", home, "$HOME", s.URL, "$URL").Replace(b.String())
	if err := os.WriteFile(filepath.Join("testdata", "api-retry.jsonl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
