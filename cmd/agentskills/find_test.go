package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

// findWorld starts a web index, a registry and a GitHub API stand-in,
// points the environment at them, and returns the home folder, the site,
// the registry's host and a switch that makes GitHub fail.
func findWorld(t *testing.T) (home, site, host string, breakGitHub func()) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "")

	index := fmt.Sprintf(`{"$schema":%q,"skills":[{"name":"pdf","type":"skill-md","description":"Reads PDF files \u001b[31mred","url":"/pdf/SKILL.md","digest":"sha256:%s"}]}`,
		webindex.Schema, strings.Repeat("a", 64))
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != webindex.Path {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, index)
	}))
	t.Cleanup(web.Close)

	_, host = ocireg.Start(t, false)
	dir := filepath.Join(t.TempDir(), "pdf-forms")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf-forms\ndescription: Fills PDF forms\n---\nbody\n"), 0o644)
	if _, err := oci.Push(t.Context(), dir, "oci://"+host+"/acme/pdf-forms:1.0"); err != nil {
		t.Fatal(err)
	}

	broken := false
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		if r.URL.Path != "/search/repositories" {
			http.NotFound(w, r)
			return
		}
		if !strings.Contains(r.URL.Query().Get("q"), "pdf") {
			io.WriteString(w, `{"items":[]}`)
			return
		}
		io.WriteString(w, `{"items":[{"name":"pdf-skills","description":"PDF skills","owner":{"login":"acme"}}]}`)
	}))
	t.Cleanup(gh.Close)
	t.Setenv("GITHUB_API_URL", gh.URL)
	return home, web.URL, host, func() { broken = true }
}

func writeFindConfig(t *testing.T, home, text string) {
	t.Helper()
	p := filepath.Join(home, ".agents", "agentskills.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	home, site, host, _ := findWorld(t)
	writeFindConfig(t, home, "indexes:\n  - "+site+"\nregistries:\n  - "+host+"\n")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"find", "pdf"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("find pdf = %d; stderr:\n%s", code, stderr.String())
	}
	want := "pdf  (index " + site + ")\n" +
		"  Reads PDF files \\x1b[31mred\n" +
		"  agentskills add " + site + " --skill pdf\n\n" +
		"pdf-forms  (registry " + host + ")\n" +
		"  Fills PDF forms\n" +
		"  agentskills add oci://" + host + "/acme/pdf-forms:1.0\n\n" +
		"pdf-skills  (GitHub)\n" +
		"  PDF skills\n" +
		"  agentskills add acme/pdf-skills\n"
	if stdout.String() != want {
		t.Errorf("find pdf stdout =\n%s\nwant\n%s", stdout.String(), want)
	}
	if want := "note: GitHub searches SKILL.md files only with a token: set GITHUB_TOKEN or GH_TOKEN to search them too\n"; stderr.String() != want {
		t.Errorf("find pdf stderr = %q, want %q", stderr.String(), want)
	}
}

func TestFindJSON(t *testing.T) {
	_, site, host, _ := findWorld(t)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"find", "--json", "--limit", "1", "--index", site, "--registry", host + "/acme/pdf-forms", "forms"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("find = %d; stderr:\n%s", code, stderr.String())
	}
	var got findJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("find --json = %q: %v", stdout.String(), err)
	}
	if got.Query != "forms" || len(got.Results) != 1 || got.Results[0].Name != "pdf-forms" || got.Results[0].Install != "agentskills add oci://"+host+"/acme/pdf-forms:1.0" {
		t.Errorf("find --json = %+v, want the one registry result", got)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("find --json warnings = %+v, want none", got.Warnings)
	}
}

func TestFindFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		config   string
		args     []string
		broken   bool
		wantCode int
		stdout   string
		stderr   string
	}{
		{"no query", "", []string{"find"}, false, 2, "", "want a QUERY"},
		{"control character", "", []string{"find", "pdf\x1b"}, false, 2, "", "control character"},
		{"too long", "", []string{"find", strings.Repeat("q", 300)}, false, 2, "", "the most is 256"},
		{"limit", "", []string{"find", "--limit", "0", "pdf"}, false, 2, "", "--limit 0"},
		{"bad index", "", []string{"find", "--index", "http://example.com", "pdf"}, false, 2, "", "--index: \"http://example.com\": invalid configuration"},
		{"bad registry", "", []string{"find", "--registry", "ghcr.io/Acme:1", "pdf"}, false, 2, "", "--registry: \"ghcr.io/Acme:1\": invalid configuration"},
		{"bad file", "indexes: [\n", []string{"find", "pdf"}, false, 2, "", "agentskills.yaml:"},
		{"nothing to search", "", []string{"find", "--no-github", "pdf"}, false, 2, "", "nothing to search"},
		{"no result", "", []string{"find", "nothing"}, false, 0, "", "no skills found for \"nothing\""},
		{"every place failed", "", []string{"find", "pdf"}, true, 1, "", "every place searched failed"},
		{"every place failed, JSON", "", []string{"find", "--json", "pdf"}, true, 1, `"code":"failed"`, "warning: GitHub repositories search: GitHub answered 500 Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, _, _, breakGitHub := findWorld(t)
			if tc.config != "" {
				writeFindConfig(t, home, tc.config)
			}
			if tc.broken {
				breakGitHub()
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.wantCode || !strings.Contains(stderr.String(), tc.stderr) || !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.wantCode, tc.stdout, tc.stderr)
			}
		})
	}
}
