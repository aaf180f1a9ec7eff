package skillmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Parse reads the bytes of a SKILL.md file. It fails with an [*Error]
// wrapping [ErrNoSkillFile] or [ErrFrontMatter] when there is no front
// matter to read (rules 1-4); every other broken rule is listed in the
// result's Problems. Name is checked against a folder only when
// [WithDirName] gives one.
func Parse(data []byte, opts ...Option) (*Skill, error) {
	return parse(data, newConfig(opts))
}

// ParseDir reads the skill in the folder dir: its SKILL.md, or else its
// skill.md. It fails with an [*Error] when dir does not exist (wrapping
// [io/fs.ErrNotExist]), is not a folder or holds no readable SKILL.md
// (wrapping [ErrNoSkillFile]), or when the file has no front matter to read
// (wrapping [ErrFrontMatter]); with another error of the file system as it
// is. Every other broken rule is listed in the result's Problems.
func ParseDir(dir string, opts ...Option) (*Skill, error) {
	c := newConfig(opts)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	data, file, err := readSkillFile(dir)
	if err != nil {
		return nil, err
	}
	c.dirName, c.hasDir = filepath.Base(abs), true
	s, err := parse(data, c)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = dir
		}
		return nil, err
	}
	s.Dir, s.Path, s.given = abs, filepath.Join(abs, file), dir
	return s, nil
}

// Validate reads the skill in the folder dir and checks every rule. It
// returns nil for a valid skill, an [*Error] listing the problems (warnings
// left out) when the skill cannot be read or breaks a rule, or another
// error of the file system as it is.
func Validate(dir string, opts ...Option) error {
	s, err := ParseDir(dir, opts...)
	if err != nil {
		return err
	}
	return s.Validate()
}

// readSkillFile reads dir's SKILL.md, or else its skill.md, and returns
// its bytes and its name (rule 1). It opens the file first and looks at
// the folder only when neither can be opened, which saves two system
// calls for every skill that is there.
func readSkillFile(dir string) ([]byte, string, error) {
	fail := func(err error, msg string) ([]byte, string, error) {
		return nil, "", &Error{Path: dir, Problems: []Problem{{Message: msg}}, Err: err}
	}
	var openErr error
	for _, name := range []string{FileName, FallbackFileName} {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			openErr = err // perhaps dir is a file: look at it first
			break
		}
		defer f.Close()
		fi, err := f.Stat()
		switch {
		case err != nil:
			return nil, "", err
		case !fi.Mode().IsRegular():
			return fail(ErrNoSkillFile, "Not a regular file: "+path)
		case fi.Size() > MaxFileSize:
			return fail(ErrNoSkillFile, fmt.Sprintf("%s is larger than %d bytes", name, MaxFileSize))
		}
		var buf bytes.Buffer
		buf.Grow(int(fi.Size()) + 1)
		if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
			return nil, "", err
		}
		if buf.Len() > MaxFileSize {
			return fail(ErrNoSkillFile, fmt.Sprintf("%s is larger than %d bytes", name, MaxFileSize))
		}
		return buf.Bytes(), name, nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(fs.ErrNotExist, "Path does not exist: "+dir)
	case err != nil:
		return nil, "", err
	case !fi.IsDir():
		return fail(ErrNoSkillFile, "Not a directory: "+dir)
	case openErr != nil:
		return nil, "", openErr
	}
	return nil, "", &Error{Path: dir, Problems: []Problem{{Message: "Missing required file: " + FileName}}, Err: ErrNoSkillFile, missing: true}
}

// Messages of rules 1-4, in the reference's words.
const (
	msgNoStart    = "SKILL.md must start with YAML frontmatter (---)"
	msgNotClosed  = "SKILL.md frontmatter not properly closed with ---"
	msgNotMapping = "SKILL.md frontmatter must be a YAML mapping"
	msgBadYAML    = "Invalid YAML in frontmatter: "
)

