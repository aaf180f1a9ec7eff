package audit_test

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/audit"
)

// withScripts is a skill whose SKILL.md holds body, and that bundles
// programs to run: scripts by their #! line or name, a file with an
// executable bit, a native program, and files that are none of these.
func withScripts(body string, more ...string) fstest.MapFS {
	m := fstest.MapFS{
		"SKILL.md":               {Data: []byte(front + body)},
		"scripts/x.sh":           {Data: []byte("#!/bin/bash\necho x\n")},
		"scripts/fill.py":        {Data: []byte("print('fill')\n")},
		"scripts/env.py":         {Data: []byte("#!/usr/bin/env -S python3 -u\nprint('env')\n")},
		"scripts/build.js":       {Data: []byte("console.log(1)\n")},
		"scripts/tool.ts":        {Data: []byte("console.log(1)\n")},
		"scripts/uvrun.py":       {Data: []byte("#!/usr/bin/env -S uv run --script\nprint(1)\n")},
		"bin/tool":               {Data: []byte("echo tool\n"), Mode: 0o755},
		"scripts/exec.py":        {Data: []byte("#!/usr/bin/env python3\nprint(1)\n"), Mode: 0o755},
		"bin/helper":             {Data: elf(), Mode: 0o755},
		"run.sh":                 {Data: []byte("#!/bin/sh\necho run\n")},
		"configure.txt":          {Data: []byte("not a program\n")},
		"references/api.md":      {Data: []byte("# API\n")},
		"references/local.sh":    {Data: []byte("echo local\n")},
		"scripts/data/input.csv": {Data: []byte("a,b\n")},
	}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i]] = &fstest.MapFile{Data: []byte(more[i+1]), Mode: 0o644}
	}
	return m
}

