package skillmd

import (
	"errors"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits of rules 1 and 6-8 in the package documentation.
const (
	// MaxNameLength is the most characters a name may have after NFKC.
	MaxNameLength = 64
	// MaxDescriptionLength is the most characters a description may have.
	MaxDescriptionLength = 1024
	// MaxCompatibilityLength is the most characters compatibility may have.
	MaxCompatibilityLength = 500
	// MaxFileSize is the largest SKILL.md that is read, in bytes.
	MaxFileSize = 16 << 20
)

// The file names looked for in a skill folder, in order.
const (
	// FileName is the name of the file that makes a folder a skill.
	FileName = "SKILL.md"
	// FallbackFileName is read when there is no [FileName].
	FallbackFileName = "skill.md"
)

// Errors wrapped by an [*Error]; test for them with [errors.Is]. A missing
// folder wraps [io/fs.ErrNotExist].
var (
	// ErrNoSkillFile means the folder holds no SKILL.md (nor skill.md), or
	// the path is not a folder, or the file cannot be read as text.
	ErrNoSkillFile = errors.New("no readable SKILL.md")
	// ErrFrontMatter means the front matter is missing, not closed, not
	// YAML or not a mapping.
	ErrFrontMatter = errors.New("unreadable front matter")
	// ErrRule means the front matter breaks a rule of the mode read
	// in (a name, a description, a field).
	ErrRule = errors.New("front matter breaks a rule")
)

// Mode says how strictly a SKILL.md is read.
type Mode int

const (
	// Strict reads and checks a SKILL.md exactly as the reference validator
	// does. It is the default.
	Strict Mode = iota
	// Lenient reads a SKILL.md the way agents load skills; see "Lenient
	// mode" in the package documentation.
	Lenient
)

// String returns "strict" or "lenient".
func (m Mode) String() string {
	if m == Lenient {
		return "lenient"
	}
	return "strict"
}

// An Option changes how [Parse], [ParseDir] and [Validate] read a skill.
type Option func(*config)

type config struct {
	mode    Mode
	dirName string
	hasDir  bool
}

// WithMode sets the mode. Default: [Strict].
func WithMode(m Mode) Option {
	return func(c *config) { c.mode = m }
}

// WithDirName gives [Parse] the name of the folder that holds the file, so
// that name is checked against it (rule 6). Default: no folder, and no
// such check. [ParseDir] and [Validate] use the folder's own name.
func WithDirName(name string) Option {
	return func(c *config) { c.dirName, c.hasDir = name, true }
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Problem is one broken rule.
type Problem struct {
	// Field is the front matter key the problem is about ("name",
	// "description", "compatibility", "metadata", "allowed-tools"), or ""
	// for the file, the front matter as a whole, or unexpected keys.
	Field string
	// Message says what is wrong, in the reference validator's words where
	// it has them.
	Message string
	// Warning is true for a problem that lenient mode reports but accepts.
	Warning bool
}

// String returns the message, preceded by "warning: " for a warning.
func (p Problem) String() string {
	if p.Warning {
		return "warning: " + p.Message
	}
	return p.Message
}

// Error reports a skill that cannot be read or breaks a rule. Err is
// [ErrNoSkillFile], [ErrFrontMatter], [ErrRule] or [io/fs.ErrNotExist]
// (for a missing folder). A folder without SKILL.md wraps both
// [ErrNoSkillFile] and [io/fs.ErrNotExist].
type Error struct {
	// Path is the folder, or "" when the skill was parsed from bytes.
	Path string
	// Problems lists why, at least one; warnings are not included.
	Problems []Problem
	// Err is the kind of failure.
	Err error

	missing bool // the folder holds no SKILL.md
}

// Error returns the path and the problems, separated by semicolons.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	if len(e.Problems) == 0 && e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(lowerFirst(p.Message))
	}
	return b.String()
}

// Unwrap returns Err, and [io/fs.ErrNotExist] when the folder holds no
// SKILL.md.
func (e *Error) Unwrap() []error {
	if e.missing {
		return []error{e.Err, fs.ErrNotExist}
	}
	return []error{e.Err}
}

// lowerFirst lowercases the first letter of a sentence unless the first
// word is an acronym or a file name such as SKILL.md.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	next, _ := utf8.DecodeRuneInString(s[n:])
	if !unicode.IsUpper(r) || unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// Skill is a parsed SKILL.md.
type Skill struct {
	// Name is the name, trimmed; in lenient mode the folder's name when
	// the file has none.
	Name string
	// Description is the description, trimmed.
	Description string
	// License is the license as written.
	License string
	// Compatibility is the compatibility note as written.
	Compatibility string
	// AllowedTools is the space-separated list of pre-approved tools.
	AllowedTools string
	// Metadata maps each metadata key to its value's text; nil when there
	// is no metadata map.
	Metadata map[string]string
	// Extra holds the keys that are not among the six allowed ones, with
	// the values YAML gives them.
	Extra map[string]any
	// Body is the Markdown after the front matter, trimmed.
	Body string
	// Dir is the absolute path of the folder, or "" when parsed from bytes.
	Dir string
	// Path is the absolute path of the SKILL.md file, or "".
	Path string
	// Mode is the mode the skill was read in.
	Mode Mode
	// Problems lists every rule the file breaks, warnings included, in the
	// order of the rules.
	Problems []Problem

	fields      map[string]*yaml.Node // the front matter's values by key
	keys        []string              // the front matter's keys in order
	nameFromDir bool                  // Name comes from the folder (lenient)
	given       string                // the folder as given to ParseDir
	metaKeys    []string              // Metadata's keys in order
}

// Validate returns nil when the skill breaks no rule, or else an [*Error]
// wrapping [ErrRule] that lists every problem except warnings.
func (s *Skill) Validate() error {
	var errs []Problem
	for _, p := range s.Problems {
		if !p.Warning {
			errs = append(errs, p)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &Error{Path: s.given, Problems: errs, Err: ErrRule}
}

// Warnings returns the problems that are warnings.
func (s *Skill) Warnings() []Problem {
	var ws []Problem
	for _, p := range s.Problems {
		if p.Warning {
			ws = append(ws, p)
		}
	}
	return ws
}
