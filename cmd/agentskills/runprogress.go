package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
)

// What `run` says while an agent runs, on stderr, for a person (all of it
// through the escaping text writer):
//
//  1. When the agent starts: its name and version (when it reports one),
//     the session id, the skills it reports (the first maxShownSkills of
//     them), and the command line that resumes the session.
//  2. Each retry of a failed model API call that the agent reports, with
//     the HTTP status, the error, the attempt and the wait. Claude Code,
//     Codex and Qwen Code report retries in their output; Gemini CLI only
//     on its standard error, which its driver reads as it comes.
//  3. Each error the agent reports without ending the run.
//  4. Each tool call, one line: the tool's name and a one-line summary of
//     its input of at most maxSummary characters.
//
// Nothing of it is printed with --json (the events are on stdout) or
// --quiet. Either way, a run that the agent ended with an error says
// what failed in a CLI user's words (agentFailure), and a run stopped by
// Ctrl-C or --run-timeout after the agent reported its session prints the
// session id and the command line that resumes it. All of this is the
// same on Linux, macOS and Windows (Ctrl-C is os.Interrupt on each); the
// resume command line is quoted for a POSIX shell.

// maxShownSkills is how many of the skills the agent reports the start
// line names.
const maxShownSkills = 8

// maxSummary is the length, in characters, of a tool call's summary.
const maxSummary = 80

// runProgress follows a run's events: it prints them as the rules above
// say, when show is set, and remembers the session and the retries for
// the end of the run. It is safe for concurrent use.
type runProgress struct {
	w       io.Writer // stderr, escaped
	show    bool
	opts    *runOptions
	mu      sync.Mutex
	session string
	retries int
	status  int // the HTTP status of the last retry, 0 when unknown
}

func newRunProgress(opts *runOptions) *runProgress {
	return &runProgress{w: opts.io.err, show: !opts.json && !opts.quiet, opts: opts}
}

// event takes one event of the run.
func (p *runProgress) event(ev driver.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *driver.InitEvent:
		if p.session != "" || e.SessionID == "" {
			return
		}
		p.session = e.SessionID
		p.printf("%s started, session %s%s", p.agentName(e.Version), e.SessionID, skillsNote(e.Skills))
		p.printf("to continue the session: %s", p.resumeCommand())
	case *driver.RetryEvent:
		p.retries++
		if e.Status != 0 {
			p.status = e.Status
		}
		p.printf("%s", retryLine(p.opts.agent, e))
	case *driver.ErrorEvent:
		p.printf("%s reports: %s", p.opts.agent, oneLine(e.Message, 0))
	case *driver.ToolCallEvent:
		if s := toolSummary(e.Input); s != "" {
			p.printf("tool %s: %s", oneLine(e.Name, maxSummary), s)
		} else {
			p.printf("tool %s", oneLine(e.Name, maxSummary))
		}
	}
}

// printf prints one progress line, when progress is shown.
func (p *runProgress) printf(format string, args ...any) {
	if p.show {
		fmt.Fprintf(p.w, "agentskills run: "+format+"\n", args...)
	}
}

// agentName is the agent's install id and, when known, version.
func (p *runProgress) agentName(version string) string {
	if version == "" {
		return p.opts.agent
	}
	return p.opts.agent + " " + oneLine(version, 40)
}

// skillsNote names the skills an agent reports.
func skillsNote(skills []string) string {
	if len(skills) == 0 {
		return ""
	}
	shown := skills[:min(len(skills), maxShownSkills)]
	names := make([]string, len(shown))
	for i, s := range shown {
		names[i] = oneLine(s, 64)
	}
	note := "; skills: " + strings.Join(names, ", ")
	if more := len(skills) - len(shown); more > 0 {
		note += fmt.Sprintf(" and %d more", more)
	}
	return note
}

