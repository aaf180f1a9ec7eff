package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// TestDescriptors checks each driver's descriptor against the agents
// table, which install and the shadow checks read: one row per driver,
// with the same id, name and program, and no row naming a program that
// no driver of run's list runs. It also checks that each descriptor says
// what run needs: a way to build the driver and check arguments, the
// form of its session ids, where its folders live in the cache (a folder
// of its own, and only an agent home holding sessions), and what the
// agent offers in place of each setting it does not take.
func TestDescriptors(t *testing.T) {
	var ids, names, dirs []string
	folderDir := regexp.MustCompile(`^(mounts|homes)/[a-z0-9][a-z0-9-]*$`)
	for _, d := range runnables() {
		ids, names, dirs = append(ids, d.ID), append(names, d.Name), append(dirs, d.Folders.Dir)
		row, ok := agents.Lookup(d.ID)
		if !ok {
			t.Errorf("%s: no row %q in the agents table", d.Name, d.ID)
			continue
		}
		if row.Name != d.Agent || row.Program != d.Program {
			t.Errorf("%s: the agents table's row says %q, program %q; the descriptor %q, program %q", d.Name, row.Name, row.Program, d.Agent, d.Program)
		}
		if a, ok := install.LookupAgent(d.ID); !ok || a.Name != d.Agent {
			t.Errorf("%s: install.LookupAgent(%q) = %q, %v; want %q", d.Name, d.ID, a.Name, ok, d.Agent)
		}
		switch {
		case d.New == nil || d.CheckArgs == nil || d.New(driver.Settings{}) == nil:
			t.Errorf("%s: the descriptor builds no driver or checks no arguments", d.Name)
		case d.SessionIDs.Valid == nil || d.SessionIDs.Form == "":
			t.Errorf("%s: the descriptor gives no form of session ids", d.Name)
		case d.Install == "" || d.Agent == "" || d.Program == "" || d.Provider == "":
			t.Errorf("%s: the descriptor lacks its agent's name, program, install command or provider", d.Name)
		case (len(d.Modes) > 0) != d.Mode.Has() || d.Bypass != "" && !slices.Contains(d.Modes, d.Bypass):
			t.Errorf("%s: modes %q, bypass %q, mode setting %+v do not agree", d.Name, d.Modes, d.Bypass, d.Mode)
		case !folderDir.MatchString(d.Folders.Dir) || d.Folders.Sessions != "" && !d.Folders.Home():
			t.Errorf("%s: folders %+v: Dir is not mounts/NAME or homes/NAME, or a skill mount holds sessions", d.Name, d.Folders)
		case d.Allowed.Has() != d.Denied.Has():
			t.Errorf("%s: run takes tool lists together; the descriptor has one and not the other", d.Name)
		}
		for flag, s := range map[string]bool{"--permission-mode": d.Mode.Has(), "--allowed-tools": d.Allowed.Has(), "--max-turns": d.Turns.Has()} {
			if !s && settingOf(d, flag).Instead == "" {
				t.Errorf("%s: no %s and nothing said instead", d.Name, flag)
			}
		}
	}
	var rows []string
	for _, r := range agents.Table() {
		if r.Program != "" {
			rows = append(rows, r.ID)
		}
	}
	if slices.Sort(rows); !slices.Equal(rows, slices.Sorted(slices.Values(ids))) {
		t.Errorf("rows of the agents table with a program: %q; run drives %q", rows, ids)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("two drivers have one name: %q", names)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(dirs)))) != len(dirs) {
		t.Errorf("two drivers keep their folders in one place: %q", dirs)
	}
}

