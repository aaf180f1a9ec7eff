package skillmd

import "strings"

// Prompt returns the <available_skills> block for the skills, in their
// order, as described in "The catalogue prompt" in the package
// documentation, without a final newline. No skills give an empty block.
// A skill parsed from bytes has an empty location.
//
// Like the reference it needs a name and a description of each skill: it
// fails with the [*Error] of [Skill.PropertiesJSON] for the first skill
// without them.
func Prompt(skills []*Skill) (string, error) {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, s := range skills {
		if err := s.requireProperties(); err != nil {
			return "", err
		}
		b.WriteString("<skill>\n<name>\n")
		b.WriteString(escapeHTML(s.Name))
		b.WriteString("\n</name>\n<description>\n")
		b.WriteString(escapeHTML(s.Description))
		b.WriteString("\n</description>\n<location>\n")
		b.WriteString(s.Path)
		b.WriteString("\n</location>\n</skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String(), nil
}

// htmlEscaper is Python's html.escape(s, quote=True).
var htmlEscaper = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"'", "&#x27;",
)

func escapeHTML(s string) string { return htmlEscaper.Replace(s) }
