// Command auditrepos runs the audit over published skill repositories at
// pinned commits and prints what it finds: per repository and in all,
// how many skills (folders holding a SKILL.md), how many have each
// severity as their highest, how many the threshold (-show, default
// high, the default that blocks) refuses, the findings and skills per
// rule, and every finding at the threshold or above with its skill,
// rule, file, line and excerpt. -json FILE writes the same as JSON. The
// package audit's "Measured" section and bench/README.md hold its
// figures.
//
//	go -C bench run ./auditrepos [-list data/auditrepos.txt] [-show high]
//	    [-cache DIR] [-git-dirs DIR] [-json FILE]
//
// The list holds one repository a line, "owner/name COMMIT" with the
// full 40-digit commit; # starts a comment. Each commit's tree is
// fetched as a user's install fetches it, from GitHub's codeload tarball
// over https (https://codeload.github.com/OWNER/NAME/tar.gz/COMMIT), and
// kept in -cache (default: the user's cache folder,
// agentadaptor-bench/auditrepos), one folder per commit, so a second run
// reads the network no more. -git-dirs DIR reads the commits instead
// from git repositories already fetched (bare or not) at
// DIR/OWNER+NAME/repo, DIR/OWNER+NAME or DIR/OWNER/NAME, with git
// ls-tree and cat-file; a blob the repository lacks (a snapshot without
// its large files) is left out and named. Nothing here runs in CI: it
// needs the network or the fetched repositories.
package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/bench/internal/skilldirs"

	"github.com/agentadaptor/agentadaptor/audit"
)

func main() {
	list := flag.String("list", filepath.Join("data", "auditrepos.txt"), "the file of repositories and commits")
	show := flag.String("show", "high", "the threshold: skills whose highest finding reaches it are counted as refused, and its findings are listed")
	cache := flag.String("cache", defaultCache(), "where fetched trees are kept, one folder per commit")
	gitDirs := flag.String("git-dirs", "", "read the commits from git repositories under this folder instead of fetching them (default: fetch)")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file (default: none)")
	flag.Parse()
	threshold, err := audit.ParseSeverity(*show)
	if err != nil || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go -C bench run ./auditrepos [-list FILE] [-show SEVERITY] [-cache DIR] [-git-dirs DIR] [-json FILE]")
		os.Exit(2)
	}
	if err := run(*list, threshold, *cache, *gitDirs, *jsonOut); err != nil {
		fmt.Fprintln(os.Stderr, "auditrepos:", err)
		os.Exit(1)
	}
}

func defaultCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "agentadaptor-bench", "auditrepos")
}

// pin is one line of the list.
type pin struct {
	Repo   string `json:"repo"`
	Commit string `json:"commit"`
}

