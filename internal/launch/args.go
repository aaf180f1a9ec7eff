package launch

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// ErrUnsafeArg reports a value that cannot be put on an agent's command
// line without the agent reading it as something else (see "Arguments"
// in the package doc).
var ErrUnsafeArg = errors.New("value cannot be passed to the agent safely")

// Args builds an agent's command line so that no value from a request, a
// config or the user can be read as an option; the rules are under
// "Arguments" in the package doc. Its methods record the first error and
// do nothing after it; [Args.List] returns it. An Args is not safe for
// concurrent use.
type Args struct {
	args     []string
	operands bool // "--" is on the line: only operands may follow
	err      error
}

// NewArgs returns a command line that starts with the subcommands given,
// each checked as [Args.Command] checks it.
func NewArgs(commands ...string) *Args {
	a := &Args{}
	for _, c := range commands {
		a.Command(c)
	}
	return a
}

var (
	commandName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	longOption  = regexp.MustCompile(`^--[a-z0-9][a-z0-9-]*$`)
	shortOption = regexp.MustCompile(`^-[a-zA-Z]$`)
)

// Command adds a subcommand of the agent ("exec", "resume"): a word of
// the driver's own, lowercase letters, digits and dashes.
func (a *Args) Command(name string) *Args {
	if a.check("subcommand", name, commandName.MatchString(name)) {
		a.args = append(a.args, name)
	}
	return a
}

// Flag adds an option that takes no value, "--name" or "-n": a word of
// the driver's own.
func (a *Args) Flag(name string) *Args {
	if a.check("option", name, longOption.MatchString(name) || shortOption.MatchString(name)) {
		a.args = append(a.args, name)
	}
	return a
}

// Value adds the option name ("--model") with value as one argument,
// "--model=VALUE", which the agent reads as that option's value whatever
// the value starts with. An empty value adds nothing (the agent's default
// applies). name must be a long option: a short one with "=" is not read
// the same way by every CLI.
func (a *Args) Value(name, value string) *Args {
	if !a.check("option", name, longOption.MatchString(name)) || value == "" {
		return a
	}
	if err := checkValue(value); err != nil {
		a.err = fmt.Errorf("%s: %w: %w", name, ErrUnsafeArg, err)
		return a
	}
	a.args = append(a.args, name+"="+value)
	return a
}

// Int adds the option name with the decimal n, as [Args.Value] does.
func (a *Args) Int(name string, n int) *Args {
	return a.Value(name, strconv.Itoa(n))
}

// Each adds the option name once per value, as [Args.Value] does: the
// form for an option that is repeated or takes several values ("--add-dir"
// of Claude Code, which with "=" takes exactly the one value and nothing
// after it).
func (a *Args) Each(name string, values []string) *Args {
	for _, v := range values {
		a.Value(name, v)
	}
	return a
}

// Extra adds args as they are: arguments a programmer passes on purpose
// (a driver Config's Args), which are options by design and must never
// hold a value from anyone else.
func (a *Args) Extra(args []string) *Args {
	if a.err == nil && a.operands && len(args) > 0 {
		a.err = fmt.Errorf("extra argument %q: %w: it comes after the operands", args[0], ErrUnsafeArg)
		return a
	}
	if a.err == nil {
		a.args = append(a.args, args...)
	}
	return a
}

// Operands adds values the agent reads by position (a session id, "-"
// for standard input) after a single "--", which ends the options for
// commander.js and clap alike, so none of them is read as an option. No
// option may be added after them.
func (a *Args) Operands(values ...string) *Args {
	if a.err != nil {
		return a
	}
	for _, v := range values {
		if v == "" {
			a.err = fmt.Errorf("%w: an empty operand", ErrUnsafeArg)
			return a
		}
		if err := checkValue(v); err != nil {
			a.err = fmt.Errorf("%w: operand: %w", ErrUnsafeArg, err)
			return a
		}
	}
	if !a.operands {
		a.args = append(a.args, "--")
		a.operands = true
	}
	a.args = append(a.args, values...)
	return a
}

// List returns the arguments, or the first error of the methods that
// built them.
func (a *Args) List() ([]string, error) {
	if a.err != nil {
		return nil, a.err
	}
	return append([]string(nil), a.args...), nil
}

// check records an error when a word of the driver's is not valid as
// what, or when it comes after the operands; it reports whether the word
// may be added.
func (a *Args) check(what, word string, valid bool) bool {
	switch {
	case a.err != nil:
		return false
	case !valid:
		a.err = fmt.Errorf("%q: %w: not a valid %s name", word, ErrUnsafeArg, what)
		return false
	case a.operands:
		a.err = fmt.Errorf("%s %s: %w: it comes after the operands", what, word, ErrUnsafeArg)
		return false
	}
	return true
}

// checkValue refuses a value no program can receive as it is: one that
// holds a NUL byte, which ends an argument.
func checkValue(v string) error {
	if strings.IndexByte(v, 0) >= 0 {
		return fmt.Errorf("%q holds a NUL byte", v)
	}
	return nil
}

// batchSpecial are the characters that cmd.exe reads as syntax in a
// command line even inside quotes, or that end the quotes: no quoting of
// an argument makes them reach a batch file as written.
const batchSpecial = "\"%!^&|<>()\r\n"

// checkBatch refuses, when goos is "windows" and the program at path is
// a batch file (.cmd or .bat, such as the shims npm installs), any
// argument holding a character cmd.exe reads as syntax: Windows runs a
// batch file through cmd.exe, which parses the whole command line again.
func checkBatch(goos, path string, args []string) error {
	if goos != "windows" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cmd", ".bat":
	default:
		return nil
	}
	for _, arg := range args {
		if i := strings.IndexAny(arg, batchSpecial); i >= 0 {
			return fmt.Errorf("%s: %w: it is a batch file, run by cmd.exe, which would read %q in the argument %q as syntax; set the driver's Command to the agent's own executable, or leave the character out",
				path, ErrUnsafeArg, arg[i:i+1], arg)
		}
	}
	return nil
}

// SessionIDs is the form of an agent's session ids (driver.SessionIDs).
type SessionIDs = driver.SessionIDs

// UUIDs is the form of session ids that are UUIDs in their text form,
// 8-4-4-4-12 hexadecimal digits in any case: the session ids of every
// agent of this module but OpenCode (Codex calls its own thread ids).
func UUIDs() SessionIDs {
	return SessionIDs{Form: "a UUID such as 5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", Valid: IsUUID}
}

// IsUUID reports whether s is a UUID in its text form, in any case.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// checkSessionID refuses an id to resume that does not have the form of
// the program's session ids, and any id when the program has no form.
func checkSessionID(p Program, id string) error {
	if p.SessionIDs.Valid == nil {
		return fmt.Errorf("%s: %w: %w: %q: the driver does not resume sessions", p.Name, driver.ErrResumeRejected, driver.ErrInvalidSessionID, id)
	}
	if !p.SessionIDs.Valid(id) {
		return fmt.Errorf("%s: %w: %w: %q: a %s session id is %s, as the result of a run reports it",
			p.Name, driver.ErrResumeRejected, driver.ErrInvalidSessionID, id, p.Name, p.SessionIDs.Form)
	}
	return nil
}
