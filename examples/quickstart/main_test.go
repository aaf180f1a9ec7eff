package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuickstart(t *testing.T) {
	cache := t.TempDir()
	var out, errs bytes.Buffer
	if code := run(t.Context(), []string{"-skills", "../skills", "-cache", cache}, &out, &errs); code != 0 {
		t.Fatalf("run = %d, stderr %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("output has %d lines, want a header and 4 skills:\n%s", len(lines), out.String())
	}
	wantKeys := []string{"code-review", "greet", "Plain Words", "release-notes"}
	wantNames := []string{"code-review", "greet", "plain-words", "release-notes"}
	for i, line := range lines[1:] {
		dir := line[strings.LastIndex(line, " ")+1:]
		if !strings.HasPrefix(line, wantKeys[i]+" ") || filepath.Base(dir) != wantNames[i] {
			t.Errorf("line %q, want key %q and a folder named %q", line, wantKeys[i], wantNames[i])
		}
		if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
			t.Errorf("%s: %v", wantKeys[i], err)
		}
		if i > 0 && !strings.HasPrefix(dir, cache) {
			t.Errorf("%s materialized at %s, want under the cache %s", wantKeys[i], dir, cache)
		}
	}
	script := filepath.Join(lines[4][strings.LastIndex(lines[4], " ")+1:], "scripts", "changes.sh")
	if fi, err := os.Stat(script); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("archive script %s lost its executable bit: %v %v", script, fi, err)
	}
	if code := run(t.Context(), []string{"-skills", "nowhere"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "repository root") {
		t.Errorf("run with a missing skills folder = %d, %q; want 2 and a hint", code, errs.String())
	}
}
