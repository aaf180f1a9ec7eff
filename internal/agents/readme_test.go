package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folderText is how the guide writes a folder.
func folderText(f Folder) string {
	switch f.Base {
	case Home:
		return "`~/" + f.Rel + "`"
	case ConfigHome, ClaudeConfig, CodexHome:
		return "`$" + f.Base.Override() + "/" + f.Rel + "`"
	}
	return "`" + f.Rel + "`"
}

// readmeTable renders the rows of the agents a driver runs, or will, as
// the table of agent folders of the guide on running agents.
func readmeTable() string {
	var b strings.Builder
	b.WriteString("| agent | project | user | other | above the project | below the project | depth | listed by | facts |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range Table() {
		if r.Program == "" {
			continue
		}
		var proj, user, other []string
		for _, f := range r.Folders {
			switch {
			case f.Base == Project:
				proj = append(proj, folderText(f))
			case f.Base == System:
				other = append(other, folderText(f))
			default:
				user = append(user, folderText(f))
			}
		}
		above := "no"
		if r.Ancestors {
			above = "up to the repository top"
		}
		depth := fmt.Sprint(r.Depth)
		if r.Depth == AnyDepth {
			depth = "any"
		}
		below := "no"
		if len(r.Nested) > 0 {
			var fs []string
			for _, rel := range r.Nested {
				fs = append(fs, "`"+rel+"`")
			}
			below = strings.Join(fs, ", ") + " of a folder it reads a file in"
			if r.NestedGitignore {
				below += ", unless git ignores it"
			}
		}
		listed := "folder name"
		if r.ListedBy == FrontMatterName {
			listed = "front matter name"
		}
		fmt.Fprintf(&b, "| %s (`%s`) | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Name, r.ID,
			strings.Join(proj, ", "), strings.Join(user, ", "), strings.Join(other, ", "), above, below, depth, listed, r.Facts)
	}
	return b.String()
}

// The table of agent folders of docs/agents.md is the agents table's.
func TestREADMETable(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := readmeTable(); !strings.Contains(string(guide), want) {
		t.Errorf("docs/agents.md does not hold the table of agent folders; put this in it:\n%s", want)
	}
}
