package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// cacheRows returns `cache list --json`, failing the test on error.
func (r *runRig) cacheRows(t *testing.T) []map[string]any {
	t.Helper()
	code, out, errs := r.inProcess(t, runCtx(t), "cache", "list", "--json")
	if code != 0 {
		t.Fatalf("cache list --json = %d; stderr %q", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("cache list --json: %v\n%s", err, out)
	}
	return rows
}

// kinds counts the rows of each kind.
func kinds(rows []map[string]any) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		kind, _ := r["kind"].(string)
		n[kind]++
	}
	return n
}

// A run with the real Claude Code leaves a skill mount, which cache list
// shows and cache gc removes, with the skill it linked to.
func TestCacheGCClaudeMount(t *testing.T) {
	r := newRunRig(t, modeltest.Always(modeltest.Text("ok")))
	kit := filepath.Join(t.TempDir(), "kit.tgz")
	writeTgz(t, kit, map[string]string{"kit/SKILL.md": "---\nname: kit\ndescription: From an archive.\n---\nBody.\n"})
	if code, _, errs := r.inProcess(t, runCtx(t), "run", "-a", "claude-code", "-s", kit, "hi"); code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	if n := kinds(r.cacheRows(t)); n["skill"] != 1 || n["mount"] != 1 {
		t.Fatalf("cache list rows by kind = %v, want a skill and a mount", n)
	}
	code, out, errs := r.inProcess(t, runCtx(t), "cache", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^claude-code +mount +\d+ +\d+ +0 +\S+ \S+ +no +/`).MatchString(out) {
		t.Errorf("cache list = %d, %q, stderr %q; want the mount shown with its size", code, out, errs)
	}
	code, out, errs = r.inProcess(t, runCtx(t), "cache", "gc", "--older-than", "1ns")
	if code != 0 || !strings.Contains(out, "Removed 1 cached skills") || !strings.Contains(out, "Removed 1 skill mounts and 0 agent homes") {
		t.Fatalf("cache gc = %d, %q, stderr %q; want the skill and the mount removed", code, out, errs)
	}
	if n := kinds(r.cacheRows(t)); len(n) != 0 {
		t.Errorf("cache list after gc = %v, want nothing", n)
	}
}

// A run with the real Codex leaves a managed home holding its session;
// cache gc removes it, says the session went, and the session can no
// longer be resumed.
func TestCacheGCCodexHome(t *testing.T) {
	cli := modeltest.CodexCLI(t)
	s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	env, home, _ := s.CodexEnv(t)
	r := rigFor(t, cli, env, home)
	writeSkill(t, r.skills, "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\nBody.\n")
	code, out, errs := r.inProcess(t, runCtx(t), "run", "-a", "codex", "-s", filepath.Join(r.skills, "alpha"), "--json", "hi")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	session, _ := last["session_id"].(string)
	if session == "" {
		t.Fatalf("no session in %q", out)
	}
	rows := r.cacheRows(t)
	var homes []map[string]any
	for _, row := range rows {
		if row["kind"] == "home" {
			homes = append(homes, row)
		}
	}
	if len(homes) != 1 || homes[0]["agent"] != "codex" || homes[0]["sessions"] != 1.0 || homes[0]["bytes"].(float64) <= 0 || homes[0]["in_use"] != false {
		t.Fatalf("cache list homes = %v, want one Codex home with one session and its size", homes)
	}
	code, out, errs = r.inProcess(t, runCtx(t), "cache", "gc", "--older-than", "1ns")
	if code != 0 || !strings.Contains(out, "Removed 0 skill mounts and 1 agent homes") ||
		!strings.Contains(out, "held 1 sessions, which can no longer be resumed") {
		t.Fatalf("cache gc = %d, %q, stderr %q; want the home removed and its session counted", code, out, errs)
	}
	if n := kinds(r.cacheRows(t)); n["home"] != 0 {
		t.Errorf("cache list after gc = %v, want no home", n)
	}
	code, _, errs = r.inProcess(t, runCtx(t), "run", "-a", "codex", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "again")
	if code == 0 || !strings.Contains(errs, session) {
		t.Errorf("resume after gc = %d, stderr %q; want it refused", code, errs)
	}
}
