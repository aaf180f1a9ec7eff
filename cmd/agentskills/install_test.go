package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestInstallExitCodes checks the one exit rule of the install commands:
// 0 success, 1 an operation or a check failed, 2 bad input only, 130
// interrupted.
func TestInstallExitCodes(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	good := filepath.Join(src, "good")
	// A port nothing listens on: the connection is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/kit.tgz"
	l.Close()
	canceled, cancel := context.WithCancel(t.Context())
	cancel()

	tests := []struct {
		name  string
		setup func(t *testing.T, project string)
		ctx   context.Context
		args  []string
		code  int
		errs  string
	}{
		{name: "verify with nothing recorded", args: []string{"verify"}, code: 1, errs: "no skills are recorded"},
		{name: "add of a missing folder", args: []string{"add", filepath.Join(src, "nope"), "-a", "codex"}, code: 2, errs: "source cannot be installed"},
		{name: "add of a refused URL", args: []string{"add", refused, "-a", "codex"}, code: 1, errs: "source unavailable"},
		{name: "add of a stalled download", args: []string{"add", stalled(t), "-a", "codex", "--timeout", "200ms"}, code: 1, errs: "nothing received for 200ms\nagentskills add: give the download longer with --timeout"},
		{name: "add of an archive over a limit", args: []string{"add", bomb(t), "-a", "codex"}, code: 2, errs: "the limit is MaxFileSize = 67108864, which agentskills does not change"},
		{name: "remove of what is not installed", args: []string{"remove", "good"}, code: 2, errs: "not installed by agentskills"},
		{name: "add interrupted", ctx: canceled, args: []string{"add", good, "-a", "codex"}, code: 130, errs: "nothing was changed"},
		{name: "add over a user's folder", args: []string{"add", good, "-a", "claude-code"}, code: 1, errs: "was not installed by agentskills",
			setup: func(t *testing.T, project string) {
				os.MkdirAll(filepath.Join(project, ".claude", "skills", "good"), 0o755)
			}},
	}
	for _, cmd := range [][]string{{"add", good, "-a", "codex"}, {"list"}, {"verify"}, {"sync"}, {"remove", "good"}} {
		tests = append(tests, struct {
			name  string
			setup func(t *testing.T, project string)
			ctx   context.Context
			args  []string
			code  int
			errs  string
		}{name: cmd[0] + " with an invalid lock file", args: cmd, code: 2, errs: "lock file is not valid", setup: func(t *testing.T, project string) {
			os.MkdirAll(filepath.Join(project, ".agents"), 0o755)
			os.WriteFile(filepath.Join(project, ".agents", "agentskills.lock"), []byte("{"), 0o644)
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := t.TempDir()
			t.Chdir(project)
			if tt.setup != nil {
				tt.setup(t, project)
			}
			ctx := tt.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			var stdout, stderr bytes.Buffer
			code := run(ctx, tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.errs) {
				t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), tt.code, tt.errs)
			}
		})
	}
}

// TestSyncWithoutLockFile checks that a sync in a project without a lock
// file says there is nothing to sync and how to add skills, exits 0, and
// writes nothing: no lock file, no folder; and that sync --frozen (as npm
// ci) fails there instead, exit 1, naming the lock file it looked for.
func TestSyncWithoutLockFile(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	project := t.TempDir()
	t.Chdir(project)
	for _, tt := range []struct {
		args []string
		out  string
	}{
		{[]string{"sync"}, "Nothing to sync: there is no lock file (.agents/agentskills.lock). Add skills with 'agentskills add SOURCE', which writes it.\n"},
		{[]string{"sync", "--quiet"}, ""},
		{[]string{"sync", "--json"}, "[]\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != 0 || stdout.String() != tt.out || stderr.Len() != 0 {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want 0 and %q", tt.args, code, stdout.String(), stderr.String(), tt.out)
		}
		if names, err := os.ReadDir(project); err != nil || len(names) != 0 {
			t.Errorf("after %q the project holds %v (%v), want nothing", tt.args, names, err)
		}
	}
	for _, args := range [][]string{{"sync", "--frozen"}, {"sync", "--frozen", "--json"}, {"sync", "--frozen", "--quiet"}} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "agentskills.lock: no skills are recorded: there is no lock file") || !strings.Contains(stderr.String(), "agentskills add SOURCE") {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want 1 and the lock file named", args, code, stdout.String(), stderr.String())
		}
		if names, err := os.ReadDir(project); err != nil || len(names) != 0 {
			t.Errorf("after %q the project holds %v (%v), want nothing", args, names, err)
		}
	}
}