// retryLine describes a retry.
func retryLine(agent string, e *driver.RetryEvent) string {
	var b strings.Builder
	b.WriteString(agent + ": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "the model API answered %d", e.Status)
	} else {
		b.WriteString("the model API call failed")
	}
	if e.Message != "" {
		fmt.Fprintf(&b, " (%s)", oneLine(e.Message, 200))
	}
	b.WriteString("; retry")
	if e.Attempt > 0 {
		fmt.Fprintf(&b, " %d", e.Attempt)
		if e.MaxRetries > 0 {
			fmt.Fprintf(&b, " of %d", e.MaxRetries)
		}
	}
	if e.DelayMS > 0 {
		fmt.Fprintf(&b, " in %s", (time.Duration(e.DelayMS) * time.Millisecond).Round(100*time.Millisecond))
	}
	return b.String()
}

// summaryKeys are the input fields that say best what a tool call does,
// in order of preference.
var summaryKeys = []string{"command", "cmd", "file_path", "path", "pattern", "query", "url", "skill", "name", "description", "prompt"}

// toolSummary is a one-line summary of a tool call's input: the first of
// summaryKeys it has, else the input as compact JSON; "" for no input.
func toolSummary(input json.RawMessage) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) == nil {
		for _, k := range summaryKeys {
			var s string
			if json.Unmarshal(fields[k], &s) == nil && s != "" {
				return oneLine(s, maxSummary)
			}
		}
		if len(fields) == 0 {
			return ""
		}
	}
	return oneLine(string(input), maxSummary)
}

// resumeCommand is the command line that continues the session with the
// run's agent, skills, workspace and model, its values quoted for a
// POSIX shell.
func (p *runProgress) resumeCommand() string {
	o := p.opts
	args := []string{"agentskills", "run", "--agent", shellQuote(o.agent)}
	for _, s := range o.skills {
		args = append(args, "--skill", shellQuote(s))
	}
	if o.workspace != "" {
		args = append(args, "--workspace", shellQuote(o.workspace))
	}
	if o.model != "" {
		args = append(args, "--model", shellQuote(o.model))
	}
	return strings.Join(append(args, "--resume", shellQuote(p.session), "--", "PROMPT"), " ")
}

// shellQuote quotes s for a POSIX shell, unless it needs no quotes.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stopped prints, for a run stopped by Ctrl-C or --run-timeout, the
// session the agent reported and how to resume it. It reports whether
// there was one.
func (p *runProgress) stopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session == "" {
		return false
	}
	fmt.Fprintf(p.w, "agentskills run: the run stopped; session %s can be resumed with: %s\n", p.session, p.resumeCommand())
	return true
}

// sessionID is the session the agent reported, "" before it did.
func (p *runProgress) sessionID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.session
}

// agentFailure is a run the agent ended with an error, said for a user of
// the CLI: the agent, what it said and what that likely means, without
// the agent's own kind of result ("success" for a Claude Code run whose
// API calls all failed).
type agentFailure struct {
	agent   string
	message string
	note    string
	err     *driver.AgentError
}

func (e *agentFailure) Error() string {
	msg := e.message
	if msg == "" {
		msg = "the agent reported an error"
	}
	s := e.agent + " failed: " + msg
	if e.note != "" {
		s += " (" + e.note + ")"
	}
	return s
}

func (e *agentFailure) Unwrap() error { return e.err }

// authFailure matches what the agents say when the model API refused the
// credentials.
var authFailure = regexp.MustCompile(`(?i)\b401\b|unauthori[sz]ed|invalid api key|authentication|api key not valid`)

// authHint says where an agent takes its credentials from (its
// descriptor's Auth).
func authHint(agent string) string {
	a, _ := runnable(agent)
	return a.Auth
}

// failure says what an agent's error result means.
func (p *runProgress) failure(ae *driver.AgentError) *agentFailure {
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := oneLine(ae.Message, 0)
	var notes []string
	switch {
	case p.retries > 0 && p.status != 0:
		notes = append(notes, fmt.Sprintf("the model API answered %d after %d %s", p.status, p.retries, plural(p.retries, "retry", "retries")))
	case p.retries > 0:
		notes = append(notes, fmt.Sprintf("after %d %s", p.retries, plural(p.retries, "retry", "retries")))
	}
	if p.status == 401 || p.status == 403 || authFailure.MatchString(msg) {
		if h := authHint(p.opts.agent); h != "" {
			notes = append(notes, h)
		}
	}
	return &agentFailure{agent: p.opts.agent, message: msg, note: strings.Join(notes, "; "), err: ae}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
