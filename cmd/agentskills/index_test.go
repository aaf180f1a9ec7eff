package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIndexThenAdd writes a web index with index, serves it, and adds
// from the site: --list lists its skills, add installs them, and sync
// restores one from the cache with the site gone.
func TestIndexThenAdd(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "lone", "---\nname: lone\ndescription: A skill of one file.\n---\n")
	writeSkill(t, src, "kit", "---\nname: kit\ndescription: A skill with scripts.\n---\n")
	os.MkdirAll(filepath.Join(src, "kit", "scripts"), 0o755)
	os.WriteFile(filepath.Join(src, "kit", "scripts", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	bad := t.TempDir()
	writeSkill(t, bad, "bad", "---\nname: bad\ndescription: x\nunknown: field\n---\n")
	out := t.TempDir()
	project := t.TempDir()
	t.Chdir(project)

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // a regular expression
		wantStderr string
	}{
		{"writes", []string{"index", src, "-o", out}, 0, `^kit +archive +kit\.tar\.gz\nlone +skill-md +lone/SKILL\.md\n$`, "with 2 skills"},
		{"again, the same", []string{"index", src, "-o", out}, 0, `kit\.tar\.gz`, "with 2 skills"},
		{"absolute URLs", []string{"index", src, "--base-url", "https://example.com", "-o", t.TempDir()}, 0, `https://example\.com/\.well-known/agent-skills/kit\.tar\.gz`, ""},
		{"no output", []string{"index", src}, 2, `^$`, "missing -o OUT"},
		{"no folder", []string{"index", "-o", out}, 2, `^$`, "missing DIR"},
		{"not valid", []string{"index", bad, "-o", t.TempDir()}, 1, `^$`, "agentskills validate"},
		{"bad base", []string{"index", src, "--base-url", "file:///x", "-o", t.TempDir()}, 1, `^$`, "base URL"},
		{"no skills", []string{"index", t.TempDir(), "-o", t.TempDir()}, 2, `^$`, "holds no skill"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tt.args, code, tt.wantCode, stderr.String())
			}
			if !regexp.MustCompile(tt.wantStdout).MatchString(stdout.String()) {
				t.Errorf("run(%q) stdout = %q, want %q", tt.args, stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("run(%q) stderr = %q, want %q", tt.args, stderr.String(), tt.wantStderr)
			}
		})
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"add", srv.URL, "--list"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("add --list = %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "A skill with scripts.") || !strings.Contains(stdout.String(), "lone") {
		t.Errorf("add --list printed %q, want both skills", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(t.Context(), []string{"add", srv.URL, "-a", "claude-code"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("add = %d: %s", code, stderr.String())
	}
	lock, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil || !strings.Contains(string(lock), `"source": "`+srv.URL+`/.well-known/agent-skills/index.json"`) || !strings.Contains(string(lock), `"pin": "sha256:`) {
		t.Errorf("lock file = %s, %v; want the index URL and a digest pin", lock, err)
	}
	srv.Close()
	os.RemoveAll(filepath.Join(project, ".agents", "skills", "kit"))
	if code := run(t.Context(), []string{"sync"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("sync with the site gone = %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "kit", "scripts", "run.sh")); err != nil {
		t.Errorf("sync did not restore kit: %v", err)
	}
}
