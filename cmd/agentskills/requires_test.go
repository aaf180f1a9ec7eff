package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requiresProject installs a skill folder for each name of set for
// claude-code in a new project (the current folder), then records in
// the lock file what set says of each, as an add that resolves
// requirements would: the requirements (a skill's name, or "?SOURCE"
// for one no installed skill answers, as add --no-requires leaves it)
// and, with a name's value starting with "dep:", the dependency mark.
// It returns a function that runs the command there.
func requiresProject(t *testing.T, set map[string][]string) (project string, run func(args ...string) (int, string, string)) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	project = t.TempDir()
	t.Chdir(project)
	run = func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runCommand(t, args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	args := []string{"add"}
	for name := range set {
		writeSkill(t, src, name, "---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n")
		args = append(args, filepath.Join(src, name))
	}
	if code, _, errs := run(append(args, "-a", "claude-code")...); code != 0 {
		t.Fatalf("add = %d: %s", code, errs)
	}
	path := filepath.Join(project, ".agents", "agentskills.lock")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lock map[string]any
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	skills := lock["skills"].(map[string]any)
	for name, reqs := range set {
		entry := skills[name].(map[string]any)
		var requires []any
		for _, r := range reqs {
			switch {
			case r == "dep:":
				entry["dependency"] = true
			case strings.HasPrefix(r, "?"):
				requires = append(requires, map[string]any{"source": r[1:]})
			default:
				requires = append(requires, map[string]any{"source": "github:acme/skills/" + r + "@^1", "skill": r})
			}
		}
		if requires != nil {
			entry["requires"] = requires
		}
	}
	if data, err = json.MarshalIndent(lock, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return project, run
}

// runCommand runs the command with args, as main does.
func runCommand(t *testing.T, args []string, stdout, stderr *bytes.Buffer) int {
	return run(t.Context(), args, strings.NewReader(""), stdout, stderr)
}

// TestRemoveRequiredSkill checks remove through the command: a skill
// that installed skills require is kept (exit 1, naming them and
// --force, nothing changed); removing those that require it removes it
// with the last, as no longer required; list shows who requires what.
func TestRemoveRequiredSkill(t *testing.T) {
	project, run := requiresProject(t, map[string][]string{
		"release":   {"changelog"},
		"notes":     {"changelog"},
		"changelog": {"dep:"},
	})
	lockPath := filepath.Join(project, ".agents", "agentskills.lock")
	before, _ := os.ReadFile(lockPath)

	// list, as text and as JSON.
	code, out, errs := run("list", "-a", "claude-code")
	if code != 0 {
		t.Fatalf("list = %d: %s", code, errs)
	}
	for _, want := range []string{"REQUIRED BY", "notes, release (dependency)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list printed %q, want %q in it", out, want)
		}
	}
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, "release ") && !strings.Contains(l, " - ") {
			t.Errorf("list: %q, want - for a skill nothing requires", l)
		}
	}
	code, out, errs = run("list", "-a", "claude-code", "--json")
	if code != 0 {
		t.Fatalf("list --json = %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		name, _ := r["skill"].(string)
		seen[name] = true
		by, hasBy := r["required_by"]
		dep, hasDep := r["dependency"]
		switch name {
		case "changelog":
			if b, _ := json.Marshal(by); string(b) != `["notes","release"]` || dep != true {
				t.Errorf("list --json: changelog %v, want required_by [notes release] and dependency true", r)
			}
		default:
			if hasBy || hasDep {
				t.Errorf("list --json: %s %v, want neither required_by nor dependency", name, r)
			}
		}
	}
	if !seen["changelog"] || !seen["release"] || !seen["notes"] {
		t.Errorf("list --json = %s, want the three skills", out)
	}

	// Refused.
	code, _, errs = run("remove", "changelog")
	if code != 1 || !strings.Contains(errs, `skill "changelog": is required by installed skills: notes, release; remove those first`) || !strings.Contains(errs, "--force") {
		t.Fatalf("remove changelog = %d, stderr %q; want 1, naming notes and release, and --force", code, errs)
	}
	if after, _ := os.ReadFile(lockPath); !bytes.Equal(before, after) {
		t.Errorf("a refused remove changed the lock file")
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "skills", "changelog", "SKILL.md")); err != nil {
		t.Errorf("a refused remove touched changelog: %v", err)
	}

	// Each that requires it, in turn: it goes with the last.
	code, out, errs = run("remove", "release")
	if code != 0 || strings.Contains(out, "changelog") {
		t.Fatalf("remove release = %d, %q, %q; want changelog kept, as notes requires it", code, out, errs)
	}
	code, out, errs = run("remove", "notes")
	if code != 0 || !strings.Contains(out, "removed   changelog (canonical copy): .agents/skills/changelog (no longer required)") {
		t.Fatalf("remove notes = %d, %q, %q; want changelog removed, no longer required", code, out, errs)
	}
	if _, err := os.Lstat(filepath.Join(project, ".claude", "skills", "changelog")); err == nil {
		t.Errorf("changelog's link is still there")
	}
}