// runFindings returns the direct-run findings of Tree's report of fsys.
func runFindings(t *testing.T, fsys fstest.MapFS) []audit.Finding {
	t.Helper()
	got, err := treeFindings(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var runs []audit.Finding
	for _, f := range got {
		if f.Rule == "direct-run" {
			runs = append(runs, f)
		}
	}
	return runs
}

// bashBlock is a Markdown bash block of lines.
func bashBlock(lines ...string) string {
	return "Run:\n\n```bash\n" + strings.Join(lines, "\n") + "\n```\n"
}

// TestDirectRun checks rule 23: commands that run a program of the
// skill by its path are found, with the interpreter to write instead,
// and interpreters' arguments, mentions, paths that are not the
// skill's programs and what the rule does not read are not.
func TestDirectRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		want string // what the finding's message says to write; "" for no finding
	}{
		// Found, in a shell's block.
		{"./ in a bash block", withScripts(bashBlock("./scripts/x.sh --all")), "write bash ./scripts/x.sh"},
		{"bare with arguments", withScripts(bashBlock("scripts/fill.py --in a.pdf")), "write python3 scripts/fill.py"},
		{"bare alone in a shell's block", withScripts(bashBlock("scripts/x.sh")), "write bash scripts/x.sh"},
		{"sh block", withScripts("```sh\nscripts/x.sh\n```\n"), "write bash scripts/x.sh"},
		{"console block with a prompt", withScripts("```console\n$ ./scripts/x.sh\nok\n```\n"), "write bash ./scripts/x.sh"},
		{"tilde fence", withScripts("~~~shell\n./run.sh\n~~~\n"), "write sh ./run.sh"},
		{"env's #! line and its options", withScripts(bashBlock("./scripts/env.py")), "write python3 ./scripts/env.py"},
		{"#! line of a program not known", withScripts(bashBlock("./scripts/uvrun.py")), "write python3 ./scripts/uvrun.py"},
		{"node by the name", withScripts(bashBlock("scripts/build.js --prod")), "write node scripts/build.js"},
		{"interpreter not known", withScripts(bashBlock("./scripts/tool.ts")), "run it through its interpreter"},
		{"executable bit", withScripts(bashBlock("./bin/tool")), "run it through its interpreter"},
		{"native program", withScripts(bashBlock("./bin/helper --version")), "a native program cannot run there"},
		{"at the root", withScripts(bashBlock("./run.sh")), "write sh ./run.sh"},
		{"$SKILL_DIR", withScripts(bashBlock("$SKILL_DIR/scripts/x.sh a")), `write bash "$SKILL_DIR/scripts/x.sh"`},
		{"single quotes", withScripts(bashBlock("'./scripts/x.sh' a")), "write bash ./scripts/x.sh"},
		{"${CLAUDE_SKILL_DIR} quoted", withScripts(bashBlock(`"${CLAUDE_SKILL_DIR}/scripts/fill.py" --in a.pdf`)), `write python3 "${CLAUDE_SKILL_DIR}/scripts/fill.py"`},
		{"${VAR:-.}", withScripts(bashBlock("${SKILL_DIR:-.}/scripts/x.sh")), "write bash"},
		{"{baseDir}", withScripts(bashBlock("{baseDir}/scripts/x.sh")), "write bash {baseDir}/scripts/x.sh"},
		{"after &&", withScripts(bashBlock("mkdir -p out && ./scripts/x.sh out")), "write bash"},
		{"after ||", withScripts(bashBlock("test -f a || scripts/x.sh")), "write bash"},
		{"after ;", withScripts(bashBlock("cd . ; scripts/x.sh")), "write bash"},
		{"after a pipe", withScripts(bashBlock("cat a.pdf | ./scripts/fill.py")), "write python3"},
		{"in $( )", withScripts(bashBlock(`out="$(pwd)"; echo $(./scripts/x.sh)`)), "write bash"},
		{"after an assignment of a substitution", withScripts(bashBlock("SKILL_DIR=$(pwd) scripts/x.sh")), "write bash"},
		{"in backticks", withScripts(bashBlock("echo `./scripts/x.sh`")), "write bash"},
		{"in a subshell", withScripts(bashBlock("(cd /tmp; echo) && (./scripts/x.sh)")), "write bash"},
		{"after sudo and its options", withScripts(bashBlock("sudo -E ./scripts/x.sh")), "write bash"},
		{"after env and assignments", withScripts(bashBlock("env -i FOO=1 ./scripts/x.sh")), "write bash"},
		{"after timeout and a duration", withScripts(bashBlock("timeout 30s ./scripts/x.sh")), "write bash"},
		{"after an assignment", withScripts(bashBlock("DEBUG=1 scripts/x.sh")), "write bash"},
		{"after if", withScripts(bashBlock("if ./scripts/x.sh; then echo ok; fi")), "write bash"},
		{"after exec", withScripts(bashBlock("exec ./scripts/x.sh")), "write bash"},
		{"after xargs", withScripts(bashBlock("ls *.pdf | xargs -n1 ./scripts/fill.py")), "write python3"},
		{"PowerShell's call operator", withScripts(bashBlock("& ./scripts/x.sh")), "write bash"},
		{"after a cd into the skill", withScripts(bashBlock("cd scripts && ./x.sh")), "write bash ./x.sh"},
		{"after a cd to the skill's folder", withScripts(bashBlock(`cd "$SKILL_DIR" && ./scripts/x.sh`)), "write bash"},
		{"after a cd to a folder of the skill's", withScripts(bashBlock(`cd "${SKILL_DIR}/scripts" && ./x.sh`)), "write bash ./x.sh"},
		{"a cd in a subshell is undone", withScripts(bashBlock("(cd /tmp && make) && ./run.sh")), "write sh ./run.sh"},
		{"a path with a dot folder", withScripts(bashBlock("./scripts/../scripts/x.sh")), "write bash"},
		{"block without an info string, ./", withScripts("```\n./scripts/x.sh\n```\n"), "write bash"},
		{"block without an info string, arguments", withScripts("```\nscripts/fill.py --in a.pdf\n```\n"), "write python3"},
		{"block without an info string, a prompt", withScripts("```\n$ scripts/x.sh\n```\n"), "write bash"},
		{"after && on a continued line", withScripts(bashBlock(`echo start \`, "  && ./scripts/x.sh --all")), "write bash"},
		{"after a pipe on a continued line", withScripts(bashBlock(`cat in.txt \`, "  | ./scripts/x.sh")), "write bash"},
		{"a variable of the skill in lower case", withScripts(bashBlock("$skill_root/scripts/x.sh")), "write bash"},
		// Found, in inline code.
		{"inline code with ./", withScripts("Then run `./scripts/x.sh`.\n"), "write bash ./scripts/x.sh"},
		{"inline code with arguments", withScripts("Then run `scripts/fill.py --in a.pdf` on it.\n"), "write python3 scripts/fill.py"},
		{"inline code after run, executable", withScripts("Run `bin/tool`.\n"), "run it through its interpreter"},
		{"inline code after execute:, executable", withScripts("1. Then execute: `scripts/exec.py`\n"), "write python3 scripts/exec.py"},
		{"inline code after run, ./", withScripts("Run `./scripts/x.sh`.\n"), "write bash ./scripts/x.sh"},
		{"inline code with a variable", withScripts("Run `${CLAUDE_SKILL_DIR}/scripts/x.sh` first.\n"), "write bash"},
		{"inline code in a table", withScripts("| step | command |\n|---|---|\n| 1 | `./scripts/x.sh --all` |\n"), "write bash"},
		{"double backticks", withScripts("Run ``./scripts/x.sh --tick ` `` now.\n"), "write bash"},
		{"second inline code of a line", withScripts("Use `ls` and then `./scripts/x.sh`.\n"), "write bash"},
		{"from the Markdown file's folder", withScripts("See references/guide.md.\n", "references/guide.md", "Run `../scripts/x.sh a`.\n"), "write bash ../scripts/x.sh"},
		{"beside the Markdown file", withScripts("See references/guide.md.\n", "references/guide.md", "Run `./local.sh`.\n"), "write bash ./local.sh"},
		{"in a text file", withScripts("See notes.txt.\n", "notes.txt", "Run `./scripts/x.sh`.\n"), "write bash"},
		// Interpreters, and what runs nothing.
		{"bash", withScripts(bashBlock("bash scripts/x.sh --all")), ""},
		{"sh with ./", withScripts(bashBlock("sh ./scripts/x.sh")), ""},
		{"python3", withScripts(bashBlock("python3 scripts/fill.py --in a.pdf")), ""},
		{"node", withScripts(bashBlock("node scripts/build.js")), ""},
		{"uv run", withScripts(bashBlock("uv run scripts/fill.py")), ""},
		{"sudo bash", withScripts(bashBlock("sudo bash ./scripts/x.sh")), ""},
		{"source", withScripts(bashBlock("source scripts/x.sh")), ""},
		{"dot", withScripts(bashBlock(". ./scripts/x.sh")), ""},
		{"chmod", withScripts(bashBlock("chmod +x scripts/x.sh")), ""},
		{"an argument", withScripts(bashBlock("echo ./scripts/x.sh")), ""},
		{"a redirection's target", withScripts(bashBlock("cat a > ./scripts/x.sh")), ""},
		{"interpreter in inline code", withScripts("Run `bash scripts/x.sh`.\n"), ""},
		{"assignment's value", withScripts(bashBlock("RUN=./scripts/x.sh")), ""},
		{"a substitution's output as the command", withScripts(bashBlock("$(which python3) scripts/fill.py")), ""},
		// Mentions.
		{"prose", withScripts("Run ./scripts/x.sh to start, or scripts/fill.py --in a.pdf.\n"), ""},
		{"a link", withScripts("See [the script](./scripts/x.sh).\n"), ""},
		{"inline code, bare and alone", withScripts("Fill it with `scripts/fill.py`.\n"), ""},
		{"inline code after run, not executable", withScripts("Run `scripts/x.sh` (or `scripts/fill.py`).\n"), ""},
		{"inline code, bare and alone, after use", withScripts("Use `scripts/fill.py` to fill it; rerun `scripts/x.sh` later.\n"), ""},
		{"inline code, bare, before a comment", withScripts("Use `scripts/fill.py # fills`.\n"), ""},
		{"listing without an info string", withScripts("```\nSKILL.md\nscripts/x.sh\nscripts/fill.py   # fills forms\n```\n"), ""},
		{"python block", withScripts("```python\nscripts/x.sh\n./scripts/x.sh a\n```\n"), ""},
		{"text block", withScripts("```text\n./scripts/x.sh --all\n```\n"), ""},
		{"HTML comment", withScripts("<!-- `./scripts/x.sh` -->\n"), ""},
		{"HTML comment in a block's place", withScripts("<!--\n./scripts/x.sh\n-->\n"), ""},
		{"a comment", withScripts(bashBlock("# ./scripts/x.sh", "echo hi # then ./scripts/x.sh")), ""},
		{"a continued line", withScripts(bashBlock(`docker run --rm \`, `  ./scripts/x.sh`)), ""},
		{"unclosed inline code", withScripts("Run `./scripts/x.sh\n"), ""},
		// Not the skill's program.
		{"not bundled", withScripts(bashBlock("./scripts/missing.sh")), ""},
		{"another project's configure", withScripts(bashBlock("./configure && make")), ""},
		{"a file that is no program", withScripts(bashBlock("./configure.txt", "./references/api.md", "scripts/data/input.csv --x")), ""},
		{"a folder", withScripts(bashBlock("./scripts", "./scripts/ a")), ""},
		{"a URL", withScripts(bashBlock("https://example.com/scripts/x.sh --all"), "Run `https://x.dev/scripts/x.sh a`.\n"), ""},
		{"absolute", withScripts(bashBlock("/scripts/x.sh", "/usr/local/bin/tool")), ""},
		{"home", withScripts(bashBlock("~/scripts/x.sh", "$HOME/scripts/x.sh a", "${TMPDIR}/run.sh")), ""},
		{"a variable of another folder", withScripts(bashBlock("$PROJECT_ROOT/scripts/x.sh", `"$GITHUB_WORKSPACE/scripts/x.sh" --all`,
			"$1/scripts/x.sh", "${WORKDIR}/run.sh a"), "Run `$REPO/scripts/x.sh`.\n"), ""},
		{"an argument on a continued line", withScripts(bashBlock(`docker run --rm \`, `  -v x:y \`, "  ./scripts/x.sh")), ""},
		{"leaving the tree", withScripts(bashBlock("../scripts/x.sh", "./../run.sh")), ""},
		{"a glob", withScripts(bashBlock("./scripts/*.sh")), ""},
		{"quotes in the file's name", withScripts(bashBlock(`./scripts/x".sh"`, `./scripts/'x'.sh`)), ""},
		{"a path that ends in . or ..", withScripts(bashBlock("./scripts/x.sh/.", "./run.sh/..")), ""},
		{"another variable inside", withScripts(bashBlock("./scripts/$NAME.sh")), ""},
		{"after a cd elsewhere", withScripts(bashBlock("cd /tmp && ./run.sh")), ""},
		{"after a cd to another variable", withScripts(bashBlock("cd $WORK && ./run.sh")), ""},
		{"no program in the skill", tree(bashBlock("./scripts/x.sh"), "scripts/x.sh.txt", "x"), ""},
		// Not read.
		{"a script", withScripts("Use the scripts.\n", "scripts/all.sh", "#!/bin/sh\n./scripts/x.sh\n`./scripts/x.sh`\n"), ""},
		{"a #! file read as Markdown", withScripts("Use the scripts.\n", "scripts/all", "#!/bin/sh\nx=`./scripts/x.sh a`\n"), ""},
		{"YAML", withScripts("Use the scripts.\n", "config.yaml", "run: `./scripts/x.sh`\n"), ""},
		{"a line of 4 KiB", withScripts(bashBlock("./scripts/x.sh " + strings.Repeat("a", 4096))), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runFindings(t, tc.fs)
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("Tree = %s, want no direct-run finding", describeRuns(got))
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0].Message, tc.want) || got[0].Severity != audit.Low ||
				!strings.Contains(got[0].Message, "noexec") {
				t.Errorf("Tree = %s, want one low direct-run finding saying %q and why", describeRuns(got), tc.want)
			}
		})
	}
}

func describeRuns(fs []audit.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s:%d %q: %s", f.Severity, f.File, f.Line, f.Excerpt, f.Message)
	}
	return b.String()
}

// TestDirectRunFindings checks what a finding of rule 23 holds: its
// file, line and excerpt, one finding of a line, and the findings of a
// file in order.
func TestDirectRunFindings(t *testing.T) {
	fsys := withScripts("Run `./scripts/missing.sh` or `./scripts/x.sh` and `./run.sh`.\n"+bashBlock("ls", "./run.sh"),
		"references/guide.md", "# Guide\n\n`../run.sh a`\n")
	got := runFindings(t, fsys)
	type at struct {
		file    string
		line    int
		excerpt string
	}
	var where []at
	for _, f := range got {
		where = append(where, at{f.File, f.Line, f.Excerpt})
	}
	want := []at{
		{"SKILL.md", 5, "Run `./scripts/missing.sh` or `./scripts/x.sh` and `./run.sh`."},
		{"SKILL.md", 10, "./run.sh"},
		{"references/guide.md", 3, "`../run.sh a`"},
	}
	if !slices.Equal(where, want) {
		t.Errorf("Tree = %s, want %v", describeRuns(got), want)
	}
	if len(got) > 0 && !strings.Contains(got[0].Message, "./scripts/x.sh") {
		t.Errorf("first finding %q, want the path of the program, not of the missing file", got[0].Message)
	}
}

// manyRuns is a skill whose SKILL.md runs, at lines of its own, n paths
// that are not the skill's and then one program of it.
func manyRuns(n int) fstest.MapFS {
	var b strings.Builder
	b.WriteString("```bash\n")
	for i := range n {
		fmt.Fprintf(&b, "./missing/%d.sh\n", i)
	}
	b.WriteString("./scripts/x.sh\n```\n")
	return withScripts(b.String())
}

// TestDirectRunLimit checks rule 23's limit: the first 1,000 paths run
// of a tree are held until its programs are known, and a program run
// past them is not found, by Tree (with one goroutine or several) and
// by a Scanner alike.
func TestDirectRunLimit(t *testing.T) {
	for _, tc := range []struct {
		before int
		found  bool
	}{{999, true}, {1000, false}} {
		t.Run(fmt.Sprint(tc.before), func(t *testing.T) {
			fsys := manyRuns(tc.before)
			if got := runFindings(t, fsys); (len(got) == 1) != tc.found || len(got) > 1 {
				t.Errorf("Tree after %d paths run = %s, want found %v", tc.before, describeRuns(got), tc.found)
			}
			sameAsTree(t, fsys, ".")
			sameAsOneKeeper(t, fsys)
		})
	}
	t.Run("across files", func(t *testing.T) {
		fsys := withScripts("Use the scripts.\n")
		fsys["docs/a.md"] = &fstest.MapFile{Data: []byte(strings.Repeat("`./missing/x.sh`\n", 600))}
		fsys["docs/b.md"] = &fstest.MapFile{Data: []byte(strings.Repeat("`./missing/x.sh`\n", 400) + "`./scripts/x.sh`\n")}
		fsys["docs/c.md"] = &fstest.MapFile{Data: []byte("`./run.sh`\n")}
		if got := runFindings(t, fsys); len(got) != 0 {
			t.Errorf("Tree = %s, want none: docs/b.md's program and docs/c.md's are past the first 1,000 paths", describeRuns(got))
		}
		sameAsTree(t, fsys, ".")
		sameAsOneKeeper(t, fsys)
	})
	// The SKILL.md's paths are held whatever the files before it run
	// (README.md comes before it), and count against no other file's.
	t.Run("SKILL.md apart", func(t *testing.T) {
		fsys := manyRuns(999)
		fsys["README.md"] = &fstest.MapFile{Data: []byte(bashBlock(strings.Repeat("./gradlew build\n", 1000)))}
		fsys["docs/more.md"] = &fstest.MapFile{Data: []byte(bashBlock("./run.sh"))}
		got := runFindings(t, fsys)
		if len(got) != 1 || got[0].File != "SKILL.md" {
			t.Errorf("Tree = %s, want SKILL.md's program only: README.md's 1,000 paths are the first of the other files", describeRuns(got))
		}
		sameAsTree(t, fsys, ".")
		sameAsOneKeeper(t, fsys)
	})
}

// TestScannerDirectRunHeld checks rule 4 of Scanner for rule 23: the
// paths run held count apart from the findings, so that files outside
// a skill's folder that run many paths neither fail its report nor
// change it, and past 10,000 of them only rule 23's findings of the
// paths dropped are missed.
func TestScannerDirectRunHeld(t *testing.T) {
	many := "```bash\n" + strings.Repeat("./gradlew build\n", 1000) + "```\n"
	repo := func(docs int) fstest.MapFS {
		fsys := fstest.MapFS{}
		for k, v := range withScripts(bashBlock("bash scripts/x.sh", "./scripts/x.sh")) {
			fsys["skills/a/"+k] = v
		}
		fsys["skills/a/docs/use.md"] = &fstest.MapFile{Data: []byte(bashBlock("./run.sh"))}
		for i := range docs {
			fsys[fmt.Sprintf("docs/guide%d.md", i)] = &fstest.MapFile{Data: []byte(many)}
		}
		return fsys
	}
	fsys := repo(9)
	for _, dir := range []string{"skills/a", "."} {
		sameAsTree(t, fsys, dir)
	}
	if got, err := audit.Tree(mustSub(t, fsys, "skills/a")); err != nil || len(runsOf(got.Findings)) != 2 {
		t.Errorf("Tree(skills/a) = %s, %v; want two findings", describeRuns(runsOf(got.Findings)), err)
	}

	// Past 10,000 paths held: the files given first hold them.
	fsys = repo(11)
	s := audit.NewScanner()
	given := []string{"docs/guide0.md", "docs/guide1.md", "docs/guide2.md", "docs/guide3.md", "docs/guide4.md",
		"docs/guide5.md", "docs/guide6.md", "docs/guide7.md", "docs/guide8.md", "docs/guide9.md", "docs/guide10.md",
		"skills/a/docs/use.md", "skills/a/SKILL.md", "skills/a/run.sh", "skills/a/scripts/x.sh"}
	for _, name := range given {
		f := fsys[name]
		w := s.File(name, f.Mode, int64(len(f.Data)))
		w.Write(f.Data)
		w.Close()
	}
	for name := range fsys {
		if strings.HasPrefix(name, "skills/a/") && !slices.Contains(given, name) {
			f := fsys[name]
			w := s.File(name, f.Mode, int64(len(f.Data)))
			w.Write(f.Data)
			w.Close()
		}
	}
	got, err := s.Report("skills/a")
	if err != nil {
		t.Fatalf("Scanner.Report(skills/a) past 10,000 paths held: %v, want rule 23's paths alone dropped", err)
	}
	want, err := audit.Tree(mustSub(t, fsys, "skills/a"))
	if err != nil {
		t.Fatal(err)
	}
	if r := runsOf(got.Findings); len(r) != 1 || r[0].File != "SKILL.md" {
		t.Errorf("Scanner.Report(skills/a) past 10,000 paths held = %s, want SKILL.md's finding alone (docs/use.md's paths dropped)", describeRuns(r))
	}
	if fmt.Sprint(others(got.Findings)) != fmt.Sprint(others(want.Findings)) || len(runsOf(want.Findings)) != 2 {
		t.Errorf("Scanner.Report(skills/a) past 10,000 paths held: other findings %v, Tree's %v (and %d of rule 23)",
			others(got.Findings), others(want.Findings), len(runsOf(want.Findings)))
	}
}

// runsOf returns the findings of rule 23 of fs, and others the rest.
func runsOf(fs []audit.Finding) []audit.Finding {
	return slices.DeleteFunc(slices.Clone(fs), func(f audit.Finding) bool { return f.Rule != "direct-run" })
}

func others(fs []audit.Finding) []audit.Finding {
	return slices.DeleteFunc(slices.Clone(fs), func(f audit.Finding) bool { return f.Rule == "direct-run" })
}

func mustSub(t *testing.T, f fs.FS, dir string) fs.FS {
	t.Helper()
	s, err := fs.Sub(f, dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScannerDirectRun checks that a Scanner reports rule 23 as Tree
// does: for the whole tree and for one skill's folder, whose programs
// and paths are then its own, and under the caps, where rule 23's
// findings come after the others'.
func TestScannerDirectRun(t *testing.T) {
	m := fstest.MapFS{}
	for _, skill := range []string{"a", "b", "b/c"} {
		for name, f := range withScripts(bashBlock("./scripts/x.sh", "./run.sh", "./"+skill+"/run.sh"),
			"references/guide.md", "`../run.sh a`\n") {
			m[skill+"/"+name] = f
		}
	}
	m["a/only-a.sh"] = &fstest.MapFile{Data: []byte("#!/bin/sh\n")}
	m["b/SKILL.md"].Data = append(m["b/SKILL.md"].Data, "\n`./only-a.sh`\n`./a/only-a.sh`\n"...)
	for _, dir := range []string{".", "a", "b", "b/c"} {
		t.Run(dir, func(t *testing.T) {
			sameAsTree(t, m, dir)
		})
	}
	t.Run("goroutines", func(t *testing.T) {
		sameAsOneKeeper(t, m)
	})
	t.Run("many programs", func(t *testing.T) {
		// Past 64 programs' names Tree reads every Markdown file again.
		m := withScripts("`./scripts/x.sh`\n", "notes.md", "`./bin/p7.sh` and `./bin/p69.sh`\n", "other.md", "`ls`\n")
		for i := range 70 {
			m[fmt.Sprintf("bin/p%d.sh", i)] = &fstest.MapFile{Data: []byte("#!/bin/sh\n")}
		}
		if got := runFindings(t, m); len(got) != 2 {
			t.Errorf("Tree = %s, want two findings", describeRuns(got))
		}
		sameAsTree(t, m, ".")
	})
	t.Run("caps", func(t *testing.T) {
		for _, n := range []int{50, 150} {
			var b strings.Builder
			for range n {
				b.WriteString("`./scripts/x.sh`\n")
			}
			caps := manyRules(n)
			for name, f := range withScripts(b.String()) {
				caps["s/"+name] = f
			}
			sameAsTree(t, caps, ".")
			sameAsTree(t, caps, "s")
		}
	})
}

// FuzzDirectRun checks rule 23 on any text: the audit does not fail, a
// Scanner reports what Tree does, and a finding names a line of the
// file and stays within the caps of a message and an excerpt.
func FuzzDirectRun(f *testing.F) {
	for _, seed := range []string{
		bashBlock("./scripts/x.sh --all", `SKILL_DIR=$(pwd) "$SKILL_DIR/scripts/x.sh"`, "(cd scripts && ./x.sh) | ./run.sh"),
		"Run `./scripts/x.sh` and ``scripts/fill.py --in ` ``.\n",
		bashBlock(`echo "$(./scripts/x.sh)" 'a\' \`, `x=$($(./run.sh)) ${A:-$(./run.sh)}/scripts/x.sh`),
		bashBlock("((((((((((./run.sh))))))))))", "$($($($($($($($($(./run.sh)))))))))"),
		"```\n$ scripts/x.sh\n~~~\n```sh\n{baseDir}/run.sh\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m := withScripts(text, "references/guide.md", text)
		got := runFindings(t, m)
		lines := strings.Count(front+text, "\n") + 1
		for _, r := range got {
			if r.Line < 1 || r.Line > lines || len([]rune(r.Message)) > 200 || len([]rune(r.Excerpt)) > 160 {
				t.Errorf("finding %+v, of a file of %d lines", r, lines)
			}
		}
		sameAsTree(t, m, ".")
		sameAsOneKeeper(t, m)
	})
}