// TestJSONKeysOneStyle checks that every command's JSON output uses one
// style of keys: lowercase words joined by underscores.
func TestJSONKeysOneStyle(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	project := t.TempDir()
	t.Chdir(project)
	kit := filepath.Join(t.TempDir(), "kit.tgz")
	writeTgz(t, kit, map[string]string{"cached/SKILL.md": "---\nname: cached\ndescription: From an archive.\n---\n"})
	// Something in the cache, for cache list.
	if _, err := skill.NewDefaultSkillMaterializer().Materialize(t.Context(), skill.Archive("cached", skill.ArchiveFile(kit), skill.WithSubpath("cached"))); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				keys = append(keys, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, args := range [][]string{
		{"add", filepath.Join(src, "good"), kit, "-a", "claude-code", "--json"},
		{"list", "--json"},
		{"sync", "--json"},
		{"agents", "--json"},
		{"cache", "list", "--json"},
		{"validate", "--json", filepath.Join(src, "good")},
		{"remove", "good", "--json"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("run(%q) = %d: %s", args, code, stderr.String())
		}
		var v any
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
			t.Fatalf("run(%q) printed invalid JSON: %v\n%s", args, err, stdout.String())
		}
		keys = keys[:0]
		walk(v)
		if len(keys) == 0 {
			t.Errorf("run(%q) printed no keys: %s", args, stdout.String())
		}
		for _, k := range keys {
			if !regexp.MustCompile(`^[a-z][a-z0-9_]*$`).MatchString(k) {
				t.Errorf("run(%q) prints the key %q, want lowercase words joined by _", args, k)
			}
		}
	}
}

func TestVersionAndCompletion(t *testing.T) {
	for _, tt := range []struct {
		args []string
		out  string
	}{
		{[]string{"--version"}, "agentskills version "},
		{[]string{"completion", "bash"}, "bash completion"},
		{[]string{"completion", "zsh"}, "compdef"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), tt.out) {
			t.Errorf("run(%q) = %d, stdout %.80q; want 0 and %q", tt.args, code, stdout.String(), tt.out)
		}
	}
}