// TestRemoveForceRequiredSkill checks that --force removes a required
// skill, warning whose requirement is left unanswered, which verify then
// reports (exit 1), as text and as JSON.
func TestRemoveForceRequiredSkill(t *testing.T) {
	_, run := requiresProject(t, map[string][]string{
		"release":   {"changelog"},
		"changelog": {},
	})
	code, _, errs := run("remove", "changelog", "--force")
	if code != 0 || !strings.Contains(errs, "warning: removed changelog, which release requires;") {
		t.Fatalf("remove changelog --force = %d, %q; want 0 and a warning naming release", code, errs)
	}
	code, _, errs = run("verify")
	if code != 1 || !strings.Contains(errs, "release requires github:acme/skills/changelog@^1, which is not installed; run 'agentskills add github:acme/skills/changelog@^1'") {
		t.Errorf("verify = %d, %q; want 1, naming release and its requirement", code, errs)
	}
}

// TestVerifyUnmetRequirement checks that verify fails (exit 1) on a
// requirement no installed skill answers, as add --no-requires leaves
// it, naming the skill and the requirement; with --json it is an entry
// in state "unmet".
func TestVerifyUnmetRequirement(t *testing.T) {
	project, run := requiresProject(t, map[string][]string{
		"release": {"?oci://ghcr.io/acme/semver:^2"},
	})
	code, out, errs := run("verify")
	if code != 1 || !strings.Contains(errs, "release requires oci://ghcr.io/acme/semver:^2, which is not installed") || strings.Contains(out, "match the lock file") {
		t.Errorf("verify = %d, %q, %q; want 1, naming release and its requirement", code, out, errs)
	}
	code, out, _ = run("verify", "--json")
	// The entries, then the error line that ends a failed command's
	// JSON output.
	dec := json.NewDecoder(strings.NewReader(out))
	var rows []map[string]any
	var last map[string]any
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("verify --json printed %q: %v", out, err)
	}
	if err := dec.Decode(&last); err != nil || last["type"] != "error" || !strings.Contains(last["message"].(string), "1 requirements of installed skills are not installed") {
		t.Errorf("verify --json ended with %v, %v; want the error line saying a requirement is not installed", last, err)
	}
	want := map[string]any{"skill": "release", "agent": "", "state": "unmet", "requirement": "oci://ghcr.io/acme/semver:^2",
		"path": filepath.Join(project, ".agents", "skills", "release")}
	if code != 1 || len(rows) != 1 || !maps.Equal(rows[0], want) {
		t.Errorf("verify --json = %d, %s; want 1 and %v", code, out, want)
	}
}

// TestVerifyUnmetRequirementCredential checks that verify shows no
// credential a lock file written by hand records in a requirement.
func TestVerifyUnmetRequirementCredential(t *testing.T) {
	_, run := requiresProject(t, map[string][]string{
		"release": {"?git+https://TOKEN123@example.com/acme/x.git"},
	})
	code, _, errs := run("verify")
	if code != 1 || strings.Contains(errs, "TOKEN123") || !strings.Contains(errs, "release requires git+https://example.com/acme/x.git") {
		t.Errorf("verify = %d, %q; want 1, the requirement shown without its credential", code, errs)
	}
}
