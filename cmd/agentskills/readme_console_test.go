package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cursortest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestREADMEConsole runs every console example (each ```console block)
// of the README and of the guides (every .md file under docs/), file by
// file and in order, and compares what each command prints with what the
// file shows under it.
//
// Each file gets a scratch project of its own: a new folder holding a
// copy of the checkout's examples folder, as examples/; every block of
// the file starts in it (a "$ cd DIR" line moves the rest of its block),
// and the files a block leaves are there for the next one of the same
// file. So a file's examples depend on nothing another file shows. Each "$ " line is run by sh -c with the
// agentskills this test binary is (TestMain puts it on PATH as
// agentskills), in a home folder of its own, with nothing detected. A
// block that runs an agent (agentskills run --agent ID) gets that
// agent's pinned CLI on PATH and a stand-in model API (package
// modeltest) that answers every prompt; without the CLI the block is
// skipped, or fails with AGENTADAPTOR_REQUIRE_CLIS=1.
//
// The lines under a command are what it prints, stdout and stderr as one
// terminal shows them, compared line by line; what must vary is written
// with these placeholders:
//
//  1. A line "..." stands for any number of lines (none too).
//  2. "..." inside a line stands for any text.
//  3. "<name>" (lower-case letters and dashes) stands for one word without
//     spaces or quotes, such as a session id; the first value it matched
//     replaces "<name>" in the commands after it.
//  4. Two or more spaces, then "# " and a comment, end a line: the
//     comment is not compared.
//  5. A last line "[exit N]" says the command exits with status N; by
//     default it must exit 0.
//
// A block that cannot run here says why on the line before it, as
// "<!-- not run: REASON -->", and is left out. On a difference the test
// prints the command, the lines the file shows and what the command
// printed, to paste into the file when the change is right.
//
// The examples are POSIX shell: on Windows the test is skipped.
func TestREADMEConsole(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the docs' console examples are POSIX shell commands")
	}
	if _, err := exec.LookPath("agentskills"); err != nil {
		t.Fatalf("agentskills is not on PATH (TestMain puts this test binary there): %v", err)
	}
	files, err := docFiles(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := consoleBlocks(file, string(text))
		if err != nil {
			t.Fatal(err)
		}
		if file == "README.md" && len(blocks) == 0 {
			t.Fatal("README.md has no console block")
		}
		if len(blocks) > 0 {
			t.Run(path.Base(file), func(t *testing.T) { runConsoleBlocks(t, blocks) })
		}
	}
}

// docFiles returns the markdown files of the documentation under the
// module root: README.md, then every .md file under docs/, in lexical
// order, as slash-separated paths relative to the root.
func docFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	return files, err
}

// runConsoleBlocks runs the console blocks of one file in a scratch
// project of their own.
func runConsoleBlocks(t *testing.T, blocks []consoleBlock) {
	project := t.TempDir()
	if err := os.CopyFS(filepath.Join(project, "examples"), os.DirFS(filepath.Join("..", "..", "examples"))); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Cleanup(func() { cachetest.Writable(home) }) // the skill cache is in it
	base := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"AGENT_ADAPTOR_SKILL_CACHE_ROOT=" + filepath.Join(home, ".cache", "skills"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"GORACE=atexit_sleep_ms=0", // a race-enabled binary otherwise sleeps a second as it exits
		"LANG=C",
	}
	vars := map[string]string{}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line_%d", b.line), func(t *testing.T) {
			if b.notRun != "" {
				t.Skipf("%s:%d: not run: %s", b.file, b.line, b.notRun)
			}
			env := base
			if agent := b.agent(); agent != "" {
				env = append(agentEnv(t, agent), "GORACE=atexit_sleep_ms=0", "LANG=C")
			}
			dir := project
			for _, c := range b.cmds {
				if !c.run(t, env, &dir, vars) {
					return // the commands after it depend on it
				}
			}
		})
	}
}

// consoleBlock is one ```console block of a markdown file.
type consoleBlock struct {
	file   string // the file, relative to the module root
	line   int    // of the opening fence
	notRun string // the reason given in a "not run" comment before it
	cmds   []consoleCmd
}

// consoleCmd is one "$ " line of a block and the lines under it.
type consoleCmd struct {
	file string
	line int
	text string
	want []string
}

var (
	notRunComment = regexp.MustCompile(`^<!-- not run: (.*\S) -->$`)
	agentFlag     = regexp.MustCompile(`\bagentskills run\b.*--agent[ =]([a-z-]+)`)
)

// consoleBlocks returns the console blocks of the text of file.
func consoleBlocks(file, text string) ([]consoleBlock, error) {
	var blocks []consoleBlock
	var cur *consoleBlock
	prev := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```console":
			cur = &consoleBlock{file: file, line: n}
			if m := notRunComment.FindStringSubmatch(prev); m != nil {
				cur.notRun = m[1]
			} else if strings.HasPrefix(prev, "<!-- not run") {
				return nil, fmt.Errorf("%s:%d: %q: write <!-- not run: REASON -->", file, n-1, prev)
			}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && strings.HasPrefix(line, "$ "):
			cur.cmds = append(cur.cmds, consoleCmd{file: file, line: n, text: strings.TrimPrefix(line, "$ ")})
		case cur != nil && len(cur.cmds) == 0:
			return nil, fmt.Errorf("%s:%d: a console block starts with a \"$ \" line, not %q", file, n, line)
		case cur != nil:
			c := &cur.cmds[len(cur.cmds)-1]
			c.want = append(c.want, line)
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the console block is not closed", file, cur.line)
	}
	return blocks, nil
}

// agent returns the agent the block runs, or "".
func (b consoleBlock) agent() string {
	for _, c := range b.cmds {
		if m := agentFlag.FindStringSubmatch(c.text); m != nil {
			return m[1]
		}
	}
	return ""
}

// agentEnv is the environment of a block that runs agent: its pinned CLI
// on PATH and a stand-in model API that answers every prompt, in a home
// folder of its own.
func agentEnv(t *testing.T, agent string) []string {
	t.Helper()
	const answer = "An answer from the stand-in model."
	var cli string
	var env []string
	var home string
	switch agent {
	case "claude-code":
		cli = modeltest.ClaudeCLI(t)
		env, home = modeltest.NewAnthropic(t, modeltest.Always(modeltest.Text(answer))).ClaudeEnv(t)
	case "codex":
		cli = modeltest.CodexCLI(t)
		env, home, _ = modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesText(answer))).CodexEnv(t)
	case "gemini-cli":
		cli = modeltest.GeminiCLI(t)
		env, home = modeltest.NewGemini(t, modeltest.GeminiAlways(modeltest.GeminiText(answer))).GeminiEnv(t)
	case "qwen-code":
		cli = modeltest.QwenCLI(t)
		env, home = modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText(answer))).QwenEnv(t)
	case "cursor":
		bin := cursortest.Build(t)
		cli = filepath.Join(bin, "agent")
		env, home = cursortest.Env(t, bin, modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText(answer))))
	case "github-copilot":
		cli = modeltest.CopilotCLI(t)
		env, home = modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText(answer))).CopilotEnv(t)
	default:
		t.Fatalf("the docs run agent %q, which this test has no stand-in for", agent)
	}
	t.Cleanup(func() { cachetest.Writable(home) })
	return append(env,
		"PATH="+filepath.Dir(cli)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENT_ADAPTOR_SKILL_CACHE_ROOT="+filepath.Join(home, ".cache", "skills"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
	)
}

var placeholder = regexp.MustCompile(`<[a-z][a-z-]*>`)

// run runs the command in *dir (a cd moves *dir), compares its output
// with c.want, and reports whether it ran as the file says.
func (c consoleCmd) run(t *testing.T, env []string, dir *string, vars map[string]string) bool {
	t.Helper()
	text := c.text
	var unset []string
	text = placeholder.ReplaceAllStringFunc(text, func(p string) string {
		v, ok := vars[p]
		if !ok {
			unset = append(unset, p)
		}
		return v
	})
	if len(unset) > 0 {
		t.Errorf("%s:%d: $ %s: %s matched nothing before", c.file, c.line, c.text, strings.Join(unset, ", "))
		return false
	}
	if d, ok := strings.CutPrefix(text, "cd "); ok {
		*dir = filepath.Join(*dir, strings.TrimSpace(d))
		if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
			t.Errorf("%s:%d: $ %s: no such folder", c.file, c.line, c.text)
			return false
		}
		if len(c.want) > 0 {
			t.Errorf("%s:%d: $ %s prints nothing, but the file shows %q", c.file, c.line, c.text, c.want)
			return false
		}
		return true
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", text)
	cmd.Dir, cmd.Env = *dir, env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe: the order a terminal shows
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Errorf("%s:%d: $ %s: %v", c.file, c.line, c.text, err)
			return false
		}
		code = exit.ExitCode()
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if out.Len() == 0 {
		got = nil
	}
	want, wantCode := expected(c.want)
	caught, ok := matchLines(want, got)
	if !ok || code != wantCode {
		shown := got
		if code != 0 {
			shown = append(shown, "[exit "+strconv.Itoa(code)+"]")
		}
		t.Errorf("%s:%d: $ %s\n--- the file shows:\n%s\n--- the command printed:\n%s\n---", c.file, c.line, c.text, strings.Join(c.want, "\n"), strings.Join(shown, "\n"))
		return false
	}
	for k, v := range caught {
		if _, ok := vars[k]; !ok {
			vars[k] = v
		}
	}
	return true
}

var comment = regexp.MustCompile(`\s{2,}# .*$`)

// expected returns the lines to compare, without comments (rule 4), and
// the exit status (rule 5).
func expected(lines []string) ([]string, int) {
	var out []string
	for _, l := range lines {
		out = append(out, strings.TrimRight(comment.ReplaceAllString(l, ""), " "))
	}
	if n := len(out); n > 0 {
		var code int
		if _, err := fmt.Sscanf(out[n-1], "[exit %d]", &code); err == nil {
			return out[:n-1], code
		}
	}
	return out, 0
}

// matchLines matches got against the file's lines (rules 1 to 3) and
// returns what the placeholders matched.
func matchLines(want, got []string) (map[string]string, bool) {
	if len(want) == 0 {
		return map[string]string{}, len(got) == 0
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if m, ok := matchLines(want[1:], got[i:]); ok {
				return m, true
			}
		}
		return nil, false
	}
	if len(got) == 0 {
		return nil, false
	}
	caught, ok := matchLine(want[0], got[0])
	if !ok {
		return nil, false
	}
	rest, ok := matchLines(want[1:], got[1:])
	if !ok {
		return nil, false
	}
	for k, v := range caught {
		if _, ok := rest[k]; !ok {
			rest[k] = v
		}
	}
	return rest, true
}

// matchLine matches one line (rules 2 and 3).
func matchLine(want, got string) (map[string]string, bool) {
	if !strings.Contains(want, "...") && !placeholder.MatchString(want) {
		return nil, want == got
	}
	var re strings.Builder
	var names []string
	re.WriteString("^")
	for i, part := range strings.Split(want, "...") {
		if i > 0 {
			re.WriteString(".*?")
		}
		last := 0
		for _, loc := range placeholder.FindAllStringIndex(part, -1) {
			re.WriteString(regexp.QuoteMeta(part[last:loc[0]]))
			re.WriteString(`([^\s"]+)`)
			names = append(names, part[loc[0]:loc[1]])
			last = loc[1]
		}
		re.WriteString(regexp.QuoteMeta(part[last:]))
	}
	re.WriteString("$")
	m := regexp.MustCompile(re.String()).FindStringSubmatch(got)
	if m == nil {
		return nil, false
	}
	caught := map[string]string{}
	for i, name := range names {
		if _, ok := caught[name]; !ok {
			caught[name] = m[i+1]
		} else if caught[name] != m[i+1] {
			return nil, false // one placeholder, two values
		}
	}
	return caught, true
}

// TestConsoleMatch checks the placeholder rules of TestREADMEConsole,
// and that a line that drifts fails.
func TestConsoleMatch(t *testing.T) {
	tests := []struct {
		name   string
		want   []string
		got    []string
		ok     bool
		code   int
		caught map[string]string
	}{
		{name: "equal", want: []string{"a", "b"}, got: []string{"a", "b"}, ok: true},
		{name: "one line drifts", want: []string{"a", "b"}, got: []string{"a", "c"}},
		{name: "a line more", want: []string{"a"}, got: []string{"a", "b"}},
		{name: "a line less", want: []string{"a", "b"}, got: []string{"a"}},
		{name: "rule 1: any lines", want: []string{"a", "...", "z"}, got: []string{"a", "b", "c", "z"}, ok: true},
		{name: "rule 1: no line", want: []string{"a", "...", "z"}, got: []string{"a", "z"}, ok: true},
		{name: "rule 1: the rest must match", want: []string{"a", "...", "z"}, got: []string{"a", "b"}},
		{name: "rule 2: any text", want: []string{`{"x":...,"y":2}`}, got: []string{`{"x":[1,2],"y":2}`}, ok: true},
		{name: "rule 2: the rest must match", want: []string{`{"x":...,"y":2}`}, got: []string{`{"x":1,"y":3}`}},
		{name: "rule 3: a word", want: []string{`"id":"<session>"`, `again <session>`}, got: []string{`"id":"8c0e-11"`, `again 8c0e-11`}, ok: true,
			caught: map[string]string{"<session>": "8c0e-11"}},
		{name: "rule 3: one value", want: []string{`<session> <session>`}, got: []string{`a b`}},
		{name: "rule 3: no spaces", want: []string{`id <session>`}, got: []string{`id a b`}},
		{name: "rule 4: comments", want: []string{"...   # any answer", "done  # the end"}, got: []string{"x", "done"}, ok: true},
		{name: "rule 5: exit status", want: []string{"bad", "[exit 1]"}, got: []string{"bad"}, ok: true, code: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, code := expected(tt.want)
			caught, ok := matchLines(want, tt.got)
			if ok != tt.ok || code != tt.code {
				t.Fatalf("matchLines(%q, %q) = %v (exit %d), want %v (exit %d)", tt.want, tt.got, ok, code, tt.ok, tt.code)
			}
			for k, v := range tt.caught {
				if caught[k] != v {
					t.Errorf("matchLines(%q, %q) caught %s = %q, want %q", tt.want, tt.got, k, caught[k], v)
				}
			}
		})
	}
	blocks, err := consoleBlocks("x.md", "text\n<!-- not run: needs GitHub -->\n```console\n$ agentskills add o/r\nout\n```\n\n```console\n$ cd x\n$ agentskills run --agent codex hi\n```\n")
	if err != nil || len(blocks) != 2 || blocks[0].notRun != "needs GitHub" || blocks[0].cmds[0].want[0] != "out" || blocks[1].notRun != "" || blocks[1].agent() != "codex" {
		t.Errorf("consoleBlocks = %+v, %v", blocks, err)
	}
	for _, bad := range []string{"```console\nout\n```\n", "```console\n$ a\n", "<!-- not run -->\n```console\n$ a\n```\n"} {
		if _, err := consoleBlocks("x.md", bad); err == nil {
			t.Errorf("consoleBlocks(%q) = nil error", bad)
		}
	}
}
