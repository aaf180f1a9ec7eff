//go:build linux

// Command updatecorpus runs `agentskills outdated` and `agentskills update`
// over published skill repositories and checks what they report against
// git. For each repository folder given (a bare mirror or any git
// repository), in a scratch folder, it:
//
//  1. clones it bare and points a branch at an older commit: the newest
//     commit at least -days (60) days older than HEAD, or HEAD~-back (20)
//     when the history is younger (it prints which);
//  2. runs `agentskills add git+file://CLONE#ref=BRANCH --lenient -y
//     --agent claude-code,codex` (every skill), in a fresh project with a
//     fresh HOME and skill cache;
//  3. moves the branch to HEAD and runs, timing each: `outdated --json`
//     (counting current, moved, changed and unavailable skills), `update
//     --dry-run --json --lenient` (counting the skills and files added,
//     removed and changed), `update --json --lenient`, `verify`, and
//     `outdated --json` again, which must find every skill current and
//     exit 0. A skill gone from HEAD (no SKILL.md in its folder, or one
//     naming another skill) must be reported changed by outdated and
//     fail `update` of every skill, changing nothing; the others are then
//     updated by name, and the gone ones removed before outdated runs
//     again;
//  4. computes the truth with git, per installed skill: `git diff
//     --no-renames --name-status OLD HEAD -- SUBPATH`, and reports every
//     skill where outdated's state, or the files update lists, disagree
//     with it.
//
// A mirror that lacks blobs (large files left out of a snapshot) is
// installed from two new commits, the trees of OLD and HEAD less those
// files, which it prints.
//
// It prints one line per disagreement and a table, one row per
// repository, in Markdown:
//
//	go -C bench run ./updatecorpus [-days 60] [-back 20] [-dir SCRATCH] REPO...
//
// It builds agentskills from this checkout, so the commands are the CLI
// a user runs. It exits 1 when a
// command failed or anything disagreed.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/bench/internal/benchrun"
)

// branch is the branch of each clone that the skills are installed from.
const branch = "updatecorpus"

func main() {
	days := flag.Int("days", 60, "install from the newest commit at least this many days older than HEAD")
	back := flag.Int("back", 20, "when the history is younger than -days, install from HEAD~back (at most the first commit)")
	scratch := flag.String("dir", filepath.Join(os.TempDir(), "agentadaptor-updatecorpus"), "scratch folder (emptied first)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go -C bench run ./updatecorpus [flags] REPO...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*scratch, *days, *back, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "updatecorpus:", err)
		os.Exit(1)
	}
}

// result is one repository's row.
type result struct {
	name                     string
	from                     string // how the old commit was chosen
	skills                   int    // installed
	gitChanged               int    // skills whose folder git says changed
	gitGone                  int    // skills whose folder is gone at HEAD
	states                   map[string]int
	added, removed, modified int // files, as update --dry-run lists them
	disagree                 int
	tOutdated, tUpdate       time.Duration
	tDry                     time.Duration
	err                      error
}

