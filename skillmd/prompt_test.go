package skillmd_test

import (
	"errors"
	"testing"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

func parse(t *testing.T, src string, opts ...skillmd.Option) *skillmd.Skill {
	t.Helper()
	s, err := skillmd.Parse([]byte(src), opts...)
	if err != nil {
		t.Fatalf("Parse(%q) = %v", src, err)
	}
	return s
}

func TestPrompt(t *testing.T) {
	a := parse(t, "---\nname: a\ndescription: \"  Quotes \\\" and ' and <b> & more  \"\n---\n")
	a.Path = "/skills/a/SKILL.md"
	b := parse(t, "---\nname: b&b\ndescription: |\n  Two\n  lines\n---\n")
	tests := []struct {
		name   string
		skills []*skillmd.Skill
		want   string
	}{
		{"none", nil, "<available_skills>\n</available_skills>"},
		{"two", []*skillmd.Skill{a, b}, `<available_skills>
<skill>
<name>
a
</name>
<description>
Quotes &quot; and &#x27; and &lt;b&gt; &amp; more
</description>
<location>
/skills/a/SKILL.md
</location>
</skill>
<skill>
<name>
b&amp;b
</name>
<description>
Two
lines
</description>
<location>

</location>
</skill>
</available_skills>`},
	}
	for _, tt := range tests {
		got, err := skillmd.Prompt(tt.skills)
		if err != nil || got != tt.want {
			t.Errorf("Prompt(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestPromptNeedsNameAndDescription(t *testing.T) {
	for _, src := range []string{
		"---\ndescription: d\n---\n",
		"---\nname: a\n---\n",
		"---\nname: ''\ndescription: d\n---\n",
		"---\nname: a\ndescription:\n  - d\n---\n",
	} {
		s := parse(t, src)
		if _, err := skillmd.Prompt([]*skillmd.Skill{s}); !errors.Is(err, skillmd.ErrRule) {
			t.Errorf("Prompt(%q) = %v, want ErrRule", src, err)
		}
		if _, err := s.PropertiesJSON(); !errors.Is(err, skillmd.ErrRule) {
			t.Errorf("PropertiesJSON(%q) = %v, want ErrRule", src, err)
		}
	}
}

func TestPropertiesJSON(t *testing.T) {
	tests := []struct {
		name string
		src  string
		opts []skillmd.Option
		want string
	}{
		{"order and escapes", "---\nmetadata:\n  z: 1\n  a: \"\\x7f\\u00e9\"\nlicense: MIT\ndescription: \" d\\t\"\nname: a\n---\n", nil, `{
  "name": "a",
  "description": "d",
  "license": "MIT",
  "metadata": {
    "z": "1",
    "a": "\u007f\u00e9"
  }
}`},
		{"lists and text", "---\nname: a\ndescription: d\nallowed-tools:\n  - Read\nlicense:\n  - MIT\n  - key: v\nmetadata: just text\ncompatibility: ''\n---\n", nil, `{
  "name": "a",
  "description": "d",
  "license": [
    "MIT",
    {
      "key": "v"
    }
  ],
  "compatibility": "",
  "allowed-tools": [
    "Read"
  ],
  "metadata": "just text"
}`},
		{"empty metadata", "---\nname: a\ndescription: d\nmetadata:\n---\n", nil, "{\n  \"name\": \"a\",\n  \"description\": \"d\"\n}"},
		{"lenient name", "---\ndescription: 😀\n---\n", []skillmd.Option{skillmd.WithMode(skillmd.Lenient), skillmd.WithDirName("dir")}, "{\n  \"name\": \"dir\",\n  \"description\": \"\\ud83d\\ude00\"\n}"},
		{"nested repr", "---\nname: a\ndescription: d\nmetadata:\n  m:\n    k: \"it's\"\n    q: 'say \"hi\"'\n    b: \"both ' \\\"\"\n    n: \"a\\nb\\\\\"\n---\n", nil, `{
  "name": "a",
  "description": "d",
  "metadata": {
    "m": "{'k': \"it's\", 'q': 'say \"hi\"', 'b': 'both \\' \"', 'n': 'a\\nb\\\\'}"
  }
}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse(t, tt.src, tt.opts...).PropertiesJSON()
			if err != nil || string(got) != tt.want {
				t.Errorf("PropertiesJSON() = %s, %v; want\n%s", got, err, tt.want)
			}
		})
	}
}
