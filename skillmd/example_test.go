package skillmd_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

func ExampleParse() {
	s, err := skillmd.Parse([]byte(`---
name: greet
description: Greets the user. Use when a conversation starts.
metadata:
  author: example-org
---
Say hello.
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name)
	fmt.Println(s.Description)
	fmt.Println(s.Metadata["author"])
	fmt.Println(s.Body)
	fmt.Println(s.Validate())
	// Output:
	// greet
	// Greets the user. Use when a conversation starts.
	// example-org
	// Say hello.
	// <nil>
}

func ExampleParse_lenient() {
	src := []byte(`---
name: review
description: Use when: the user asks for a review
argument-hint: "[file]"
---
`)
	if _, err := skillmd.Parse(src); err != nil {
		fmt.Println("strict:", err)
	}
	s, err := skillmd.Parse(src, skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("lenient:", s.Description, s.Extra["argument-hint"])
	for _, w := range s.Warnings() {
		fmt.Println(w)
	}
	// Output:
	// strict: invalid YAML in frontmatter: line 3: mapping values are not allowed in this context
	// lenient: Use when: the user asks for a review [file]
	// warning: Field 'description' holds an unquoted ": " and was read as plain text; quote the value
}

func ExampleValidate() {
	root, err := os.MkdirTemp("", "skills")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	dir := filepath.Join(root, "release-notes")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(`---
name: Release_Notes
description: Drafts release notes.
version: 1.2.0
---
`), 0o644)

	err = skillmd.Validate(dir)
	var e *skillmd.Error
	if errors.As(err, &e) {
		for _, p := range e.Problems {
			fmt.Printf("%s: %s\n", p.Field, p.Message)
		}
	}
	// Output:
	// : Unexpected fields in frontmatter: version. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.
	// name: Skill name 'Release_Notes' must be lowercase
	// name: Skill name 'Release_Notes' contains invalid characters. Only letters, digits, and hyphens are allowed.
	// name: Directory name 'release-notes' must match skill name 'Release_Notes'
}

func ExamplePrompt() {
	s, err := skillmd.Parse([]byte("---\nname: pdf\ndescription: Reads PDFs & <forms>.\n---\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Path = "/skills/pdf/SKILL.md" // ParseDir sets it
	block, err := skillmd.Prompt([]*skillmd.Skill{s})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(block)
	// Output:
	// <available_skills>
	// <skill>
	// <name>
	// pdf
	// </name>
	// <description>
	// Reads PDFs &amp; &lt;forms&gt;.
	// </description>
	// <location>
	// /skills/pdf/SKILL.md
	// </location>
	// </skill>
	// </available_skills>
}

func ExampleSkill_PropertiesJSON() {
	s, err := skillmd.Parse([]byte("---\nlicense: MIT\nname: café\ndescription: Orders coffee.\n---\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	js, err := s.PropertiesJSON()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(js))
	// Output:
	// {
	//   "name": "caf\u00e9",
	//   "description": "Orders coffee.",
	//   "license": "MIT"
	// }
}