func parse(data []byte, c config) (*Skill, error) {
	fail := func(err error, msg string) (*Skill, error) {
		return nil, &Error{Problems: []Problem{{Message: msg}}, Err: err}
	}
	if !utf8.Valid(data) {
		return fail(ErrNoSkillFile, "SKILL.md is not valid UTF-8")
	}
	if bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	}
	lenient := c.mode == Lenient
	if lenient {
		data = bytes.TrimPrefix(data, []byte("\ufeff"))
	}
	front, body, msg := split(data, lenient)
	if msg != "" {
		return fail(ErrFrontMatter, msg)
	}
	root, warnings, msg := decode(front, lenient)
	if msg != "" {
		return fail(ErrFrontMatter, msg)
	}
	s := &Skill{Body: string(bytes.TrimFunc(body, isSpace)), Mode: c.mode, Problems: warnings}
	if msg := s.load(root, lenient); msg != "" {
		return fail(ErrFrontMatter, msg)
	}
	s.check(c)
	return s, nil
}

// split cuts text into front matter and body (untrimmed). In strict mode
// the front matter runs from the leading "---" to the next "---" anywhere
// (rule 3); in lenient mode from a first line "---" to the next such
// line. The front matter starts right after the opening "---", so its
// line numbers are the file's.
func split(text []byte, lenient bool) (front, body []byte, msg string) {
	delim := []byte("---")
	if !bytes.HasPrefix(text, delim) {
		return nil, nil, msgNoStart
	}
	if !lenient {
		end := bytes.Index(text[3:], delim)
		if end < 0 {
			return nil, nil, msgNotClosed
		}
		return text[3 : 3+end], text[3+end+3:], ""
	}
	line, rest, ok := bytes.Cut(text, []byte("\n"))
	if !isDelimiter(line) {
		return nil, nil, msgNoStart
	}
	pos := len(text) - len(rest)
	for ok {
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		if isDelimiter(line) {
			return text[3:pos], rest, ""
		}
		pos += len(line) + 1
	}
	return nil, nil, msgNotClosed
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t")) == "---"
}

// decode reads the front matter as YAML and returns its mapping. In strict
// mode it refuses what StrictYAML refuses (rule 4). In lenient mode it
// retries unquoted ": " values as text (lenient rule 4).
func decode(front []byte, lenient bool) (*yaml.Node, []Problem, string) {
	var doc yaml.Node
	err := yaml.Unmarshal(front, &doc)
	var warnings []Problem
	if err != nil && lenient {
		if fixed, keys := quoteColonValues(string(front)); len(keys) > 0 {
			var again yaml.Node
			if yaml.Unmarshal([]byte(fixed), &again) == nil {
				doc, err = again, nil
				for _, k := range keys {
					warnings = append(warnings, Problem{Field: k, Warning: true,
						Message: fmt.Sprintf("Field '%s' holds an unquoted \": \" and was read as plain text; quote the value", k)})
				}
			}
		}
	}
	if err != nil {
		return nil, nil, msgBadYAML + yamlDetail(err)
	}
	if len(doc.Content) == 0 {
		return nil, nil, msgNotMapping
	}
	root := doc.Content[0]
	if msg := singleDocument(front); msg != "" {
		return nil, nil, msgBadYAML + msg
	}
	if !lenient {
		if msg := strictCheck(root); msg != "" {
			return nil, nil, msgBadYAML + msg
		}
		if msg := strictTabs(front, root); msg != "" {
			return nil, nil, msgBadYAML + msg
		}
	}
	if deref(root).Kind != yaml.MappingNode {
		return nil, nil, msgNotMapping
	}
	return deref(root), warnings, ""
}

// yamlDetail turns an error of the YAML library into one line.
func yamlDetail(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	return strings.Join(strings.Fields(msg), " ")
}

// maxAliasDepth bounds alias chains in lenient mode.
const maxAliasDepth = 100

// deref follows aliases (lenient mode only has them).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// text returns the text of a scalar, as StrictYAML gives every scalar.
func text(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}
