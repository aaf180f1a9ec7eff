package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// SkillRef is sealed: its only method is unexported, so no type outside
// this package can implement it.
func TestSkillRefIsSealed(t *testing.T) {
	ref := reflect.TypeFor[SkillRef]()
	if ref.NumMethod() != 1 {
		t.Fatalf("SkillRef has %d methods, want 1", ref.NumMethod())
	}
	if m := ref.Method(0); m.IsExported() {
		t.Errorf("SkillRef's method %s is exported: other packages could implement it", m.Name)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Skill](), reflect.TypeFor[SkillKey]()} {
		if !typ.Implements(ref) {
			t.Errorf("%v does not implement SkillRef", typ)
		}
	}
}

// The metadata keys are fixed: code outside the module stores them.
func TestMetadataKeys(t *testing.T) {
	if SkillMetadataRuntimeName != "_runtime_name" || SkillMetadataDisplayName != "_display_name" {
		t.Errorf("metadata keys = %q, %q; they are part of the contract", SkillMetadataRuntimeName, SkillMetadataDisplayName)
	}
}

func TestErrors(t *testing.T) {
	cancelled := &ProcessError{Command: "claude", ExitCode: 0, Stderr: "bye\n", Err: fmt.Errorf("run claude: %w", context.Canceled)}
	tests := []struct {
		err      error
		is, isnt []error
		says     []string
	}{
		{&ProcessError{Command: "claude", ExitCode: 2, Stderr: "  bad flag\n"}, []error{ErrProcessFailed}, []error{ErrAgentFailed}, []string{"claude: exit status 2", "stderr: bad flag"}},
		{&ProcessError{Command: "codex", ExitCode: -1, Signal: "killed"}, []error{ErrProcessFailed}, nil, []string{"stopped by signal killed"}},
		{cancelled, []error{ErrProcessFailed, context.Canceled}, nil, []string{"claude: stopped: run claude: context canceled", "stderr: bye"}},
		{&ProcessError{Command: "x", ExitCode: -1, Err: errors.New("no such file")}, []error{ErrProcessFailed}, nil, []string{"x: no such file"}},
		{&AgentError{Subtype: "error_max_turns", Message: "too many"}, []error{ErrAgentFailed}, []error{ErrProcessFailed}, []string{"(error_max_turns): too many"}},
		{&NotMountedError{Missing: []string{"a", "b"}, Reported: []string{"c"}}, []error{ErrSkillsNotMounted}, nil, []string{"mounted skills a, b", "reports c"}},
		{&NotMountedError{Missing: []string{"a"}}, []error{ErrSkillsNotMounted}, nil, []string{"no system/init"}},
		{&ShadowError{Name: "review", Ours: "/o", Theirs: "/t"}, []error{ErrSkillShadowed}, nil, []string{`"review" in /t`, "/o"}},
		{&NestedSkillsError{Agent: "Claude Code", Workspace: "/w", Folders: []string{"/w/a/.claude/skills", "/w/b/.claude/skills"}}, []error{ErrNestedSkills}, []error{ErrSkillShadowed}, []string{"workspace /w", "Claude Code would load", "/w/a/.claude/skills, /w/b/.claude/skills", "move or rename them"}},
	}
	for _, tt := range tests {
		msg := tt.err.Error()
		for _, target := range tt.is {
			if !errors.Is(tt.err, target) {
				t.Errorf("errors.Is(%q, %v) = false", msg, target)
			}
		}
		for _, target := range tt.isnt {
			if errors.Is(tt.err, target) {
				t.Errorf("errors.Is(%q, %v) = true", msg, target)
			}
		}
		for _, s := range tt.says {
			if !strings.Contains(msg, s) {
				t.Errorf("%T.Error() = %q, want it to hold %q", tt.err, msg, s)
			}
		}
	}
}

// Every event kind is distinct, and every event marshals to JSON without
// its raw line.
func TestEvents(t *testing.T) {
	cost := 1.5
	events := []Event{
		&InitEvent{SessionID: "s", Skills: []string{"a"}, Raw: json.RawMessage(`{"x":1}`)},
		&TextEvent{Text: "t"}, &TextDeltaEvent{Text: "d"}, &ThinkingEvent{Text: "h"},
		&ToolCallEvent{Name: "Skill", Input: json.RawMessage(`{"skill":"a"}`)},
		&ToolResultEvent{Content: "c"},
		&ResultEvent{Text: "r", Usage: &Usage{InputTokens: 1}, CostUSD: &cost},
		&ErrorEvent{Message: "e"}, &RawEvent{Type: "odd", Raw: json.RawMessage(`{"type":"odd"}`)},
	}
	seen := map[string]bool{}
	for _, ev := range events {
		if seen[ev.Kind()] {
			t.Errorf("kind %q used twice", ev.Kind())
		}
		seen[ev.Kind()] = true
		b, err := json.Marshal(ev)
		if err != nil {
			t.Errorf("%T: %v", ev, err)
		}
		if _, isRaw := ev.(*RawEvent); !isRaw && strings.Contains(string(b), `"x":1`) {
			t.Errorf("%T marshals its raw line: %s", ev, b)
		}
	}
}
