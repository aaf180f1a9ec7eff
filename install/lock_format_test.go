package install

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// knownLock is the lock file that installing the greet skill below from
// skills/greet for Claude Code and Codex writes, byte for byte: two-space
// indent, keys in order, a final newline. Its digest is the content
// digest of internal/cache's and skill's known-answer tests, computed from
// the documented encoding by a separate implementation. A change of
// anything here breaks every committed lock file: it needs a new lock
// version (or a new digest encoding version), never just a new value.
const knownLock = `{
  "version": 1,
  "skills": {
    "greet": {
      "source": "skills/greet",
      "digest": "5eeeda55a61d2e8d6cb029901a6b4d62157395db1f13105ec80d03c497ce10cb",
      "agents": {
        "claude-code": {
          "kind": "link",
          "path": ".claude/skills/greet"
        },
        "codex": {
          "kind": "canonical",
          "path": ".agents/skills/greet"
        }
      }
    }
  }
}
`

func TestLockFileKnownAnswer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the tree has an executable file, and Windows keeps no executable bits")
	}
	base := t.TempDir()
	env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "project"), Getenv: func(string) string { return "" }}
	src := filepath.Join(env.Project, "skills", "greet")
	for p, content := range map[string]string{
		"SKILL.md":         "---\nname: greet\ndescription: Says hello.\n---\nSay hello.\n",
		"scripts/hello.sh": "#!/bin/sh\necho hello\n",
	} {
		full := filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(src, "scripts", "hello.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(env.Home, 0o755)
	var agents []Agent
	for _, id := range []string{"codex", "claude-code"} {
		a, ok := LookupAgent(id)
		if !ok {
			t.Fatalf("LookupAgent(%q) found nothing", id)
		}
		agents = append(agents, a)
	}
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache")))
	in := New(env, WithCache(c))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agents}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(env.Project, ".agents", lockName)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != knownLock {
		t.Errorf("lock file after Add =\n%s\nwant\n%s", got, knownLock)
	}
}

// A lock file is read and written back unchanged, byte for byte.
func TestLockFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.lock")
	if err := os.WriteFile(in, []byte(knownLock), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := readLock(in)
	if err != nil {
		t.Fatalf("readLock(%q) = %v", knownLock, err)
	}
	out := filepath.Join(dir, "out.lock")
	if err := l.write(out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != knownLock {
		t.Errorf("lock file read and written again =\n%s\nwant\n%s", got, knownLock)
	}
}
