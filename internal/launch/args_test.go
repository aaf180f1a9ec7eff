package launch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Rule 1: a session id must have the agent's form, checked by Prepare
// before anything else happens.
func TestRuleSessionID(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "agent", Command: "agent", Env: []string{"PATH=" + dir}, SessionIDs: UUIDs()}
	tests := []struct {
		name string
		p    Program
		id   string
		ok   bool
	}{
		{"a UUID", p, "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", true},
		{"a UUID in capitals", p, "5B0A7C36-8A63-4F3E-9B0E-2F43D1C2A9E1", true},
		{"an option", p, `--settings={"apiKeyHelper":"touch pwned; echo k"}`, false},
		{"an option with a UUID's length", p, "--debug-file=/tmp/x-aaaaaaaaaaaaaaaa", false},
		{"a title", p, "my session", false},
		{"a UUID with a line break", p, "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e\n", false},
		{"a program without a form", Program{Name: "agent", Command: "agent", Env: p.Env}, "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Prepare(t.Context(), &driver.Request{Resume: tt.id}, tt.p)
			if tt.ok {
				if err != nil {
					t.Errorf("Prepare(resume %q) = %v, want nil", tt.id, err)
				}
				return
			}
			if !errors.Is(err, driver.ErrInvalidSessionID) || !errors.Is(err, driver.ErrResumeRejected) {
				t.Fatalf("Prepare(resume %q) = %v, want ErrInvalidSessionID and ErrResumeRejected", tt.id, err)
			}
			if tt.p.SessionIDs.Valid != nil && !strings.Contains(err.Error(), "a UUID such as") {
				t.Errorf("Prepare(resume %q) = %v, want it to say what a valid id looks like", tt.id, err)
			}
		})
	}
	// The id is checked before the program is looked for.
	missing := p
	missing.Command = "nothing-by-this-name"
	if _, err := Prepare(t.Context(), &driver.Request{Resume: "-x"}, missing); !errors.Is(err, driver.ErrInvalidSessionID) {
		t.Errorf("Prepare of a missing program with a bad id = %v, want ErrInvalidSessionID", err)
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0f3c2a1e-9b7d-4c1a-8e2f-1234567890AB": true,
		"01a2323e-27cb-7be0-9bcd-77e535f247d2": true, // Codex's, a version 7
		"0f3c2a1e-9b7d-4c1a-8e2f-1234567890ag": false,
		"0f3c2a1e99b7d-4c1a-8e2f-1234567890ab": false,
		"0f3c2a1e-9b7d-4c1a-8e2f":              false,
		"-f3c2a1e-9b7d-4c1a-8e2f-1234567890ab": false,
		"":                                     false,
	} {
		if got := IsUUID(s); got != want {
			t.Errorf("IsUUID(%q) = %v, want %v", s, got, want)
		}
	}
}

// Rule 2: a value goes with its option in one argument, whatever it
// starts with; an empty one adds nothing.
func TestRuleValueJoined(t *testing.T) {
	got, err := NewArgs().Value("--model", "--settings={}").Value("--empty", "").Int("--max-turns", 3).
		Each("--add-dir", []string{"-a", "b c"}).Value("--x", "k=v").List()
	want := []string{"--model=--settings={}", "--max-turns=3", "--add-dir=-a", "--add-dir=b c", "--x=k=v"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("List = %q, %v; want %q", got, err, want)
	}
	// Only a long option takes a value.
	if _, err := NewArgs().Value("-m", "x").List(); !errors.Is(err, ErrUnsafeArg) {
		t.Errorf("a short option with a value = %v, want ErrUnsafeArg", err)
	}
}

// Rule 3: operands follow one "--", and no option follows them.
func TestRuleOperands(t *testing.T) {
	got, err := NewArgs("exec").Flag("--json").Command("resume").Operands("--last").Operands("-").List()
	want := []string{"exec", "--json", "resume", "--", "--last", "-"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("List = %q, %v; want %q", got, err, want)
	}
	for name, a := range map[string]*Args{
		"a flag after":       NewArgs().Operands("x").Flag("--json"),
		"a value after":      NewArgs().Operands("x").Value("--model", "m"),
		"a subcommand after": NewArgs().Operands("x").Command("resume"),
		"extra after":        NewArgs().Operands("x").Extra([]string{"--y"}),
		"an empty operand":   NewArgs().Operands(""),
	} {
		if _, err := a.List(); !errors.Is(err, ErrUnsafeArg) {
			t.Errorf("%s: List = %v, want ErrUnsafeArg", name, err)
		}
	}
}

