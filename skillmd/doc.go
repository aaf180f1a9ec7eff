// Package skillmd reads and checks SKILL.md files the way the Agent Skills
// reference validator (skills-ref) does, and prints the catalogue prompt
// that agents put in their system prompt.
//
// [Parse] reads SKILL.md bytes and [ParseDir] reads a skill folder; both give
// a [Skill] whose Problems list every rule the file breaks. [Skill.Validate]
// and [Validate] turn the problems into an [*Error]. [Prompt] formats the
// <available_skills> block and [Skill.PropertiesJSON] the JSON of
// skills-ref read-properties.
//
// The messages are the reference's, word for word, so a corpus of SKILL.md
// files gives the same verdicts and messages here as there (see testdata).
//
// A complete program that checks a skill folder the way agents read it:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//
//		"github.com/agentadaptor/agentadaptor/skillmd"
//	)
//
//	func main() {
//		s, err := skillmd.ParseDir("./skills/review", skillmd.WithMode(skillmd.Lenient))
//		if err != nil {
//			log.Fatal(err) // no SKILL.md, or no front matter to read
//		}
//		if err := s.Validate(); err != nil {
//			log.Fatal(err) // every rule it breaks
//		}
//		for _, w := range s.Warnings() {
//			fmt.Println(w)
//		}
//		fmt.Println(s.Name, "-", s.Description)
//	}
//
// Runnable examples are in example_test.go (go doc does not print them;
// pkg.go.dev does): ExampleParse, ExampleParse_lenient, ExampleValidate,
// ExamplePrompt and ExampleSkill_PropertiesJSON.
//
// # The rules
//
// In the default [Strict] mode:
//
//  1. A skill is a folder holding SKILL.md, or else skill.md (SKILL.md wins
//     when both exist). "Path does not exist: DIR", "Not a directory: DIR"
//     and "Missing required file: SKILL.md" are reported alone. A file that
//     is not a regular file, is larger than [MaxFileSize] or is not UTF-8 is
//     refused too.
//  2. Line endings CRLF and CR are read as LF, as Python's text mode reads
//     them.
//  3. The file starts with "---" (a byte order mark before it is not
//     skipped): else "SKILL.md must start with YAML frontmatter (---)". The
//     front matter ends at the next "---", even one inside a line, as the
//     reference's split does (so "description: a --- b" is cut to "a"):
//     without one, "SKILL.md frontmatter not properly closed with ---". The
//     body is what follows, trimmed.
//  4. The front matter is YAML read as the reference's StrictYAML reads it:
//     every scalar is text (name: 42 is the name "42", name: null is
//     "null", and a key without a value is ""); flow collections ({...},
//     [...]), anchors, aliases, tags, a key given twice, a second document
//     after a "..." line, a merge key (<<) with a scalar, and a tab outside
//     quoted text, block text and comments are refused with "Invalid YAML
//     in frontmatter: ...", as YAML syntax errors are. That detail is this
//     package's own text. A merge key with a mapping is dropped, with what
//     it would merge. Front matter that is not a mapping (empty, comments
//     only, a scalar, a list) gives "SKILL.md frontmatter must be a YAML
//     mapping".
//  5. The allowed keys are name, description, license, compatibility,
//     metadata and allowed-tools; any other gives one message naming them
//     all, sorted: "Unexpected fields in frontmatter: a, b. Only
//     ['allowed-tools', 'compatibility', 'description', 'license',
//     'metadata', 'name'] are allowed."
//  6. name is required ("Missing required field in frontmatter: name") and
//     must be a string that is not blank ("Field 'name' must be a non-empty
//     string"). Trimmed and NFKC-normalised, it must: have at most
//     [MaxNameLength] characters (code points); equal its lowercase form;
//     not start or end with "-"; not hold "--"; hold only letters (Unicode
//     category L, of any script), digits (category N) and "-"; and equal the
//     NFKC-normalised name of the folder. Each broken rule is one message.
//  7. description is required and must be a string that is not blank; as
//     written (before trimming, so a literal block's final line break
//     counts) it has at most [MaxDescriptionLength] characters.
//  8. compatibility, when present, must be a string ("Field 'compatibility'
//     must be a string") of at most [MaxCompatibilityLength] characters.
//  9. license, metadata and allowed-tools are not checked.
//  10. Problems come in the order of the rules: unexpected keys, name,
//     description, compatibility. A problem of rules 1-4 is reported alone.
//
// Characters are counted as Python counts them, in code points; whitespace
// is what Python's str.strip removes; letters and digits are what
// str.isalnum accepts, by the Unicode tables of the Go release (Unicode 15
// in Go 1.26, as in Python 3.12; Python 3.11 knows Unicode 14, without the
// ideographs and letters added in 15).
//
// # Lenient mode
//
// [WithMode]([Lenient]) reads a skill the way agents load one. It differs
// from rules 1-10 in these points only:
//
//  1. A byte order mark at the start is skipped.
//  2. The front matter lies between a first line "---" and the next line
//     "---" (trailing spaces allowed); "---" inside a line is text.
//  3. Flow collections, anchors, aliases, tags, merge keys and tabs are
//     YAML as usual (a second document is still refused). A key given
//     twice is a warning and the last value wins.
//  4. When the YAML does not parse, values written "key: text: more" (an
//     unquoted ": " in a one-line plain value) are read again as quoted
//     text, with a warning for each; the common description: Use when: ...
//     thus loads.
//  5. Unknown keys are kept in [Skill.Extra] without a problem.
//  6. A name that differs from the folder or is longer than [MaxNameLength]
//     is a warning. A missing name is a warning when the folder is known,
//     and the folder's name is used.
//  7. metadata that is not a map of strings and allowed-tools that is not a
//     string or a list of strings are warnings.
//
// Every other problem is still an error.
//
// # The typed value
//
// Name and Description are trimmed, as the reference's read-properties
// gives them; License, Compatibility and AllowedTools are the text as
// written (a list of allowed tools is joined with spaces); Metadata maps
// each key to its value's text (a nested value is written as Python's str
// writes it). A field that is absent or not text is "". Extra holds the
// other keys with the types YAML gives them (bool, int, float64, string,
// time.Time, []any, map[string]any, nil).
//
// # Requirements
//
// A skill that needs other skills says so within the format, whose
// metadata values are strings: metadata.requires ([RequiresKey]) lists
// them, separated by white space, each a source as agentskills add takes
// it, with a version range where it names one:
//
//	metadata:
//	  requires: "github:acme/skills/changelog@^1 oci://ghcr.io/acme/semver:^2"
//
// [Skill.Requires] reads the list. It checks the list's form, not what
// each names (package install parses each as a source, and resolves it):
//
//  1. Entries are split at Unicode white space; an empty or blank value
//     lists none.
//  2. At most [MaxRequires] entries, each at most [MaxRequireLength]
//     bytes, holding no control character and no invisible formatting
//     character (a bidirectional override, a zero-width space): the
//     entries are shown on terminals.
//  3. An entry listed twice is an error, as a list that repeats itself
//     was not written with care.
//
// Every error wraps [ErrRule] and names the entry.
//
// # The catalogue prompt
//
// [Prompt] writes one <available_skills> block, each tag and each value on
// its own line, name and description escaped as Python's html.escape does
// (& < > " ' become &amp; &lt; &gt; &quot; &#x27;), and location the
// absolute path of the SKILL.md file:
//
//	<available_skills>
//	<skill>
//	<name>
//	my-skill
//	</name>
//	<description>
//	What this skill does and when to use it
//	</description>
//	<location>
//	/abs/path/to/my-skill/SKILL.md
//	</location>
//	</skill>
//	</available_skills>
//
// # Where this package departs from the reference
//
//   - The detail after "Invalid YAML in frontmatter: " is this package's
//     (one line, with the line number), not StrictYAML's.
//   - The folder name compared with name is that of the absolute path, so
//     "." is the current folder's name (the reference compares with "").
//   - location is the absolute path as given; the reference also resolves
//     symbolic links.
//   - A file that is not UTF-8, too large or not a regular file, and YAML
//     holding control characters, are problems; the reference stops with a
//     Python exception.
//   - The YAML library reads U+0085 (NEL) as a line break, and refuses a
//     block scalar whose first line starts with a tab after its
//     indentation; the reference's reads the one as text and accepts the
//     other.
//
// Functions in this package are safe for concurrent use; a [Skill] is a
// plain value that callers may change.
package skillmd
