package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutdatedAndUpdate checks the commands outdated and update against
// a folder source, through run: their exit codes (outdated: 0 current,
// 1 outdated or not checkable; update: 0, 1 on an edited skill, 2 for a
// name not installed or an invalid lock file), their tables and JSON,
// and that --dry-run changes nothing.
func TestOutdatedAndUpdate(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	writeSkill(t, src, "other", "---\nname: other\ndescription: Another skill.\n---\n")
	project := t.TempDir()
	t.Chdir(project)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, _, errs := run("add", src, "-a", "claude-code"); code != 0 {
		t.Fatalf("add = %d: %s", code, errs)
	}
	code, out, errs := run("outdated")
	if code != 0 || !strings.Contains(out, "NAME") || !strings.Contains(out, "good") || !strings.Contains(out, "same") {
		t.Errorf("outdated with everything current = %d, %q, %q; want 0 and the table", code, out, errs)
	}

	os.WriteFile(filepath.Join(src, "good", "SKILL.md"), []byte("---\nname: good\ndescription: A better skill.\n---\n"), 0o644)
	os.WriteFile(filepath.Join(src, "good", "extra.md"), []byte("more\n"), 0o644)
	code, out, errs = run("outdated")
	if code != 1 || !strings.Contains(out, "changed") || !strings.Contains(errs, "1 skill is outdated") {
		t.Errorf("outdated with a changed source = %d, %q, %q; want 1, changed, and what to do", code, out, errs)
	}
	code, out, _ = run("outdated", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last errorLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); code != 1 || err != nil || last.Code != codeCheck {
		t.Errorf("outdated --json = %d, last line %q (%v); want 1 and an error line of code %q", code, lines[len(lines)-1], err, codeCheck)
	}

	lockPath := filepath.Join(project, ".agents", "agentskills.lock")
	before, _ := os.ReadFile(lockPath)
	code, out, errs = run("update", "--dry-run")
	if code != 0 || !strings.Contains(out, "added    extra.md") || !strings.Contains(out, "changed  SKILL.md") || !strings.Contains(out, "nothing was changed") {
		t.Errorf("update --dry-run = %d, %q, %q; want 0 and the files", code, out, errs)
	}
	if after, _ := os.ReadFile(lockPath); !bytes.Equal(before, after) {
		t.Error("update --dry-run changed the lock file")
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "good", "extra.md")); err == nil {
		t.Error("update --dry-run installed extra.md")
	}

	if code, _, errs := run("update", "nope"); code != 2 || !strings.Contains(errs, `"nope" not installed`) {
		t.Errorf("update nope = %d, %q; want 2 and the name", code, errs)
	}

	code, out, errs = run("update", "--json")
	var got updateOutput
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Skills) != 2 || len(got.Changes) == 0 {
		t.Errorf("update --json = %d, %q (%v), %q; want 0 and both skills", code, out, err, errs)
	}
	if data, err := os.ReadFile(filepath.Join(project, ".claude", "skills", "good", "extra.md")); err != nil || string(data) != "more\n" {
		t.Errorf("after update, claude-code's good/extra.md = %q, %v", data, err)
	}
	if code, out, _ := run("update"); code != 0 || !strings.Contains(out, "Everything is up to date.") {
		t.Errorf("update again = %d, %q; want 0 and nothing to do", code, out)
	}

	// An edited canonical copy is kept.
	os.WriteFile(filepath.Join(project, ".agents", "skills", "good", "notes.md"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(src, "good", "extra.md"), []byte("even more\n"), 0o644)
	if code, _, errs := run("update"); code != 1 || !strings.Contains(errs, "notes.md") || !strings.Contains(errs, "--force") {
		t.Errorf("update over an edited copy = %d, %q; want 1, the file and --force", code, errs)
	}

	// A source that is gone: outdated lists the rest and fails.
	os.RemoveAll(filepath.Join(src, "other"))
	os.RemoveAll(src)
	code, out, errs = run("outdated", "--json")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); code != 1 || err != nil || last.Code != codeFailed || !strings.Contains(last.Message, "could not be checked") {
		t.Errorf("outdated --json with the source gone = %d, %q, %q; want 1 and an error line of code %q", code, out, errs, codeFailed)
	}

	os.WriteFile(lockPath, []byte("{"), 0o644)
	for _, cmd := range []string{"outdated", "update"} {
		if code, _, errs := run(cmd); code != 2 || !strings.Contains(errs, "lock file is not valid") {
			t.Errorf("%s with an invalid lock file = %d, %q; want 2", cmd, code, errs)
		}
	}
}

// TestUpdateLenientAndGone checks what bench/updatecorpus found in
// published repositories, through run: new content that breaks only the
// Agent Skills specification fails update, naming --lenient; update
// --lenient installs it with a warning; a skill the source no longer
// holds fails update saying what to do, and the others update by name.
func TestUpdateLenientAndGone(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "long", "---\nname: long\ndescription: Short for now.\n---\n")
	writeSkill(t, src, "gone", "---\nname: gone\ndescription: Soon gone.\n---\n")
	project := t.TempDir()
	t.Chdir(project)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, _, errs := run("add", src, "-a", "claude-code", "--lenient"); code != 0 {
		t.Fatalf("add = %d: %s", code, errs)
	}
	long := "---\nname: long\ndescription: " + strings.Repeat("x", 1100) + "\n---\n"
	os.WriteFile(filepath.Join(src, "long", "SKILL.md"), []byte(long), 0o644)
	lockPath := filepath.Join(project, ".agents", "agentskills.lock")
	before, _ := os.ReadFile(lockPath)
	if code, _, errs := run("update", "long"); code == 0 || !strings.Contains(errs, "--lenient updates") {
		t.Errorf("update to content that breaks the specification = %d, %q; want a failure naming --lenient", code, errs)
	}
	if after, _ := os.ReadFile(lockPath); !bytes.Equal(before, after) {
		t.Error("a refused update changed the lock file")
	}
	code, out, errs := run("update", "long", "--lenient")
	if code != 0 || !strings.Contains(out, "changed  SKILL.md") || !strings.Contains(errs, "warning   long") {
		t.Errorf("update --lenient = %d, %q, %q; want 0, the file and a warning", code, out, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(project, ".claude", "skills", "long", "SKILL.md")); string(data) != long {
		t.Errorf("after update --lenient, long/SKILL.md = %q", data)
	}

	os.RemoveAll(filepath.Join(src, "gone"))
	if code, _, errs := run("update"); code != 1 || !strings.Contains(errs, "gone:") || !strings.Contains(errs, "remove it") {
		t.Errorf("update with a skill gone from its source = %d, %q; want 1, naming it and saying what to do", code, errs)
	}
	if code, _, errs := run("remove", "gone"); code != 0 {
		t.Fatalf("remove gone = %d: %s", code, errs)
	}
	if code, out, errs := run("outdated"); code != 0 {
		t.Errorf("outdated after removing gone = %d, %q, %q; want 0", code, out, errs)
	}
}