// Rule 4: option and subcommand names are checked for their form.
func TestRuleNames(t *testing.T) {
	for name, a := range map[string]*Args{
		"a flag without dashes":     NewArgs().Flag("json"),
		"a flag with a value":       NewArgs().Flag("--model=x"),
		"a value's name with =":     NewArgs().Value("--model=", "x"),
		"a value's name with space": NewArgs().Value("--mo del", "x"),
		"a subcommand like an flag": NewArgs("--exec"),
		"an empty subcommand":       NewArgs().Command(""),
	} {
		if _, err := a.List(); !errors.Is(err, ErrUnsafeArg) {
			t.Errorf("%s: List = %v, want ErrUnsafeArg", name, err)
		}
	}
	// The first error is kept; nothing is added after it.
	a := NewArgs().Flag("bad").Value("--model", "\x00").Flag("--json")
	if _, err := a.List(); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("List = %v, want the first error", err)
	}
}

// Rule 5: a NUL byte is refused in values and operands.
func TestRuleNUL(t *testing.T) {
	for name, a := range map[string]*Args{
		"value":   NewArgs().Value("--model", "a\x00b"),
		"each":    NewArgs().Each("--add-dir", []string{"ok", "a\x00"}),
		"operand": NewArgs().Operands("a\x00b"),
	} {
		if _, err := a.List(); !errors.Is(err, ErrUnsafeArg) || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%s: List = %v, want ErrUnsafeArg naming the NUL byte", name, err)
		}
	}
}

// Rule 6: a Config's extra arguments pass as they are.
func TestRuleExtra(t *testing.T) {
	extra := []string{"--disable-slash-commands", "--add-dir", "x y"}
	got, err := NewArgs().Flag("-p").Extra(extra).Value("--add-dir", "/m").List()
	want := []string{"-p", "--disable-slash-commands", "--add-dir", "x y", "--add-dir=/m"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("List = %q, %v; want %q", got, err, want)
	}
}

// Rule 7: on Windows, what cmd.exe reads as syntax is refused for a
// batch file, and only for one.
func TestRuleBatchFile(t *testing.T) {
	tests := []struct {
		goos, path string
		args       []string
		ok         bool
	}{
		{"windows", `C:\npm\claude.cmd`, []string{"--model=sonnet", "--add-dir=C:\\Users\\me\\cache"}, true},
		{"windows", `C:\npm\claude.cmd`, []string{`--model=x"&calc&"`}, false},
		{"windows", `C:\npm\codex.CMD`, []string{"--config=a=%PATH%"}, false},
		{"windows", `C:\npm\run.bat`, []string{"--append-system-prompt=a\r\nb"}, false},
		{"windows", `C:\npm\claude.bat`, []string{"--model=a|b"}, false},
		{"windows", `C:\bin\claude.exe`, []string{`--model=x"&calc&"`}, true},
		{"linux", "/bin/claude.cmd", []string{`--model=x"&calc&"`}, true},
		{"darwin", "/bin/claude.bat", []string{"--model=%x%"}, true},
	}
	for _, tt := range tests {
		err := checkBatch(tt.goos, tt.path, tt.args)
		if tt.ok != (err == nil) || (err != nil && (!errors.Is(err, ErrUnsafeArg) || !strings.Contains(err.Error(), "Command"))) {
			t.Errorf("checkBatch(%s, %s, %q) = %v, want ok %v", tt.goos, tt.path, tt.args, err, tt.ok)
		}
	}
	// Launch.Args applies the check of this system and names the driver.
	l := &Launch{Path: "/bin/agent", name: "agent"}
	if args, err := l.Args(NewArgs().Value("--model", "a&b")); err != nil || !slices.Equal(args, []string{"--model=a&b"}) {
		t.Errorf("Launch.Args = %q, %v; want the value as it is for a program that is no batch file", args, err)
	}
	if _, err := l.Args(NewArgs().Flag("bad")); err == nil || !strings.HasPrefix(err.Error(), "agent: ") {
		t.Errorf("Launch.Args of a bad line = %v, want an error naming the driver", err)
	}
}
