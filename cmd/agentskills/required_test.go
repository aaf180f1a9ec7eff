package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
)

// requiredSkillsRepo makes a git repository holding the skill changelog,
// tagged v1.0.0 and v2.0.0 (its SKILL.md ends with the tag), and returns
// its git+file:// URL.
func requiredSkillsRepo(t *testing.T) string {
	t.Helper()
	gitsigtest.Require(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := t.TempDir()
	gitsigtest.Git(t, repo, nil, "init", "-q", "-b", "main")
	for _, tag := range []string{"v1.0.0", "v2.0.0"} {
		writeSkill(t, filepath.Join(repo, "skills"), "changelog", "---\nname: changelog\ndescription: Keeps the changelog.\n---\n"+tag+"\n")
		gitsigtest.Git(t, repo, nil, "add", "-A")
		gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, tag)
		cmd := exec.Command("git", "tag", tag)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git tag: %v\n%s", err, out)
		}
	}
	return "git+file://" + filepath.ToSlash(repo)
}

// trustUser is trustProject with the policy in the user's file; it
// returns the project and that file.
func trustUser(t *testing.T, policyText string) (project, file string) {
	t.Helper()
	project = trustProject(t, "")
	file = filepath.Join(os.Getenv("HOME"), ".agents", "agentskills.policy.yaml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(policyText), 0o644); err != nil {
		t.Fatal(err)
	}
	return project, file
}

// TestRequiredProjectLocalSourceRefused checks that a project's policy
// file cannot make sync install from a repository on this machine
// (package install, # Required skills, rule 7): sync and verify fail
// naming the line, and nothing is installed.
func TestRequiredProjectLocalSourceRefused(t *testing.T) {
	repo := requiredSkillsRepo(t)
	project := trustProject(t, "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n")
	line := filepath.Join(project, ".agents", "agentskills.policy.yaml") + ":3"
	for _, args := range [][]string{{"sync"}, {"verify"}} {
		code, out, errs := runCLI(t, args...)
		if code == exitOK || !strings.Contains(errs, line) || !strings.Contains(errs, "published elsewhere") {
			t.Errorf("%s = %d, %q, %q; want a failure naming %s", args[0], code, out, errs, line)
		}
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "changelog")); !os.IsNotExist(err) {
		t.Errorf("the refused sync installed changelog (%v)", err)
	}
}

