package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash-separated names) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fm(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
}

// TestAddPluginsNestedLenient runs add's --plugin, --lenient and --list
// on a marketplace with a nested skill and one whose description is over
// the specification's limit.
func TestAddPluginsNestedLenient(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeTree(t, src, map[string]string{
		".claude-plugin/marketplace.json":               `{"plugins":[{"name":"docs","source":"./plugins/docs"},{"name":"api","source":"./plugins/api"}]}`,
		"plugins/docs/skills/pdf/SKILL.md":              fm("pdf", "Read PDFs."),
		"plugins/docs/skills/pdf/forms/SKILL.md":        fm("pdf-forms", "Fill PDF forms."),
		"plugins/api/skills/api/SKILL.md":               fm("api", strings.Repeat("x", 1100)),
		"plugins/example/.claude-plugin/plugin.json":    `{"name":"example"}`,
		"plugins/example/skills/example-skill/SKILL.md": fm("example-skill", "An example."),
	})
	tests := []struct {
		name       string
		args       []string
		code       int
		out, errs  []string
		notOut     []string
		installed  []string
		lenientAPI bool
	}{
		{name: "list", args: []string{"--list"}, code: 0,
			out: []string{
				"PLUGIN  SKILL",
				"api     api",
				"(skipped by add unless --lenient: Description exceeds 1024 character limit (1100 chars))",
				"docs    pdf-forms  plugins/docs/skills/pdf/forms  (part of the skill at plugins/docs/skills/pdf; --skill plugins/docs/skills/pdf/forms installs it alone)",
			},
			notOut: []string{"example-skill"}},
		{name: "list of a plugin", args: []string{"--list", "--plugin", "api"}, out: []string{"api"}, notOut: []string{"pdf"}},
		{name: "list of an unknown plugin", args: []string{"--list", "--plugin", "example"}, code: 2,
			errs: []string{`holds no skill of a plugin named example; the plugins with skills there: api, docs`}},
		{name: "add", args: []string{}, installed: []string{"pdf"},
			errs: []string{"skipped   api (", "(--lenient installs it)"}},
		{name: "add a plugin", args: []string{"--plugin", "docs"}, installed: []string{"pdf"}},
		{name: "add an unknown plugin", args: []string{"--plugin", "example"}, code: 2,
			errs: []string{`holds no skill of a plugin named "example"; the plugins with skills there: api, docs`}},
		{name: "add the skill over the limit", args: []string{"--plugin", "api"}, code: 2,
			errs: []string{"breaks the Agent Skills specification", "agentskills add: 'agentskills add --lenient' installs a skill that breaks only the specification"}},
		{name: "add it leniently", args: []string{"--plugin", "api", "--lenient"}, installed: []string{"api"}, lenientAPI: true,
			errs: []string{"warning   api (", "Description exceeds 1024 character limit"}},
		{name: "add a nested skill by name", args: []string{"--skill", "pdf-forms"}, installed: []string{"pdf-forms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := t.TempDir()
			t.Chdir(project)
			var stdout, stderr bytes.Buffer
			args := append([]string{"add", src, "-a", "claude-code"}, tt.args...)
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("run(%q) = %d, want %d; stderr:\n%s", args, code, tt.code, stderr.String())
			}
			for _, s := range tt.out {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("run(%q) stdout =\n%s\nwant %q", args, stdout.String(), s)
				}
			}
			for _, s := range tt.notOut {
				if strings.Contains(stdout.String(), s) {
					t.Errorf("run(%q) stdout =\n%s\nwant no %q", args, stdout.String(), s)
				}
			}
			for _, s := range tt.errs {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("run(%q) stderr =\n%s\nwant %q", args, stderr.String(), s)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(project, ".agents", "skills"))
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if strings.Join(got, ",") != strings.Join(tt.installed, ",") {
				t.Errorf("run(%q) installed %q, want %q", args, got, tt.installed)
			}
			if tt.lenientAPI {
				lock, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
				if err != nil || !strings.Contains(string(lock), `"lenient": true`) {
					t.Errorf("lock file = %s, %v, want api recorded lenient", lock, err)
				}
			}
		})
	}
}

// TestAddPluginDependencies runs add --plugin on a marketplace whose
// plugin a depends on its plugin b and on a plugin of another
// marketplace: b's skill is installed as a dependency, the other is
// reported and not followed, remove takes b's skill with a's, and
// --no-requires installs a's alone.
func TestAddPluginDependencies(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeTree(t, src, map[string]string{
		".claude-plugin/marketplace.json":      `{"name":"acme","plugins":[{"name":"a","source":"./plugins/a"},{"name":"b","source":"./plugins/b","version":"1.0.0"}]}`,
		"plugins/a/.claude-plugin/plugin.json": `{"name":"a","dependencies":[{"name":"b","version":"^1"},{"name":"x","marketplace":"other"}]}`,
		"plugins/a/skills/a1/SKILL.md":         fm("a1", "The a skill."),
		"plugins/b/skills/b1/SKILL.md":         fm("b1", "The b skill."),
	})
	installed := func(project string) string {
		entries, _ := os.ReadDir(filepath.Join(project, ".agents", "skills"))
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		return strings.Join(got, ",")
	}
	project := t.TempDir()
	t.Chdir(project)
	var stdout, stderr bytes.Buffer
	args := []string{"add", src, "-a", "claude-code", "--plugin", "a"}
	if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
	}
	if got := installed(project); got != "a1,b1" {
		t.Errorf("run(%q) installed %q, want a1,b1", args, got)
	}
	if want := `skipped   x (`; !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), `plugin "x" of the marketplace "other" is not installed: add that marketplace's source`) {
		t.Errorf("run(%q) stderr =\n%s\nwant x reported as skipped", args, stderr.String())
	}
	lock, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil || !strings.Contains(string(lock), `"dependency": true`) || !strings.Contains(string(lock), `"source": "../../../b/skills/b1"`) {
		t.Errorf("lock file = %s, %v; want b1 a dependency of a1", lock, err)
	}
	args = []string{"remove", "a1", "-y"}
	stdout.Reset()
	stderr.Reset()
	if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
	}
	if got := installed(project); got != "" {
		t.Errorf("after run(%q) installed %q, want nothing", args, got)
	}
	args = []string{"add", src, "-a", "claude-code", "--plugin", "a", "--no-requires"}
	if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
	}
	if got := installed(project); got != "a1" {
		t.Errorf("run(%q) installed %q, want a1", args, got)
	}
}