// TestREADMEAgentsTable checks the README's agents table, found by its
// header row (its first column "agent"), against the descriptors and the
// pins of .ci/install-agent-clis: each agent run drives has a row that
// names its id (`ID`); in its first column, its name as the descriptor
// spells it (a link or the id beside it allowed: "[Claude Code](docs/...)
// (`claude-code`)"); in its package column, its driver's package, linked
// ("[`claude`](claude)"); in its "CLI tested" column, the version the
// script pins for the descriptor's npm package, or no version for an
// agent on no registry. The sentence of the README's top that names the
// versions the tests drive ("Claude Code (2.1.328)") must name the same.
func TestREADMEAgentsTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pins := agentCLIPins(t)
	table := regexp.MustCompile(`(?im)^(\|\s*agent\s*\|.*)\n\|[-| :]+\|\n((?:\|.*\n)*)`).FindSubmatch(readme)
	if table == nil {
		t.Fatal("README.md has no table whose first column is agent")
	}
	column := map[string]int{}
	for i, h := range cellsOf(string(table[1])) {
		column[h] = i
	}
	for _, h := range []string{"package", "CLI tested"} {
		if _, ok := column[h]; !ok {
			t.Fatalf("README agents table: no column %q in %q", h, table[1])
		}
	}
	link := regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	rows := map[string][]string{} // by id
	for _, row := range strings.Split(strings.TrimSpace(string(table[2])), "\n") {
		for _, d := range runnables() {
			if strings.Contains(row, "`"+d.ID+"`") {
				rows[d.ID] = cellsOf(row)
			}
		}
	}
	version := regexp.MustCompile(`\d+\.\d+`)
	intro := strings.Join(strings.Fields(string(readme[:bytes.Index(readme, table[0])])), " ")
	for _, d := range runnables() {
		cells, ok := rows[d.ID]
		if !ok || len(cells) <= max(column["package"], column["CLI tested"]) {
			t.Errorf("README agents table: no row of `%s` with every column", d.ID)
			continue
		}
		first := link.ReplaceAllString(cells[0], "$1")
		name := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(first, "(`"+d.ID+"`)", ""), "`"+d.ID+"`", ""))
		if name != d.Agent {
			t.Errorf("README agents table: the row of `%s` names %q, want %q", d.ID, name, d.Agent)
		}
		if pkg, want := cells[column["package"]], "[`"+d.Name+"`]("+d.Name+")"; pkg != want {
			t.Errorf("README agents table: the row of `%s` gives package %q, want %q", d.ID, pkg, want)
		}
		tested := cells[column["CLI tested"]]
		pin, pinned := pins[d.Package]
		switch {
		case d.Package == "" && version.MatchString(tested):
			t.Errorf("README agents table: the row of `%s` says CLI tested %q; the agent is on no registry and .ci/install-agent-clis pins none", d.ID, tested)
		case d.Package != "" && !pinned:
			t.Errorf(".ci/install-agent-clis installs no %s, the package of %s", d.Package, d.Agent)
		case d.Package != "" && tested != pin:
			t.Errorf("README agents table: the row of `%s` says CLI tested %q; .ci/install-agent-clis pins %s@%s", d.ID, tested, d.Package, pin)
		case d.Package != "" && !regexp.MustCompile(regexp.QuoteMeta(d.Agent+" ("+pin)+`[,)]`).MatchString(intro):
			t.Errorf("README's top does not say the tests drive %s (%s), as .ci/install-agent-clis pins", d.Agent, pin)
		}
		delete(pins, d.Package)
	}
	for pkg := range pins {
		t.Errorf(".ci/install-agent-clis installs %s, the package of no descriptor", pkg)
	}
}

// cellsOf returns the cells of a row of a Markdown table, trimmed.
func cellsOf(row string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// agentCLIPins reads .ci/install-agent-clis and returns the version it
// pins for each npm package it installs ("@openai/codex": "0.169.0"):
// each package is installed as "PACKAGE@$NAME_version", and NAME_version
// is set at the script's top.
func agentCLIPins(t *testing.T) map[string]string {
	t.Helper()
	script, err := os.ReadFile("../../.ci/install-agent-clis")
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^(\w+_version)=([0-9][0-9A-Za-z.+-]*)$`).FindAllSubmatch(script, -1) {
		versions[string(m[1])] = string(m[2])
	}
	pins := map[string]string{}
	for _, m := range regexp.MustCompile(`"((?:@[a-z0-9-]+/)?[a-z0-9.-]+)@\$(\w+_version)"`).FindAllSubmatch(script, -1) {
		v, ok := versions[string(m[2])]
		if !ok {
			t.Fatalf(".ci/install-agent-clis installs %s at $%s, which it does not set", m[1], m[2])
		}
		pins[string(m[1])] = v
	}
	if len(pins) == 0 {
		t.Fatal(".ci/install-agent-clis installs no package as PACKAGE@$NAME_version")
	}
	return pins
}

// TestRunHelpNamesEveryAgent checks run --help and its reference (its
// page in docs/cli) against the descriptors: its usage line and --agent
// name every agent run drives, and its text gives each one's modes, the
// option each setting maps to, its session ids' form, its program and
// how it reaches its model.
func TestRunHelpNamesEveryAgent(t *testing.T) {
	whole := wholeHelp(t, "run")
	help := strings.Join(strings.Fields(whole), " ")
	usage, _, _ := strings.Cut(whole, "\n\n")
	for _, d := range runnables() {
		if !regexp.MustCompile(`--agent [a-z|-]*\b` + regexp.QuoteMeta(d.ID) + `\b`).MatchString(whole) {
			t.Errorf("run --help's usage does not name %s:\n%s", d.ID, usage)
		}
		form, _, _ := strings.Cut(d.SessionIDs.Form, " such as")
		want := []string{d.Program, strings.TrimSuffix(form, ",") + " for ", d.Agent + " " + d.Provider}
		if d.Mode.Has() {
			want = append(want, d.ID+": "+strings.Join(d.Modes, ", ")+" ("+d.Mode.Option+", Config."+d.Mode.Field+")")
		}
		for _, s := range []string{"--skip-permissions", "--allowed-tools", "--disallowed-tools", "--max-turns"} {
			if o := settingOf(d, s); o.Has() {
				want = append(want, d.ID+" "+o.Option+" (Config."+o.Field+")")
			}
		}
		for _, w := range want {
			if w := strings.Join(strings.Fields(w), " "); !strings.Contains(help, w) {
				t.Errorf("run --help does not say %q of %s", w, d.ID)
			}
		}
	}
}
