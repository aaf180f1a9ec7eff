package adaptor_test

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/install"
)

const modulePath = "github.com/agentadaptor/agentadaptor"

// docSection returns the lines of the section of the markdown file
// (README.md or a guide under docs/) with the given "## " heading,
// without the heading.
func docSection(t *testing.T, file, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = strings.TrimPrefix(line, "## ") == heading
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("%s has no section %q", file, "## "+heading)
	}
	return out
}

// docFiles returns the markdown files the project's documentation is
// made of: README.md, then every .md file under docs/, in lexical order.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// layoutDoc is the file whose "Layout" section lists every package.
const layoutDoc = "docs/DESIGN-NOTES.md"

var backticked = regexp.MustCompile("`([^`]*)`")

// layoutRows returns, for each row of the layout table, the
// package paths of its first cell. The table must be one: a row after a
// line that is none (a blank line splits a Markdown table, and what
// follows shows as plain text) is an error.
func layoutRows(t *testing.T) [][]string {
	t.Helper()
	var rows [][]string
	started, ended := false, false
	for _, line := range docSection(t, layoutDoc, "Layout") {
		if !strings.HasPrefix(line, "|") {
			ended = ended || started
			continue
		}
		if ended {
			t.Errorf("%s: layout row %q is not part of the table: the table ends before it (a blank line or text splits it)", layoutDoc, line)
			ended = false // one error per split
		}
		started = true
		if strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.TrimSpace(cells[1]) == "package" {
			continue
		}
		var paths []string
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			paths = append(paths, m[1])
		}
		if len(paths) == 0 {
			t.Errorf("%s: layout row %q names no package in backquotes", layoutDoc, line)
		}
		rows = append(rows, paths)
	}
	return rows
}

// modulePackages returns the module's packages as go list ./... lists
// them, relative to the module root ("." for the root), and those of the
// modules nested in it (bench/, a module of its own).
func modulePackages(t *testing.T) []string {
	t.Helper()
	var all []string
	for _, dir := range []string{".", "bench"} {
		out, err := exec.Command("go", "-C", dir, "list", "./...").Output()
		if err != nil {
			t.Fatalf("go -C %s list ./...: %v (the test needs the go command on PATH)", dir, err)
		}
		all = append(all, strings.Fields(string(out))...)
	}
	var pkgs []string
	for _, p := range all {
		switch {
		case p == modulePath:
			pkgs = append(pkgs, ".")
		case strings.HasPrefix(p, modulePath+"/"):
			pkgs = append(pkgs, strings.TrimPrefix(p, modulePath+"/"))
		default:
			t.Fatalf("go list ./... lists %s, which is not in module %s", p, modulePath)
		}
	}
	return pkgs
}

// covers reports whether the layout entry e stands for package p: the
// same path, or a folder written as dir/... that holds p.
func covers(e, p string) bool {
	if dir, ok := strings.CutSuffix(e, "/..."); ok {
		return p == dir || strings.HasPrefix(p, dir+"/")
	}
	return e == p
}

// TestReadmeLayoutListsEveryPackage checks that the layout table of the
// design notes names every package of the module once, and nothing else.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	rows := layoutRows(t)
	pkgs := modulePackages(t)
	var entries []string
	for _, r := range rows {
		entries = append(entries, r...)
	}
	for _, e := range entries {
		if strings.HasSuffix(e, "/") || strings.Contains(e, "*") {
			t.Errorf("%s: the layout names %q: write a folder's packages as %q", layoutDoc, e, strings.TrimRight(e, "/*")+"/...")
			continue
		}
		if !slices.ContainsFunc(pkgs, func(p string) bool { return covers(e, p) }) {
			t.Errorf("%s: the layout names %q, which is no package of the module (go list ./...): remove or correct its row", layoutDoc, e)
		}
	}
	for _, p := range pkgs {
		var by []string
		for _, e := range entries {
			if covers(e, p) {
				by = append(by, e)
			}
		}
		switch len(by) {
		case 0:
			t.Errorf("package %s is not in the layout table of %s: add a row \"| `%s` | what it holds |\"", p, layoutDoc, p)
		case 1:
		default:
			t.Errorf("package %s is in the layout table of %s %d times (%s): keep one", p, layoutDoc, len(by), strings.Join(by, ", "))
		}
	}
}

// TestCovers checks the matching of layout entries to packages.
func TestCovers(t *testing.T) {
	tests := []struct {
		entry, pkg string
		want       bool
	}{
		{"skill", "skill", true},
		{"skill", "skillmd", false},
		{".", ".", true},
		{".", "skill", false},
		{"bench/...", "bench/coldextract", true},
		{"bench/...", "bench/internal/benchrun", true},
		{"bench/...", "bench", true},
		{"bench/...", "benchmarks/x", false},
		{"internal/testkit/...", "internal/testkit/modeltest", true},
		{"internal/testkit/...", "internal/treecmp", false},
	}
	for _, tt := range tests {
		if got := covers(tt.entry, tt.pkg); got != tt.want {
			t.Errorf("covers(%q, %q) = %v, want %v", tt.entry, tt.pkg, got, tt.want)
		}
	}
}

// TestReadmeFirstCommands checks what the README's first two commands
// rely on: the command and the example skills they install, for agents
// that exist, and the script that installs the agent CLIs for the tests.
func TestReadmeFirstCommands(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no sh block")
	}
	var cmds []string
	for line := range strings.SplitSeq(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	wantAdd := "go run ./cmd/agentskills add ./examples/skills --agent claude-code,codex"
	wantTest := ".ci/install-agent-clis && go test -race ./..."
	if len(cmds) != 2 || cmds[0] != wantAdd || cmds[1] != wantTest {
		t.Fatalf("README's first commands = %q, want %q and %q (update this test with them)", cmds, wantAdd, wantTest)
	}
	for _, id := range []string{"claude-code", "codex"} {
		if _, ok := install.LookupAgent(id); !ok {
			t.Errorf("README installs for agent %q, which install does not know", id)
		}
	}
	if fi, err := os.Stat(filepath.Join("cmd", "agentskills", "main.go")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("README runs ./cmd/agentskills, which has no main.go: %v", err)
	}
	skills, err := filepath.Glob(filepath.Join("examples", "skills", "*", "SKILL.md"))
	if err != nil || len(skills) == 0 {
		t.Errorf("README installs ./examples/skills, which holds no skill (%v)", err)
	}
	if fi, err := os.Stat(filepath.Join(".ci", "install-agent-clis")); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("README runs .ci/install-agent-clis, which is missing or not executable: %v", err)
	}
}

// TestReadmeIsAFrontPage checks that the README stays a front page: what
// it is, the first commands, a tour and links, with the rest in the
// guides under docs/.
func TestReadmeIsAFrontPage(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const limit = 400
	if n := strings.Count(string(data), "\n"); n >= limit {
		t.Errorf("README.md has %d lines, want under %d: move what is not the front page into a guide under docs/", n, limit)
	}
}