func writeTgz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	if err := os.WriteFile(path, testarchive.TarGzFiles(t, files), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bomb writes a tar.gz whose one file is a byte over the default
// per-file limit (64 MiB of zeros, compressed to about 80 KiB).
func bomb(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bomb.tgz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The fastest level: the 64 MiB of zeros are what matters, not how
	// small they get.
	gz, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	md := "---\nname: bomb\ndescription: Too big.\n---\n"
	tw.WriteHeader(&tar.Header{Name: "bomb/SKILL.md", Mode: 0o644, Size: int64(len(md))})
	tw.Write([]byte(md))
	const size = 64<<20 + 1
	tw.WriteHeader(&tar.Header{Name: "bomb/zeros", Mode: 0o644, Size: size})
	zeros := make([]byte, 1<<20)
	for n := 0; n < size; n += len(zeros) {
		tw.Write(zeros[:min(len(zeros), size-n)])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// stalled returns the URL of a server that answers and then sends
// nothing until the test ends.
func stalled(t *testing.T) string {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv.URL + "/kit.tgz"
}

// TestRemoveEditedSkill checks that remove keeps a skill edited since it
// was installed, pointing at --force, and that --force removes it after
// moving it to a backup, as sync --force does.
func TestRemoveEditedSkill(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	project := t.TempDir()
	t.Chdir(project)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, _, errs := run("add", filepath.Join(src, "good"), "-a", "claude-code", "--copy"); code != 0 {
		t.Fatalf("add = %d: %s", code, errs)
	}
	canonical := filepath.Join(project, ".agents", "skills", "good")
	copied := filepath.Join(project, ".claude", "skills", "good")
	os.WriteFile(filepath.Join(canonical, "notes.md"), []byte("my notes"), 0o644)
	os.WriteFile(filepath.Join(copied, "SKILL.md"), []byte("---\nname: good\ndescription: Mine now.\n---\n"), 0o644)

	code, _, errs := run("remove", "good")
	if code != 1 || !strings.Contains(errs, "was changed since agentskills installed it") || !strings.Contains(errs, "--force") {
		t.Fatalf("remove of an edited skill = %d, stderr %q; want 1, the change and --force", code, errs)
	}
	if _, err := os.Stat(filepath.Join(canonical, "notes.md")); err != nil {
		t.Fatalf("a refused remove touched the edited skill: %v", err)
	}
	code, out, errs := run("remove", "good", "--force")
	if code != 0 {
		t.Fatalf("remove --force = %d: %s", code, errs)
	}
	for _, p := range []string{canonical, copied} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("remove --force left %s", p)
		}
	}
	backups, _ := filepath.Glob(filepath.Join(project, ".agents", "backups", "*"))
	var kept []string
	for _, b := range backups {
		for _, f := range []string{filepath.Join(b, "good", "notes.md"), filepath.Join(b, "claude-code", "good", "SKILL.md")} {
			if data, err := os.ReadFile(f); err == nil {
				kept = append(kept, string(data))
			}
		}
	}
	if len(kept) != 2 || kept[0] != "my notes" && kept[1] != "my notes" {
		t.Errorf("backups under .agents/backups hold %q, want the edited canonical copy and the edited copy", kept)
	}
	if !strings.Contains(out, "now in .agents/backups") {
		t.Errorf("remove --force printed %q, want where each backup is", out)
	}
	if code, _, errs := run("verify"); code == 0 || strings.Contains(errs, "good") {
		t.Errorf("verify after remove --force = %d, %q; want the skill gone from the lock file", code, errs)
	}
}

// TestAddFolderWithLinkedSkills checks, through the command, that a
// SKILL.md linked to a file elsewhere in a folder source is installed,
// a mirror of a skill for another agent is not taken for a clash, and a
// skill linking out of the source is skipped with its reason while the
// rest install (exit 0).
func TestAddFolderWithLinkedSkills(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	base := t.TempDir()
	src := filepath.Join(base, "repo")
	writeSkill(t, filepath.Join(src, "skills"), "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\n")
	writeSkill(t, src, "shared", "---\nname: beta\ndescription: The beta skill.\n---\n")
	writeSkill(t, base, "outside", "---\nname: gamma\ndescription: Outside.\n---\n")
	for link, target := range map[string]string{
		"skills/beta/SKILL.md":          "../../shared/SKILL.md",
		".gemini/skills/alpha/SKILL.md": "../../../skills/alpha/SKILL.md",
		"skills/gamma/SKILL.md":         "../../../outside/SKILL.md",
	} {
		p := filepath.Join(src, filepath.FromSlash(link))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	project := t.TempDir()
	t.Chdir(project)
	var stdout, stderr bytes.Buffer
	args := []string{"add", src, "-a", "claude-code", "--skill", "alpha", "--skill", "beta", "--skill", "gamma"}
	code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("run(%q) = %d: %s", args, code, stderr.String())
	}
	for _, name := range []string{"alpha", "beta"} {
		if fi, err := os.Lstat(filepath.Join(project, ".agents", "skills", name, "SKILL.md")); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s/SKILL.md = %v, %v, want a regular file", name, fi, err)
		}
	}
	if errs := stderr.String(); !strings.Contains(errs, "skipped   gamma") || !strings.Contains(errs, "leads out of the source") || strings.Contains(errs, "alpha") {
		t.Errorf("stderr = %q, want gamma skipped as leading out of the source, and no clash of alpha", errs)
	}
}

// TestProgressOnlyOnATerminal checks where add and the other install
// commands report progress: on stderr when it is a terminal, never on a
// pipe or a file, nor with --quiet or --json.
func TestProgressOnlyOnATerminal(t *testing.T) {
	var stderr strings.Builder
	for _, tt := range []struct {
		quiet, json, terminal bool
		want                  bool
	}{
		{terminal: true, want: true},
		{terminal: false},
		{quiet: true, terminal: true},
		{json: true, terminal: true},
	} {
		f := &scopeFlags{quiet: tt.quiet, json: tt.json}
		if got := f.progress(&stderr, tt.terminal); (got != nil) != tt.want {
			t.Errorf("progress(quiet %v, json %v, terminal %v) = %v, want progress: %v", tt.quiet, tt.json, tt.terminal, got, tt.want)
		}
	}
}