func run(scratch string, days, back int, repos []string) error {
	if err := os.RemoveAll(scratch); err != nil {
		return err
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	bin := filepath.Join(scratch, "agentskills")
	if err := benchrun.BuildAgentskills(bin); err != nil {
		return err
	}
	var results []result
	failed := false
	for i, src := range repos {
		name := repoName(src)
		r := one(bin, filepath.Join(scratch, strconv.Itoa(i)), src, name, days, back)
		if r.err != nil {
			fmt.Printf("%s: FAILED: %v\n", name, r.err)
			failed = true
		}
		if r.disagree > 0 {
			failed = true
		}
		results = append(results, r)
	}
	fmt.Println()
	fmt.Println("| repository | from | skills | changed (git), of them gone | outdated: changed / moved / other | agree | files added / removed / changed | outdated | update --dry-run | update |")
	fmt.Println("| --- | --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: |")
	for _, r := range results {
		agree := "yes"
		if r.disagree > 0 {
			agree = fmt.Sprintf("%d differ", r.disagree)
		}
		if r.err != nil {
			agree = "failed"
		}
		other := 0 // current, unavailable, refused, unknown
		for state, n := range r.states {
			if state != "changed" && state != "moved" {
				other += n
			}
		}
		fmt.Printf("| %s | %s | %d | %d, %d | %d / %d / %d | %s | %d / %d / %d | %s | %s | %s |\n",
			r.name, r.from, r.skills, r.gitChanged, r.gitGone, r.states["changed"], r.states["moved"], other,
			agree, r.added, r.removed, r.modified, ms(r.tOutdated), ms(r.tDry), ms(r.tUpdate))
	}
	if failed {
		return errors.New("some repositories failed or disagreed with git (see above)")
	}
	return nil
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// repoName names a mirror folder: /work/.mirror/OWNER+NAME/repo is
// OWNER/NAME.
func repoName(src string) string {
	p := filepath.Clean(src)
	if filepath.Base(p) == "repo" {
		p = filepath.Dir(p)
	}
	return strings.Replace(filepath.Base(p), "+", "/", 1)
}

// outdatedRow is the part of a row of `outdated --json` compared here.
type outdatedRow struct {
	Skill   string `json:"skill"`
	Subpath string `json:"subpath"`
	Pin     string `json:"pin"`
	Now     string `json:"now"`
	State   string `json:"state"`
}

// updateOut is the part of `update --json` compared here.
type updateOut struct {
	Skills []struct {
		Skill          string   `json:"skill"`
		Pin            string   `json:"pin"`
		PreviousPin    string   `json:"previous_pin"`
		Digest         string   `json:"digest"`
		PreviousDigest string   `json:"previous_digest"`
		Added          []string `json:"added"`
		Removed        []string `json:"removed"`
		Changed        []string `json:"changed"`
	} `json:"skills"`
}

// lockFile is the part of .agents/agentskills.lock read here.
type lockFile struct {
	Skills map[string]struct {
		Subpath string `json:"subpath"`
		Pin     string `json:"pin"`
	} `json:"skills"`
}

// truth is what git says of one skill between the two commits.
type truth struct {
	gone                     bool
	added, removed, modified []string
}

func (t truth) changed() bool {
	return t.gone || len(t.added)+len(t.removed)+len(t.modified) > 0
}

// one runs the whole check for the repository src in the folder dir.
func one(bin, dir, src, name string, days, back int) (r result) {
	r.name = name
	r.states = map[string]int{}
	clone := filepath.Join(dir, "clone.git")
	project := filepath.Join(dir, "project")
	env := []string{"HOME=" + filepath.Join(project, "home"), "DISABLE_TELEMETRY=1", "DO_NOT_TRACK=1",
		"AGENT_ADAPTOR_SKILL_CACHE_ROOT=" + filepath.Join(dir, "cache")}
	if err := os.MkdirAll(filepath.Join(project, "home"), 0o755); err != nil {
		r.err = err
		return r
	}
	if _, err := git("", "clone", "--quiet", "--bare", src, clone); err != nil {
		r.err = err
		return r
	}
	head, err := git(clone, "rev-parse", "HEAD")
	if err != nil {
		r.err = err
		return r
	}
	old, from, err := oldCommit(clone, days, back)
	if err != nil {
		r.err = err
		return r
	}
	r.from = from
	fmt.Printf("%s: HEAD %.12s, installing from %.12s (%s)\n", name, head, old, from)
	if old, head, err = withoutMissing(clone, old, head); err != nil {
		r.err = err
		return r
	}
	if _, err := git(clone, "branch", "--force", branch, old); err != nil {
		r.err = err
		return r
	}
	source := "git+file://" + clone + "#ref=" + branch
	// add skips, exiting 1, a skill the audit refuses; the others are
	// installed and checked.
	if out, code, _ := cli(bin, project, env, "add", source, "--lenient", "-y", "--agent", "claude-code,codex", "--quiet"); code != 0 {
		var skipped []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "skipped ") {
				skipped = append(skipped, line)
			}
		}
		if code != 1 || len(skipped) == 0 {
			r.err = fmt.Errorf("add exited %d: %s", code, out)
			return r
		}
		fmt.Printf("%s: add exited 1, skipping %d skills:\n%s\n", name, len(skipped), strings.Join(skipped, "\n"))
	}
	data, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil {
		r.err = err
		return r
	}
	var lock lockFile
	if err := json.Unmarshal(data, &lock); err != nil {
		r.err = fmt.Errorf("lock file: %w", err)
		return r
	}
	r.skills = len(lock.Skills)
	truths := map[string]truth{}
	for skill, e := range lock.Skills {
		if e.Pin != old {
			r.err = fmt.Errorf("%s: lock file pins %s, not %s", skill, e.Pin, old)
			return r
		}
		t, err := gitTruth(clone, old, head, skill, e.Subpath)
		if err != nil {
			r.err = err
			return r
		}
		truths[skill] = t
		if t.changed() {
			r.gitChanged++
		}
		if t.gone {
			r.gitGone++
		}
	}
	if _, err := git(clone, "branch", "--force", branch, head); err != nil {
		r.err = err
		return r
	}
	disagree := func(format string, a ...any) {
		r.disagree++
		fmt.Printf("%s: DISAGREES: %s\n", name, fmt.Sprintf(format, a...))
	}

	// outdated
	start := time.Now()
	out, code, stdout := cli(bin, project, env, "outdated", "--json")
	r.tOutdated = time.Since(start)
	var rows []outdatedRow
	if err := json.NewDecoder(bytes.NewReader(stdout)).Decode(&rows); err != nil {
		r.err = fmt.Errorf("outdated --json exited %d, printing no list: %v: %s", code, err, out)
		return r
	}
	wantCode := 0
	seen := map[string]bool{}
	for _, row := range rows {
		seen[row.Skill] = true
		r.states[row.State]++
		t, ok := truths[row.Skill]
		if !ok {
			disagree("outdated lists %s, which the lock file does not record", row.Skill)
			continue
		}
		if row.State != "current" {
			wantCode = 1
		}
		want := "moved"
		if t.changed() { // a folder gone at HEAD too (install rule 14)
			want = "changed"
		}
		if row.State != want {
			disagree("outdated says %s is %s; git: %s", row.Skill, row.State, t.describe())
		}
		if row.State != "unavailable" && row.Now != head {
			disagree("outdated says %s's ref names %s now, not HEAD %s", row.Skill, row.Now, head)
		}
	}
	for skill := range truths {
		if !seen[skill] {
			disagree("outdated does not list %s", skill)
		}
	}
	if code != wantCode {
		disagree("outdated exited %d, want %d", code, wantCode)
	}

	// A skill whose folder is gone fails the whole update, changing
	// nothing; the others are then updated by name, and the gone ones
	// removed before outdated runs again.
	var gone, kept []string
	for _, skill := range slices.Sorted(maps.Keys(truths)) {
		if truths[skill].gone {
			gone = append(gone, skill)
		} else {
			kept = append(kept, skill)
		}
	}
	var names []string
	if len(gone) > 0 {
		before, _ := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
		out, code, _ := cli(bin, project, env, "update", "--lenient")
		after, _ := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
		if code != 1 || !bytes.Equal(before, after) {
			disagree("update of every skill, %d of them gone from the source, exited %d (want 1) and changed the lock file: %t", len(gone), code, !bytes.Equal(before, after))
		}
		for _, skill := range gone {
			if !strings.Contains(out, skill+":") {
				disagree("update failed without naming %s, gone from the source: %s", skill, out)
			}
		}
		fmt.Printf("%s: %d skills gone from the source; update of every skill says:\n%s\n", name, len(gone), out)
		names = kept
	}

	// update --dry-run, then update
	start = time.Now()
	out, code, stdout = cli(bin, project, env, append([]string{"update", "--dry-run", "--json", "--lenient"}, names...)...)
	r.tDry = time.Since(start)
	var dry updateOut
	if err := json.NewDecoder(bytes.NewReader(stdout)).Decode(&dry); code != 0 || err != nil {
		r.err = fmt.Errorf("update --dry-run --json exited %d (%v): %s", code, err, out)
		return r
	}
	for _, s := range dry.Skills {
		t := truths[s.Skill]
		r.added += len(s.Added)
		r.removed += len(s.Removed)
		r.modified += len(s.Changed)
		if t.gone {
			disagree("update --dry-run updates %s, whose folder is gone at HEAD", s.Skill)
			continue
		}
		if s.Pin != head {
			disagree("update --dry-run moves %s to %s, not HEAD %s", s.Skill, s.Pin, head)
		}
		if (s.Digest != s.PreviousDigest) != t.changed() {
			disagree("update --dry-run: %s's digest moved=%t; git: %s", s.Skill, s.Digest != s.PreviousDigest, t.describe())
		}
		for _, d := range []struct {
			what      string
			got, want []string
		}{{"added", s.Added, t.added}, {"removed", s.Removed, t.removed}, {"changed", s.Changed, t.modified}} {
			if !slices.Equal(sorted(d.got), sorted(d.want)) {
				disagree("update --dry-run: %s %s %q; git: %q", s.Skill, d.what, d.got, d.want)
			}
		}
	}
	start = time.Now()
	out, code, stdout = cli(bin, project, env, append([]string{"update", "--json", "--lenient"}, names...)...)
	r.tUpdate = time.Since(start)
	var upd updateOut
	if err := json.NewDecoder(bytes.NewReader(stdout)).Decode(&upd); code != 0 || err != nil {
		r.err = fmt.Errorf("update --json exited %d (%v): %s", code, err, out)
		return r
	}
	if a, b := summary(dry), summary(upd); a != b {
		disagree("update lists other changes than update --dry-run:\n%s\nagainst\n%s", b, a)
	}

	// verify, and outdated again
	if out, code, _ := cli(bin, project, env, "verify"); code != 0 {
		disagree("verify after update exited %d: %s", code, out)
	}
	if len(gone) > 0 {
		if out, code, _ := cli(bin, project, env, append([]string{"remove"}, gone...)...); code != 0 {
			r.err = fmt.Errorf("remove %s exited %d: %s", strings.Join(gone, " "), code, out)
			return r
		}
	}
	out, code, stdout = cli(bin, project, env, "outdated", "--json")
	var after []outdatedRow
	if err := json.NewDecoder(bytes.NewReader(stdout)).Decode(&after); err != nil {
		r.err = fmt.Errorf("second outdated --json exited %d, printing no list: %v: %s", code, err, out)
		return r
	}
	for _, row := range after {
		if row.State != "current" {
			disagree("after update, outdated says %s is %s", row.Skill, row.State)
		}
	}
	if len(after) != len(kept) {
		disagree("after update, outdated lists %d skills, not %d", len(after), len(kept))
	}
	if code != 0 {
		disagree("after update, outdated exited %d: %s", code, out)
	}
	return r
}