// TestRequiredCommands checks a policy's required skills at the command
// line (package install, # Required skills): verify fails naming a
// missing one and one out of range, with the policy's line and what to
// run; sync --frozen fails and changes nothing; sync installs it; list
// marks it; remove refuses it, --force or not.
func TestRequiredCommands(t *testing.T) {
	repo := requiredSkillsRepo(t)
	src := repo + "#ref=^1&path=skills/changelog"
	// The user's file: a project's may not require a repository on this
	// machine (package install, # Required skills, rule 7).
	project, userFile := trustUser(t, "version: 1\nrequired:\n  - source: "+src+"\n    agents: [claude-code]\n    reason: every project keeps a changelog\n")
	policyLine := userFile + ":3"

	code, _, errs := runCLI(t, "verify")
	if code != exitFailed || !strings.Contains(errs, src) || !strings.Contains(errs, policyLine) || !strings.Contains(errs, "'agentskills sync'") {
		t.Errorf("verify with nothing installed = %d, %q; want 1 naming %s, %s and 'agentskills sync'", code, errs, src, policyLine)
	}
	code, out, _ := runCLI(t, "sync", "--frozen", "--json")
	var line errorLine
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &line); code != exitFailed || err != nil || line.Code != codePolicy || !strings.Contains(line.Message, "required by the policy") {
		t.Errorf("sync --frozen --json = %d, %q; want 1 and an error line of code %q", code, out, codePolicy)
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "agentskills.lock")); !os.IsNotExist(err) {
		t.Errorf("sync --frozen wrote the lock file (%v)", err)
	}

	code, out, errs = runCLI(t, "sync")
	if code != exitOK || !strings.Contains(out, "changelog") {
		t.Fatalf("sync = %d, %q, %q; want changelog installed", code, out, errs)
	}
	if want := "(required by the policy: required[1] (" + policyLine + "))"; !strings.Contains(out, want) {
		t.Errorf("sync printed %q, want it to say %s", out, want)
	}
	if got := readTestFile(t, filepath.Join(project, ".agents", "skills", "changelog", "SKILL.md")); !strings.HasSuffix(got, "v1.0.0\n") {
		t.Errorf("sync installed %q, want v1.0.0's", got)
	}
	if code, out, errs := runCLI(t, "verify"); code != exitOK {
		t.Errorf("verify once installed = %d, %q, %q; want 0", code, out, errs)
	}

	code, out, _ = runCLI(t, "list", "-a", "claude-code")
	if code != exitOK || !strings.Contains(out, "installed (required)") {
		t.Errorf("list = %d, %q; want changelog marked (required)", code, out)
	}
	code, out, _ = runCLI(t, "list", "-a", "claude-code", "--json")
	var st []install.Status
	if err := json.Unmarshal([]byte(out), &st); code != exitOK || err != nil || len(st) == 0 || !strings.HasPrefix(st[0].RequiredByPolicy, "required[1] (") {
		t.Errorf("list --json = %d, %q (%v); want required_by_policy on changelog", code, out, err)
	}

	for _, args := range [][]string{{"remove", "changelog"}, {"remove", "changelog", "--force"}, {"remove", "changelog", "-a", "claude-code"}} {
		code, _, errs := runCLI(t, args...)
		if code != exitFailed || !strings.Contains(errs, "required by the policy") || !strings.Contains(errs, "every project keeps a changelog") {
			t.Errorf("%s = %d, %q; want 1 naming the requirement and its reason", strings.Join(args, " "), code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "changelog")); err != nil {
		t.Errorf("a refused remove removed changelog: %v", err)
	}

	// Out of range: the same skill at v2.0.0.
	if code, out, errs := runCLI(t, "add", repo+"#ref=v2.0.0&path=skills/changelog", "-a", "claude-code"); code != exitOK {
		t.Fatalf("add v2.0.0 = %d, %q, %q", code, out, errs)
	}
	code, _, errs = runCLI(t, "verify")
	if code != exitFailed || !strings.Contains(errs, "changelog at v2.0.0, outside ^1") {
		t.Errorf("verify out of range = %d, %q; want 1 naming v2.0.0 and ^1", code, errs)
	}
	if code, out, errs := runCLI(t, "sync"); code != exitOK {
		t.Fatalf("sync = %d, %q, %q", code, out, errs)
	}
	if code, out, errs := runCLI(t, "verify"); code != exitOK {
		t.Errorf("verify after sync = %d, %q, %q; want 0", code, out, errs)
	}
}

// TestRequiredInvalidPolicy checks that a wrong required entry stops
// every command that reads the policy, naming the file and line (exit 2).
func TestRequiredInvalidPolicy(t *testing.T) {
	project := trustProject(t, "version: 1\nrequired:\n  - source: ./skills/changelog\n")
	name := filepath.Join(project, ".agents", "agentskills.policy.yaml")
	for _, args := range [][]string{{"verify"}, {"sync"}, {"list"}, {"remove", "x"}} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, name+":3:") {
			t.Errorf("%s = %d, %q; want 2 naming %s:3", strings.Join(args, " "), code, errs, name)
		}
	}
}

func readTestFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRequiredUpdateLatestWarns checks that update --latest, which moves
// a required skill past its range as asked, warns naming the entry
// (package install, # Required skills, rule 8), and verify then fails.
func TestRequiredUpdateLatestWarns(t *testing.T) {
	repo := requiredSkillsRepo(t)
	_, userFile := trustUser(t, "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n")
	if code, out, errs := runCLI(t, "sync"); code != exitOK {
		t.Fatalf("sync = %d, %q, %q", code, out, errs)
	}
	code, out, errs := runCLI(t, "update", "--latest")
	if code != exitOK || !strings.Contains(errs, "warning: ") || !strings.Contains(errs, userFile+":3") || !strings.Contains(errs, "outside ^1") {
		t.Errorf("update --latest = %d, %q, %q; want a warning naming %s:3 and the range", code, out, errs, userFile)
	}
	if code, _, errs := runCLI(t, "verify"); code != exitFailed || !strings.Contains(errs, "outside ^1") {
		t.Errorf("verify after update --latest = %d, %q; want 1, out of range", code, errs)
	}
}