var (
	repoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9._-]+$`)
	fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// readList reads the list of repositories.
func readList(name string) ([]pin, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []pin
	for i, l := range strings.Split(string(data), "\n") {
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || !repoName.MatchString(f[0]) || !fullHash.MatchString(f[1]) || strings.Contains(f[0], "..") {
			return nil, fmt.Errorf("%s:%d: want \"owner/name COMMIT\" with the full commit", name, i+1)
		}
		out = append(out, pin{f[0], f[1]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no repository", name)
	}
	return out, nil
}

// Result is what the audit found in one repository, or in all.
type Result struct {
	pin
	// Skills is the count of folders holding a SKILL.md; Failed those
	// the audit could not read.
	Skills int `json:"skills"`
	Failed int `json:"failed"`
	// Clean is the count of skills with no finding; Highest counts the
	// others by their highest severity.
	Clean   int            `json:"clean"`
	Highest map[string]int `json:"highest"`
	// Refused is the count of skills whose highest finding reaches the
	// threshold.
	Refused int `json:"refused"`
	// Rules counts findings (with those a report omits) and skills per
	// rule.
	Rules map[string]*RuleCount `json:"rules"`
	// Missing lists the files the git repository lacks (-git-dirs).
	Missing []string `json:"missing,omitempty"`
}

// RuleCount counts one rule's findings and the skills they are in.
type RuleCount struct {
	Findings int `json:"findings"`
	Skills   int `json:"skills"`
}

// Shown is a finding at the threshold or above.
type Shown struct {
	Repo  string `json:"repo"`
	Skill string `json:"skill"`
	audit.Finding
}

func newResult(p pin) *Result {
	return &Result{pin: p, Highest: map[string]int{}, Rules: map[string]*RuleCount{}}
}

// add counts one skill's report into r.
func (r *Result) add(rep audit.Report, threshold audit.Severity) {
	top, ok := audit.Max(rep.Findings)
	if !ok {
		r.Clean++
		return
	}
	r.Highest[top.String()]++
	if top >= threshold {
		r.Refused++
	}
	seen := map[string]bool{}
	count := func(rule string, n int) {
		c := r.Rules[rule]
		if c == nil {
			c = &RuleCount{}
			r.Rules[rule] = c
		}
		c.Findings += n
		if !seen[rule] {
			seen[rule] = true
			c.Skills++
		}
	}
	for _, f := range rep.Findings {
		count(f.Rule, 1)
	}
	for rule, n := range rep.Omitted {
		count(rule, n)
	}
}

// merge adds o's counts into r.
func (r *Result) merge(o *Result) {
	r.Skills += o.Skills
	r.Failed += o.Failed
	r.Clean += o.Clean
	r.Refused += o.Refused
	for k, v := range o.Highest {
		r.Highest[k] += v
	}
	for k, v := range o.Rules {
		c := r.Rules[k]
		if c == nil {
			c = &RuleCount{}
			r.Rules[k] = c
		}
		c.Findings += v.Findings
		c.Skills += v.Skills
	}
}

// Output is the JSON that -json writes.
type Output struct {
	RulesVersion string    `json:"rules_version"`
	Threshold    string    `json:"threshold"`
	Repos        []*Result `json:"repos"`
	Total        *Result   `json:"total"`
	Findings     []Shown   `json:"findings"`
}

func run(list string, threshold audit.Severity, cache, gitDirs, jsonOut string) error {
	pins, err := readList(list)
	if err != nil {
		return err
	}
	out := Output{RulesVersion: audit.RulesVersion, Threshold: threshold.String(), Total: newResult(pin{})}
	for _, p := range pins {
		dir, missing, err := tree(p, cache, gitDirs)
		if err != nil {
			return fmt.Errorf("%s@%s: %w", p.Repo, p.Commit, err)
		}
		r := newResult(p)
		r.Missing = missing
		skills, err := skilldirs.Under(dir)
		if err != nil {
			return err
		}
		r.Skills = len(skills)
		for _, s := range skills {
			rep, err := audit.Tree(os.DirFS(s))
			rel, _ := filepath.Rel(dir, s)
			rel = filepath.ToSlash(rel)
			if err != nil {
				r.Failed++
				fmt.Fprintf(os.Stderr, "%s %s: %v\n", p.Repo, rel, err)
				continue
			}
			r.add(rep, threshold)
			for _, f := range rep.Findings {
				if f.Severity >= threshold {
					out.Findings = append(out.Findings, Shown{p.Repo, rel, f})
				}
			}
		}
		out.Repos = append(out.Repos, r)
		out.Total.merge(r)
	}
	writeText(os.Stdout, out)
	if jsonOut != "" {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(jsonOut, append(b, '\n'), 0o644)
	}
	return nil
}

// writeText prints out as Markdown tables and a list.
func writeText(w io.Writer, out Output) {
	sevs := []audit.Severity{audit.Critical, audit.High, audit.Medium, audit.Low, audit.Info}
	fmt.Fprintf(w, "rules version %s; refused: highest finding at %s or above\n\n", out.RulesVersion, out.Threshold)
	fmt.Fprintln(w, "| repository | commit | skills | no finding | critical | high | medium | low | info | refused |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	row := func(name, commit string, r *Result) {
		fmt.Fprintf(w, "| %s | %s | %d | %d |", name, commit, r.Skills, r.Clean)
		for _, s := range sevs {
			fmt.Fprintf(w, " %d |", r.Highest[s.String()])
		}
		fmt.Fprintf(w, " %d |\n", r.Refused)
	}
	for _, r := range out.Repos {
		row(r.Repo, r.Commit[:12], r)
	}
	row("all", "", out.Total)
	t := out.Total
	fmt.Fprintf(w, "\nskills: %d, not audited: %d, refused: %d (%s)\n", t.Skills, t.Failed, t.Refused, percent(t.Refused, t.Skills-t.Failed))
	for _, r := range out.Repos {
		for _, m := range r.Missing {
			fmt.Fprintf(w, "left out (not in the git repository): %s %s\n", r.Repo, m)
		}
	}
	fmt.Fprintln(w, "\n| rule | severity | findings | skills |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: |")
	for _, rule := range audit.Rules() {
		if c := t.Rules[rule.ID]; c != nil {
			fmt.Fprintf(w, "| %s | %s | %d | %d |\n", rule.ID, rule.Severity, c.Findings, c.Skills)
		}
	}
	if len(out.Findings) > 0 {
		fmt.Fprintf(w, "\nfindings at %s or above:\n", out.Threshold)
		for _, f := range out.Findings {
			fmt.Fprintf(w, "%s %s\t%s %s\t%s:%d\t%s\n", f.Repo, audit.Escape(f.Skill), f.Severity, f.Rule, audit.Escape(f.File), f.Line, f.Excerpt)
		}
	}
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 2, 64) + "%"
}

// tree returns the folder holding p's tree, fetching it into cache when
// it is not there yet, and the files left out of it.
func tree(p pin, cache, gitDirs string) (string, []string, error) {
	dir := filepath.Join(cache, strings.ReplaceAll(p.Repo, "/", "+")+"@"+p.Commit)
	missingFile := dir + ".missing"
	if _, err := os.Stat(dir); err == nil {
		var missing []string
		if b, err := os.ReadFile(missingFile); err == nil {
			missing = strings.Fields(string(b))
		}
		return dir, missing, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", nil, err
	}
	stage, err := os.MkdirTemp(cache, ".stage-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(stage)
	root, err := os.OpenRoot(stage)
	if err != nil {
		return "", nil, err
	}
	defer root.Close()
	var missing []string
	if gitDirs != "" {
		gitDir, err := findGitDir(gitDirs, p.Repo)
		if err != nil {
			return "", nil, err
		}
		missing, err = fromGit(root, gitDir, p.Commit)
		if err != nil {
			return "", nil, err
		}
	} else if err := fromCodeload(root, codeload, p); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(missingFile, []byte(strings.Join(missing, "\n")), 0o644); err != nil {
		return "", nil, err
	}
	if err := os.Rename(stage, dir); err != nil {
		// Another run that published the same commit's tree first won.
		if _, serr := os.Stat(dir); serr != nil {
			return "", nil, err
		}
	}
	return dir, missing, nil
}

// findGitDir finds repo's git repository under dir.
func findGitDir(dir, repo string) (string, error) {
	owner, name, _ := strings.Cut(repo, "/")
	for _, c := range []string{
		filepath.Join(dir, owner+"+"+name, "repo"),
		filepath.Join(dir, owner+"+"+name),
		filepath.Join(dir, owner, name),
		filepath.Join(dir, owner, name+".git"),
	} {
		if exec.Command("git", "--git-dir", c, "rev-parse", "--git-dir").Run() == nil {
			return c, nil
		}
		if exec.Command("git", "--git-dir", filepath.Join(c, ".git"), "rev-parse", "--git-dir").Run() == nil {
			return filepath.Join(c, ".git"), nil
		}
	}
	return "", fmt.Errorf("no git repository of %s under %s", repo, dir)
}

// fromGit writes commit's tree from the git repository gitDir into root,
// and returns the paths of the blobs it lacks.
func fromGit(root *os.Root, gitDir, commit string) ([]string, error) {
	ls, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "-z", "--full-tree", commit).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %w", commit, err)
	}
	type entry struct{ mode, hash, name string }
	var entries []entry
	for _, rec := range strings.Split(strings.TrimSuffix(string(ls), "\x00"), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected %q", rec)
		}
		if f[1] != "blob" {
			continue // a submodule
		}
		entries = append(entries, entry{f[0], f[2], name})
	}
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, e := range entries {
			fmt.Fprintln(w, e.hash)
		}
		w.Flush()
		in.Close()
	}()
	r := bufio.NewReader(stdout)
	var missing []string
	for _, e := range entries {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		f := strings.Fields(head)
		if len(f) == 2 && f[1] == "missing" {
			missing = append(missing, e.name)
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: unexpected %q", head)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, err
		}
		if err := write(root, e.name, e.mode, io.LimitReader(r, size)); err != nil {
			return nil, err
		}
		if _, err := r.Discard(1); err != nil { // the newline after the content
			return nil, err
		}
	}
	return missing, cmd.Wait()
}

// codeload serves a GitHub commit's tree as a tarball.
const codeload = "https://codeload.github.com"

// fromCodeload downloads p's tarball from base (codeload) and writes its
// tree into root.
func fromCodeload(root *os.Root, base string, p pin) error {
	url := base + "/" + p.Repo + "/tar.gz/" + p.Commit
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	gz, err := gzip.NewReader(resp.Body)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		// Each name is under one top folder, NAME-COMMIT/.
		_, name, ok := strings.Cut(h.Name, "/")
		if !ok || name == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeReg:
			mode := "100644"
			if h.Mode&0o111 != 0 {
				mode = "100755"
			}
			err = write(root, strings.TrimSuffix(name, "/"), mode, tr)
		case tar.TypeSymlink:
			err = write(root, strings.TrimSuffix(name, "/"), "120000", strings.NewReader(h.Linkname))
		}
		if err != nil {
			return err
		}
	}
}

// write writes one file of a tree, by its git mode: a link (120000),
// whose content is its target, a program (100755) or a file.
func write(root *os.Root, name, mode string, content io.Reader) error {
	if !fs.ValidPath(name) || name == "." {
		return fmt.Errorf("%q: not a valid path in a tree", name)
	}
	if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
		return err
	}
	if mode == "120000" {
		target, err := io.ReadAll(content)
		if err != nil {
			return err
		}
		return root.Symlink(string(target), name)
	}
	perm := os.FileMode(0o644)
	if mode == "100755" {
		perm = 0o755
	}
	f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, content)
	return errors.Join(err, f.Close())
}