func (t truth) describe() string {
	if t.gone {
		return "folder gone at HEAD"
	}
	if !t.changed() {
		return "no file changed"
	}
	return fmt.Sprintf("added %q, removed %q, changed %q", t.added, t.removed, t.modified)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// summary is an update's per-skill changes, one line each, sorted.
func summary(u updateOut) string {
	var lines []string
	for _, s := range u.Skills {
		lines = append(lines, fmt.Sprintf("%s %s->%s %s +%q -%q ~%q", s.Skill, s.PreviousPin, s.Pin, s.Digest, s.Added, s.Removed, s.Changed))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// oldCommit picks the commit to install from: the newest commit at least
// days days older than HEAD's commit date, else HEAD~back, or the first
// commit when the history is shorter.
func oldCommit(repo string, days, back int) (commit, from string, err error) {
	ct, err := git(repo, "log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return "", "", err
	}
	sec, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return "", "", fmt.Errorf("commit time %q: %w", ct, err)
	}
	before := sec - int64(days)*86400
	commit, err = git(repo, "rev-list", "-1", "--first-parent", "--before="+strconv.FormatInt(before, 10), "HEAD")
	if err != nil {
		return "", "", err
	}
	if commit != "" {
		n, err := git(repo, "rev-list", "--count", "--first-parent", commit+"..HEAD")
		if err != nil {
			return "", "", err
		}
		return commit, fmt.Sprintf("%d+ days: HEAD~%s", days, n), nil
	}
	count, err := git(repo, "rev-list", "--count", "--first-parent", "HEAD")
	if err != nil {
		return "", "", err
	}
	n, err := strconv.Atoi(count)
	if err != nil {
		return "", "", fmt.Errorf("commit count %q: %w", count, err)
	}
	back = min(back, n-1)
	commit, err = git(repo, "rev-parse", fmt.Sprintf("HEAD~%d", back))
	return commit, fmt.Sprintf("HEAD~%d", back), err
}

// withoutMissing returns old and head, or, when the repository lacks
// blobs of their trees (a mirror may leave out its largest files), two
// new commits, the second the child of the first, with the trees of old
// and head less the missing files, which it prints.
func withoutMissing(repo, old, head string) (string, string, error) {
	var commits [2]string
	rewrite := false
	for i, c := range []string{old, head} {
		missing, err := missingBlobs(repo, c)
		if err != nil {
			return "", "", err
		}
		commits[i] = c
		if len(missing) == 0 {
			continue
		}
		rewrite = true
		fmt.Printf("  %.12s lacks %d blobs, left out of its tree: %s\n", c, len(missing), strings.Join(missing, ", "))
		index := filepath.Join(repo, "updatecorpus-index")
		os.Remove(index)
		empty := filepath.Join(repo, "updatecorpus-worktree") // update-index wants a work tree
		if err := os.MkdirAll(empty, 0o755); err != nil {
			return "", "", err
		}
		cmds := [][]string{{"read-tree", c}, append([]string{"update-index", "--force-remove", "--"}, missing...)}
		for _, args := range cmds {
			if _, err := gitEnv(repo, []string{"GIT_INDEX_FILE=" + index, "GIT_WORK_TREE=" + empty}, args...); err != nil {
				return "", "", err
			}
		}
		tree, err := gitEnv(repo, []string{"GIT_INDEX_FILE=" + index}, "write-tree")
		if err != nil {
			return "", "", err
		}
		commits[i] = tree // a tree, made a commit below
	}
	if !rewrite {
		return old, head, nil
	}
	var parent []string
	for i, c := range []string{old, head} {
		tree := commits[i] + "^{tree}"
		args := append([]string{"commit-tree", tree, "-m", "updatecorpus: " + c}, parent...)
		commit, err := gitEnv(repo, []string{"GIT_AUTHOR_NAME=updatecorpus", "GIT_AUTHOR_EMAIL=updatecorpus@localhost",
			"GIT_COMMITTER_NAME=updatecorpus", "GIT_COMMITTER_EMAIL=updatecorpus@localhost"}, args...)
		if err != nil {
			return "", "", err
		}
		commits[i] = commit
		parent = []string{"-p", commit}
	}
	fmt.Printf("  installing from %.12s, updating to %.12s\n", commits[0], commits[1])
	return commits[0], commits[1], nil
}

// missingBlobs lists the files of commit whose blobs repo lacks.
func missingBlobs(repo, commit string) ([]string, error) {
	out, err := git(repo, "ls-tree", "-r", "-z", commit)
	if err != nil {
		return nil, err
	}
	var ids, paths []string
	for _, entry := range strings.Split(out, "\x00") {
		meta, file, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		ids = append(ids, f[2])
		paths = append(paths, file)
	}
	cmd := exec.Command("git", "cat-file", "--batch-check=%(objectname)")
	cmd.Dir = repo
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	res, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check: %w", err)
	}
	var missing []string
	for i, line := range strings.Split(strings.TrimSpace(string(res)), "\n") {
		if strings.HasSuffix(line, " missing") && i < len(paths) {
			missing = append(missing, paths[i])
		}
	}
	return missing, nil
}

// gitTruth says what changed in the folder subpath, the skill name,
// from old to head. The skill is gone when head has no SKILL.md there, or
// one naming another skill.
func gitTruth(repo, old, head, name, subpath string) (truth, error) {
	var t truth
	md, err := git(repo, "show", head+":"+path.Join(subpath, "SKILL.md"))
	if err != nil || frontMatterName(md) != name {
		t.gone = true
		return t, nil
	}
	spec := subpath
	if spec == "" {
		spec = "."
	}
	out, err := git(repo, "diff", "--no-renames", "--name-status", "-z", old, head, "--", spec)
	if err != nil {
		return t, err
	}
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status, file := fields[i], fields[i+1]
		rel := strings.TrimPrefix(file, strings.TrimSuffix(subpath, "/")+"/")
		switch status[0] {
		case 'A':
			t.added = append(t.added, rel)
		case 'D':
			t.removed = append(t.removed, rel)
		default: // M, T
			t.modified = append(t.modified, rel)
		}
	}
	return t, nil
}

// frontMatterName is the name a SKILL.md's front matter gives, read as
// the first "name:" line between the --- lines, unquoted.
func frontMatterName(md string) string {
	lines := strings.Split(md, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return ""
	}
	for _, line := range lines[1:] {
		if strings.TrimSpace(line) == "---" {
			break
		}
		if v, ok := strings.CutPrefix(line, "name:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	return gitEnv(dir, nil, args...)
}

// gitEnv runs git in dir with the variables env added.
func gitEnv(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}

// cli runs agentskills in project and returns stdout and stderr together,
// the exit code and stdout alone.
func cli(bin, project string, env []string, args ...string) (combined string, code int, stdout []byte) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		code = -1
		errOut.WriteString(err.Error())
	}
	return strings.TrimSpace(errOut.String() + "\n" + tail(out.String())), code, out.Bytes()
}

// tail is the last 2,000 characters of s.
func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}
