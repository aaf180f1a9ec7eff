package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand runs agentskills import on a project whose
// skills-lock.json is shaped as the npm skills tool writes it: the dry run
// changes nothing, the import records the skills, --json prints the
// report, a skill that cannot be carried over is listed and exits 1, and
// a bad --from is a usage error.
func TestImportCommand(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	base := t.TempDir()
	project := filepath.Join(base, "project")
	src := filepath.Join(project, "kit")
	writeSkill(t, filepath.Join(src, "skills"), "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\n")
	t.Chdir(project)
	lock := `{
  "version": 1,
  "skills": {
    "alpha": {
      "source": "./kit",
      "sourceType": "local",
      "computedHash": "dc57fcaedadf7522abc8355cd7e47db0001bc0ee670ca9955edda744176ed9d9"
    }
  }
}
`
	os.WriteFile("skills-lock.json", []byte(lock), 0o644)
	runCmd := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	code, out, errOut := runCmd("import", "--dry-run")
	if code != 0 || !strings.Contains(out, "would import alpha from "+src) {
		t.Errorf("import --dry-run = %d, %q, %q; want the plan", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(".agents", "agentskills.lock")); !os.IsNotExist(err) {
		t.Errorf("import --dry-run wrote the lock file (%v)", err)
	}
	code, out, errOut = runCmd("import")
	if code != 0 || !strings.Contains(out, "imported alpha from kit for claude-code,codex") {
		t.Errorf("import = %d, %q, %q", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(".agents", "agentskills.lock"))
	if err != nil || !strings.Contains(string(data), `"source": "kit"`) {
		t.Errorf("lock file after import = %s, %v; want alpha from kit", data, err)
	}

	// A record that cannot be carried over: listed, exit 1.
	os.WriteFile("skills-lock.json", []byte(strings.Replace(lock, `"alpha": {`, `"beta": {"source": "x", "sourceType": "mintlify"}, "alpha": {`, 1)), 0o644)
	code, out, _ = runCmd("import", "--json")
	var report struct {
		Imported []struct{ Skill, Source string } `json:"imported"`
		Left     []struct{ Skill, Reason string } `json:"left"`
	}
	if err := json.Unmarshal([]byte(firstJSON(out)), &report); err != nil {
		t.Fatalf("import --json printed %q: %v", out, err)
	}
	if code != exitFailed || len(report.Imported) != 1 || len(report.Left) != 1 || report.Left[0].Skill != "beta" || !strings.Contains(report.Left[0].Reason, "mintlify") {
		t.Errorf("import --json = %d, %+v; want alpha imported, beta left out, exit 1", code, report)
	}
	code, out, _ = runCmd("import")
	if code != exitFailed || !strings.Contains(out, `left out beta (mintlify x in skills-lock.json): source type "mintlify"`) {
		t.Errorf("import with an unknown source type = %d, %q", code, out)
	}

	// A local folder outside the project: left out naming it, exit 1.
	writeSkill(t, filepath.Join(base, "private"), "secret", "---\nname: secret\ndescription: The user's own skill.\n---\n")
	os.WriteFile("skills-lock.json", []byte(`{"version": 1, "skills": {"secret": {"source": "../private", "sourceType": "local"}}}`), 0o644)
	code, out, _ = runCmd("import")
	if code != exitFailed || !strings.Contains(out, `left out secret (local ../private in skills-lock.json): local source "../private" is outside the project`) {
		t.Errorf("import of a local folder outside the project = %d, %q; want it left out, exit 1", code, out)
	}
	if _, err := os.Lstat(filepath.Join(".agents", "skills", "secret")); !os.IsNotExist(err) {
		t.Errorf("import installed the folder outside the project (%v)", err)
	}

	if code, _, errOut := runCmd("import", "--from", "pip"); code != exitUsage || !strings.Contains(errOut, "--from") {
		t.Errorf("import --from pip = %d, %q; want a usage error", code, errOut)
	}
	os.Remove("skills-lock.json")
	if code, _, errOut := runCmd("import", "--from", "npm"); code != exitFailed || !strings.Contains(errOut, "skills-lock.json") {
		t.Errorf("import without records = %d, %q; want a failure naming where it looked", code, errOut)
	}
}

// firstJSON returns the first JSON value of out (the report; an error line
// may follow it).
func firstJSON(out string) string {
	dec := json.NewDecoder(strings.NewReader(out))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return out
	}
	return string(v)
}
