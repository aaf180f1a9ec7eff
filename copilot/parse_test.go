package copilot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

const sessionID = "f7d255e0-f83b-41c2-af86-1a5389d5931b"

// parseAll parses lines and returns the parser and the events sent.
func parseAll(lines ...string) (*parser, *streamtest.Recorder) {
	var rec streamtest.Recorder
	p := &parser{emit: rec.Emit}
	for _, l := range lines {
		p.parse([]byte(l))
	}
	return p, &rec
}

// testLaunch is a launch whose agent keeps its sessions under home.
func testLaunch(home string) *launch.Launch {
	return &launch.Launch{Path: "/bin/copilot", Env: []string{"HOME=" + home, "COPILOT_HOME="}}
}

// TestRecordedStream replays the stream recorded from Copilot CLI 1.0.102
// (a skill call, then an answer): init first with the run's session, the
// tool call, its result, the skill event, the text, and the result last
// with the session and the usage of the session's events.jsonl.
func TestRecordedStream(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "skill.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec streamtest.Recorder
	p := &parser{emit: rec.Emit, session: sessionID}
	for _, l := range bytes.Split(data, []byte("\n")) {
		p.parse(l)
	}
	home := t.TempDir()
	writeEvents(t, home, sessionID, usageLine(10, 5), usageLine(10, 5))
	res, err := outcome(testLaunch(home), &driver.Request{}, p, process.Exit{}, nil)
	if err != nil || res.Text != "done" || res.SessionID != sessionID {
		t.Fatalf("outcome = %+v, %v; want done in session %s", res, err, sessionID)
	}
	if want := (&driver.Usage{InputTokens: 20, OutputTokens: 10, CacheReadInputTokens: 2}); !cmp.Equal(res.Usage, want) {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	kinds := streamtest.Kinds(rec.Events())
	if kinds[0] != driver.KindInit || kinds[len(kinds)-1] != driver.KindResult {
		t.Errorf("kinds = %q, want init first and the result last", kinds)
	}
	if init, ok := rec.Events()[0].(*driver.InitEvent); !ok || init.SessionID != sessionID {
		t.Errorf("first event = %+v, want the init of session %s", rec.Events()[0], sessionID)
	}
	streamtest.CheckStreamEvents(t, rec.Events(), []string{driver.KindToolCall, driver.KindToolResult, driver.KindSkill, driver.KindText, driver.KindTextDelta}, func(*driver.ErrorEvent) bool { return true })
	want := []driver.SkillEvent{{Name: "greet", ToolCallID: "call_d36224fa"}}
	if got := streamtest.Skills(rec.Events()); !cmp.Equal(got, want, cmpIgnoreRaw) {
		t.Errorf("skill events = %+v, want %+v", got, want)
	}
}

var cmpIgnoreRaw = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Raw" }, cmp.Ignore())

// TestSkillEvents checks when a call of the skill tool is a skill event:
// once its result succeeded.
func TestSkillEvents(t *testing.T) {
	call := `{"type":"assistant.message","data":{"content":"","toolRequests":[{"toolCallId":"c1","name":"skill","arguments":{"skill":"review"}}]}}`
	other := `{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":"c1","name":"view","arguments":{"skill":"review"}}]}}`
	ok := `{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"Skill \"review\" loaded successfully."}}}`
	failed := `{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,"error":{"message":"Skill \"review\" not found"}}}`
	tests := []struct {
		name  string
		lines []string
		want  []driver.SkillEvent
	}{
		{"loaded", []string{call, ok}, []driver.SkillEvent{{Name: "review", ToolCallID: "c1"}}},
		{"loaded twice reports once", []string{call, ok, ok}, []driver.SkillEvent{{Name: "review", ToolCallID: "c1"}}},
		{"not found", []string{call, failed}, nil},
		{"another tool", []string{other, ok}, nil},
		{"result without a call", []string{ok}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rec := parseAll(tt.lines...)
			if got := streamtest.Skills(rec.Events()); !cmp.Equal(got, tt.want, cmpIgnoreRaw) {
				t.Errorf("skill events of %s = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
}

// TestOutcome checks how the end of a run maps to its result or error
// (rule 3 of "Checks").
func TestOutcome(t *testing.T) {
	failed := []string{
		`{"type":"session.error","data":{"errorType":"x","message":"MARK-REFUSED","statusCode":400}}`,
		`{"type":"result","sessionId":"` + sessionID + `","exitCode":1}`,
	}
	done := []string{`{"type":"assistant.message","data":{"content":"ok"}}`, `{"type":"result","sessionId":"` + sessionID + `","exitCode":0}`}
	tests := []struct {
		name   string
		resume string
		lines  []string
		exit   process.Exit
		check  func(*driver.Result, error) bool
	}{
		{"unknown session", sessionID, nil, process.Exit{Code: 1, Stderr: "Error: No session, task, or name matched '" + sessionID + "'"}, func(_ *driver.Result, err error) bool {
			return errors.Is(err, driver.ErrResumeRejected) && errors.Is(err, driver.ErrProcessFailed)
		}},
		{"failure, no resume", "", nil, process.Exit{Code: 1, Stderr: "error: Invalid command format"}, func(_ *driver.Result, err error) bool {
			return errors.Is(err, driver.ErrProcessFailed) && !errors.Is(err, driver.ErrResumeRejected)
		}},
		{"model error", "", failed, process.Exit{Code: 1}, func(_ *driver.Result, err error) bool {
			var ae *driver.AgentError
			return errors.As(err, &ae) && strings.Contains(err.Error(), "MARK-REFUSED") && ae.Result.SessionID == sessionID
		}},
		{"no result", "", done[:1], process.Exit{}, func(_ *driver.Result, err error) bool { return errors.Is(err, driver.ErrNoResult) }},
		{"answer without usage recorded", "", done, process.Exit{}, func(res *driver.Result, err error) bool {
			return err == nil && res.Text == "ok" && res.Usage == nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := parseAll(tt.lines...)
			res, err := outcome(testLaunch(t.TempDir()), &driver.Request{Resume: tt.resume}, p, tt.exit, nil)
			if !tt.check(res, err) {
				t.Errorf("outcome = %+v, %v", res, err)
			}
		})
	}
}

// TestFirstResult checks rule 4 of "Checks": the first result line is
// the run's, a later one only a raw event.
func TestFirstResult(t *testing.T) {
	p, rec := parseAll(`{"type":"result","sessionId":"a","exitCode":0}`, `{"type":"result","sessionId":"b","exitCode":1}`)
	if p.result == nil || p.result.SessionID != "a" || p.result.IsError {
		t.Errorf("result = %+v, want the first line's", p.result)
	}
	if got, want := streamtest.Kinds(rec.Events()), []string{driver.KindInit, driver.KindRaw}; !cmp.Equal(got, want) {
		t.Errorf("kinds = %q, want %q", got, want)
	}
}

// TestParseOddLines checks that a line of an unexpected shape is reported
// and never stops the parser: not JSON is an error event, an unknown
// type a raw event, fields of the wrong type are left out.
func TestParseOddLines(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"not JSON", `{"type":`, []string{driver.KindError}},
		{"unknown type", `{"type":"session.tools_updated","data":{}}`, []string{driver.KindInit, driver.KindRaw}},
		{"tool requests not a list", `{"type":"assistant.message","data":{"content":"x","toolRequests":7}}`, []string{driver.KindInit, driver.KindText}},
		{"data not an object", `{"type":"tool.execution_complete","data":[1]}`, []string{driver.KindInit, driver.KindToolResult}},
		{"result kept for the driver", `{"type":"result","exitCode":"x"}`, []string{driver.KindInit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rec := parseAll(tt.line)
			if got := streamtest.Kinds(rec.Events()); !cmp.Equal(got, tt.want) {
				t.Errorf("kinds of %s = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f,
		`{"type":"result","sessionId":"`+sessionID+`","exitCode":1}`,
		`{"type":"assistant.message","data":{"toolRequests":[{"name":"skill","arguments":null}]}}`,
		`{"type":"tool.execution_complete","data":{"success":"yes"}}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &parser{emit: streamtest.NoNilEvents(t)}
		p.parse(line)
		p.parse(line)
		outcome(testLaunch(t.TempDir()), &driver.Request{Resume: "x"}, p, process.Exit{Code: 1, Stderr: string(line)}, nil)
	})
}
