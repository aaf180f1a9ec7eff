package skillmd_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

// problems parses src as the SKILL.md of a folder named dir and returns
// the messages of its problems, or the parse error's, warnings prefixed.
func problems(t *testing.T, src, dir string, opts ...skillmd.Option) []string {
	t.Helper()
	s, err := skillmd.Parse([]byte(src), append([]skillmd.Option{skillmd.WithDirName(dir)}, opts...)...)
	var ps []skillmd.Problem
	if err != nil {
		var e *skillmd.Error
		if !errors.As(err, &e) {
			t.Fatalf("Parse(%q) error = %v, want an *Error", src, err)
		}
		ps = e.Problems
	} else {
		ps = s.Problems
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, p.String())
	}
	return msgs
}

// TestRules has one case or more for each numbered rule of the package
// documentation, in strict mode; the corpus in testdata has more.
func TestRules(t *testing.T) {
	const desc = "description: Does a thing.\n"
	tests := []struct {
		rule string
		src  string
		dir  string
		want []string
	}{
		{"2 CRLF", "---\r\nname: a\r\n" + "description: d\r\n---\r\n", "a", nil},
		{"2 CR", "---\rname: a\rdescription: d\r---\r", "a", nil},
		{"3 no front matter", "# a\n", "a", []string{"SKILL.md must start with YAML frontmatter (---)"}},
		{"3 byte order mark", "\ufeff---\nname: a\n" + desc + "---\n", "a", []string{"SKILL.md must start with YAML frontmatter (---)"}},
		{"3 not closed", "---\nname: a\n" + desc, "a", []string{"SKILL.md frontmatter not properly closed with ---"}},
		{"3 cut inside a line", "---\nname: a\ndescription: x --- y\n---\n", "a", nil},
		{"4 scalars are text", "---\nname: 42\ndescription: true\ncompatibility: 1.5\n---\n", "42", nil},
		{"4 empty value", "---\nname:\n" + desc + "---\n", "a", []string{"Field 'name' must be a non-empty string"}},
		{"4 flow", "---\nname: a\n" + desc + "metadata: {a: b}\n---\n", "a", []string{"Invalid YAML in frontmatter: line 4: flow collections ({...} and [...]) are not allowed; use block style or quote the value"}},
		{"4 anchor", "---\nname: &x a\n" + desc + "---\n", "a", []string{"Invalid YAML in frontmatter: line 2: anchors (&x) are not allowed"}},
		{"4 alias", "---\nname: a\n" + desc + "license: *x\n---\n", "a", []string{"Invalid YAML in frontmatter: unknown anchor 'x' referenced"}},
		{"4 tag", "---\nname: !!str a\n" + desc + "---\n", "a", []string{"Invalid YAML in frontmatter: line 2: tags (!!str) are not allowed"}},
		{"4 duplicate", "---\nname: a\n" + desc + "metadata:\n  k: 1\n  k: 2\n---\n", "a", []string{`Invalid YAML in frontmatter: line 6: key "k" is given more than once`}},
		{"4 syntax", "---\nname: a\ndescription: Use when: x\n---\n", "a", []string{"Invalid YAML in frontmatter: line 3: mapping values are not allowed in this context"}},
		{"4 tab after a value", "---\nname: a\ndescription: d\t\n---\n", "a", []string{`Invalid YAML in frontmatter: line 3: found character '\t' that cannot start any token`}},
		{"4 tab before a comment", "---\nname: a\n" + desc + "\t# c\n---\n", "a", []string{"Invalid YAML in frontmatter: line 3: found a tab character that violates indentation"}},
		{"4 tabs in text", "---\nname: a\ndescription: \"x\n\ty\"\nlicense: |\n  MIT\tor\n  \tApache\ncompatibility: 'é\tx' # and\ta comment\n---\n", "a", nil},
		{"4 second document", "---\nname: a\n" + desc + "...\nlicense: MIT\n---\n", "a", []string{"Invalid YAML in frontmatter: expected a single document in the stream"}},
		{"4 merge key with a scalar", "---\nname: a\n" + desc + "<<: x\n---\n", "a", []string{"Invalid YAML in frontmatter: line 4: a merge key (<<) needs a mapping or a list of mappings"}},
		{"4 merge key with a mapping", "---\nname: a\n<<:\n  " + desc + "---\n", "a", []string{"Missing required field in frontmatter: description"}},
		{"4 not a mapping", "---\n- a\n---\n", "a", []string{"SKILL.md frontmatter must be a YAML mapping"}},
		{"4 empty", "---\n---\n", "a", []string{"SKILL.md frontmatter must be a YAML mapping"}},
		{"5 unexpected", "---\nname: a\n" + desc + "b: 1\nA: 2\n---\n", "a", []string{"Unexpected fields in frontmatter: A, b. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed."}},
		{"6 missing", "---\n" + desc + "---\n", "a", []string{"Missing required field in frontmatter: name"}},
		{"6 blank", "---\nname: ' '\n" + desc + "---\n", "a", []string{"Field 'name' must be a non-empty string"}},
		{"6 map", "---\nname:\n  a: b\n" + desc + "---\n", "a", []string{"Field 'name' must be a non-empty string"}},
		{"6 length 64", "---\nname: " + strings.Repeat("a", 64) + "\n" + desc + "---\n", strings.Repeat("a", 64), nil},
		{"6 length 65", "---\nname: " + strings.Repeat("a", 65) + "\n" + desc + "---\n", strings.Repeat("a", 65), []string{"Skill name '" + strings.Repeat("a", 65) + "' exceeds 64 character limit (65 chars)"}},
		{"6 lowercase", "---\nname: Ab\n" + desc + "---\n", "Ab", []string{"Skill name 'Ab' must be lowercase"}},
		{"6 hyphen at start", "---\nname: -a\n" + desc + "---\n", "-a", []string{"Skill name cannot start or end with a hyphen"}},
		{"6 hyphen at end", "---\nname: a-\n" + desc + "---\n", "a-", []string{"Skill name cannot start or end with a hyphen"}},
		{"6 double hyphen", "---\nname: a--b\n" + desc + "---\n", "a--b", []string{"Skill name cannot contain consecutive hyphens"}},
		{"6 characters", "---\nname: a_b\n" + desc + "---\n", "a_b", []string{"Skill name 'a_b' contains invalid characters. Only letters, digits, and hyphens are allowed."}},
		{"6 any script", "---\nname: мой-навык\n" + desc + "---\n", "мой-навык", nil},
		{"6 other digits", "---\nname: ٣-x\n" + desc + "---\n", "٣-x", nil},
		{"6 trimmed", "---\nname: ' a '\n" + desc + "---\n", "a", nil},
		{"6 NFKC", "---\nname: ｍｙ\n" + desc + "---\n", "my", nil},
		{"6 folder", "---\nname: a\n" + desc + "---\n", "b", []string{"Directory name 'b' must match skill name 'a'"}},
		{"7 missing", "---\nname: a\n---\n", "a", []string{"Missing required field in frontmatter: description"}},
		{"7 blank", "---\nname: a\ndescription: \"\\t\"\n---\n", "a", []string{"Field 'description' must be a non-empty string"}},
		{"7 list", "---\nname: a\ndescription:\n  - x\n---\n", "a", []string{"Field 'description' must be a non-empty string"}},
		{"7 length 1024", "---\nname: a\ndescription: " + strings.Repeat("é", 1024) + "\n---\n", "a", nil},
		{"7 length 1025", "---\nname: a\ndescription: " + strings.Repeat("é", 1025) + "\n---\n", "a", []string{"Description exceeds 1024 character limit (1025 chars)"}},
		{"7 untrimmed", "---\nname: a\ndescription: \" " + strings.Repeat("x", 1023) + " \"\n---\n", "a", []string{"Description exceeds 1024 character limit (1025 chars)"}},
		{"8 length 500", "---\nname: a\n" + desc + "compatibility: " + strings.Repeat("c", 500) + "\n---\n", "a", nil},
		{"8 length 501", "---\nname: a\n" + desc + "compatibility: " + strings.Repeat("c", 501) + "\n---\n", "a", []string{"Compatibility exceeds 500 character limit (501 chars)"}},
		{"8 list", "---\nname: a\n" + desc + "compatibility:\n  - linux\n---\n", "a", []string{"Field 'compatibility' must be a string"}},
		{"9 unchecked", "---\nname: a\n" + desc + "license:\n  - MIT\nmetadata: text\nallowed-tools:\n  k: v\n---\n", "a", nil},
		{"10 order", "---\nx: 1\nname: A_\ncompatibility: " + strings.Repeat("c", 501) + "\n---\n", "b", []string{
			"Unexpected fields in frontmatter: x. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
			"Skill name 'A_' must be lowercase",
			"Skill name 'A_' contains invalid characters. Only letters, digits, and hyphens are allowed.",
			"Directory name 'b' must match skill name 'A_'",
			"Missing required field in frontmatter: description",
			"Compatibility exceeds 500 character limit (501 chars)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := problems(t, tt.src, tt.dir)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) problems (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestLenientRules has a case for each lenient rule of the package
// documentation.
func TestLenientRules(t *testing.T) {
	const desc = "description: Does a thing.\n"
	tests := []struct {
		rule string
		src  string
		dir  string
		want []string
	}{
		{"1 byte order mark", "\ufeff---\nname: a\n" + desc + "---\n", "a", nil},
		{"2 lines", "---  \nname: a\ndescription: x --- y\n--- \nbody\n", "a", nil},
		{"2 not closed by a line", "---\nname: a\ndescription: x\n ---\n", "a", []string{"SKILL.md frontmatter not properly closed with ---"}},
		{"2 first line", "--- x\nname: a\n---\n", "a", []string{"SKILL.md must start with YAML frontmatter (---)"}},
		{"3 flow, anchors, tags", "---\nname: &n a\ndescription: !!str d\nmetadata: {k: v}\nallowed-tools: [Read, *n]\n---\n", "a", nil},
		{"3 duplicate", "---\nname: b\nname: a\n" + desc + "---\n", "a", []string{"warning: Key 'name' is given more than once; the last value is used"}},
		{"4 unquoted colon", "---\nname: a\ndescription: Use when: x\n---\n", "a", []string{`warning: Field 'description' holds an unquoted ": " and was read as plain text; quote the value`}},
		{"4 multi-line value", "---\nname: a\ndescription: Use when: x\n  and y\n---\n", "a", []string{"Invalid YAML in frontmatter: line 3: mapping values are not allowed in this context"}},
		{"5 unknown keys", "---\nname: a\n" + desc + "user-invocable: false\n---\n", "a", nil},
		{"6 folder", "---\nname: b\n" + desc + "---\n", "a", []string{"warning: Directory name 'a' must match skill name 'b'"}},
		{"6 length", "---\nname: " + strings.Repeat("a", 65) + "\n" + desc + "---\n", strings.Repeat("a", 65), []string{"warning: Skill name '" + strings.Repeat("a", 65) + "' exceeds 64 character limit (65 chars)"}},
		{"6 missing", "---\n" + desc + "---\n", "a", []string{"warning: Missing required field in frontmatter: name; the folder name 'a' is used"}},
		{"6 still errors", "---\nname: A\n---\n", "A", []string{"Skill name 'A' must be lowercase", "Missing required field in frontmatter: description"}},
		{"7 metadata", "---\nname: a\n" + desc + "metadata:\n  - x\n---\n", "a", []string{"warning: Field 'metadata' should be a map of strings to strings"}},
		{"7 empty metadata", "---\nname: a\n" + desc + "metadata:\n---\n", "a", nil},
		{"7 allowed-tools", "---\nname: a\n" + desc + "allowed-tools:\n  k: v\n---\n", "a", []string{"warning: Field 'allowed-tools' should be a string or a list of strings"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := problems(t, tt.src, tt.dir, skillmd.WithMode(skillmd.Lenient))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q, Lenient) problems (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestLenientMissingNameWithoutFolder checks that a missing name stays an
// error when there is no folder to take it from.
func TestLenientMissingNameWithoutFolder(t *testing.T) {
	s, err := skillmd.Parse([]byte("---\ndescription: d\n---\n"), skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); !errors.Is(err, skillmd.ErrRule) {
		t.Errorf("Validate() = %v, want ErrRule", err)
	}
}
