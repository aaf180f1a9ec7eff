package webindex_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

const site = "https://example.com/.well-known/agent-skills/index.json"

var goodDigest = "sha256:" + strings.Repeat("ab", 32)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseSpecificationExamples reads indexes written from the
// specification's examples (rules 1 and 2).
func TestParseSpecificationExamples(t *testing.T) {
	ix, err := webindex.Parse(readTestdata(t, "full.json"), site)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ix.Skills {
		got = append(got, fmt.Sprintf("%s %s %s", s.Name, s.Type, s.Resolved))
	}
	want := []string{
		"code-review skill-md https://example.com/.well-known/agent-skills/code-review/SKILL.md",
		"git-workflow skill-md https://example.com/.well-known/agent-skills/git-workflow/SKILL.md",
		"wrangler archive https://cdn.example.com/v2/skills/wrangler.tar.gz",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse(full.json) skills (-want +got):\n%s", diff)
	}
	if len(ix.Skipped) != 1 || ix.Skipped[0].Name != "future" || !strings.Contains(ix.Skipped[0].Reason, `type "plugin"`) {
		t.Errorf("Parse(full.json) skipped = %+v, want the entry of type plugin", ix.Skipped)
	}
	if s, ok := ix.Lookup("wrangler"); !ok || s.Digest != "sha256:f1e2d3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2" {
		t.Errorf("Lookup(wrangler) = %+v, %v", s, ok)
	}
	if _, ok := ix.Lookup("future"); ok {
		t.Error("Lookup(future) found a skipped entry")
	}

	// The specification's own example abbreviates its digests: every
	// entry is skipped, saying why.
	ix, err = webindex.Parse(readTestdata(t, "spec-example.json"), site)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Skills) != 0 || len(ix.Skipped) != 3 || !strings.Contains(ix.Skipped[0].Reason, "64 lowercase hex digits") {
		t.Errorf("Parse(spec-example.json) = %+v, want three entries skipped for their digests", ix)
	}
}

// TestParseRefusesIndex covers what makes a whole index invalid (rules 1
// and 3).
func TestParseRefusesIndex(t *testing.T) {
	entry := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"type":"skill-md","description":"d","url":"x","digest":%q}`, name, goodDigest)
	}
	many := make([]string, webindex.MaxSkills+1)
	for i := range many {
		many[i] = "{}"
	}
	tests := []struct {
		name, data, want string
	}{
		{"v0.1.0", string(readTestdata(t, "v010.json")), "v0.1.0 index"},
		{"unknown schema", `{"$schema":"https://schemas.agentskills.io/discovery/9.0.0/schema.json","skills":[]}`, "does not read"},
		{"schema not a string", `{"$schema":1,"skills":[]}`, "not a JSON object"},
		{"no skills", `{"$schema":"` + webindex.Schema + `"}`, `no "skills" array`},
		{"skills not an array", `{"$schema":"` + webindex.Schema + `","skills":{}}`, "not a JSON object"},
		{"not JSON", `<html>`, "not a JSON object"},
		{"an array", `[]`, "not a JSON object"},
		{"too large", `{"$schema":"` + webindex.Schema + `","skills":[],"pad":"` + strings.Repeat("x", webindex.MaxIndexSize) + `"}`, "larger than"},
		{"too many", `{"$schema":"` + webindex.Schema + `","skills":[` + strings.Join(many, ",") + `]}`, "at most 10000"},
		{"duplicate", `{"$schema":"` + webindex.Schema + `","skills":[` + entry("a") + "," + entry("a") + `]}`, `two entries are named "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webindex.Parse([]byte(tt.data), site)
			if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want source.ErrInvalid saying %q", err, tt.want)
			}
		})
	}
	for _, u := range []string{"file:///etc/index.json", "ftp://h/x", "/relative", "https://"} {
		if _, err := webindex.Parse([]byte(`{}`), u); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Parse(index URL %q) = %v, want source.ErrInvalid", u, err)
		}
	}
}

// TestParseSkipsEntries covers each check of an entry (rule 2).
func TestParseSkipsEntries(t *testing.T) {
	tests := []struct {
		name, entry, want string
	}{
		{"null", `null`, "not a JSON object"},
		{"a string", `"x"`, "not a JSON object"},
		{"no name", `{"type":"skill-md","description":"d","url":"x","digest":"%s"}`, `no "name"`},
		{"name a number", `{"name":5,"type":"skill-md","description":"d","url":"x","digest":"%s"}`, `"name" is not a string`},
		{"traversal name", `{"name":"../evil","type":"skill-md","description":"d","url":"x","digest":"%s"}`, "only a-z"},
		{"upper case", `{"name":"Evil","type":"skill-md","description":"d","url":"x","digest":"%s"}`, "only a-z"},
		{"hyphen start", `{"name":"-a","type":"skill-md","description":"d","url":"x","digest":"%s"}`, "starts or ends"},
		{"double hyphen", `{"name":"a--b","type":"skill-md","description":"d","url":"x","digest":"%s"}`, "two hyphens"},
		{"long name", `{"name":"` + strings.Repeat("a", 65) + `","type":"skill-md","description":"d","url":"x","digest":"%s"}`, "longer than 64"},
		{"unknown type", `{"name":"a","type":"zip","description":"d","url":"x","digest":"%s"}`, `type "zip"`},
		{"type a list", `{"name":"a","type":["archive"],"description":"d","url":"x","digest":"%s"}`, `"type" is not a string`},
		{"empty description", `{"name":"a","type":"archive","description":" ","url":"x","digest":"%s"}`, "description is empty"},
		{"long description", `{"name":"a","type":"archive","description":"` + strings.Repeat("é", 1025) + `","url":"x","digest":"%s"}`, "1025 characters"},
		{"file URL", `{"name":"a","type":"archive","description":"d","url":"file:///etc/passwd","digest":"%s"}`, "not an http or https URL"},
		{"javascript URL", `{"name":"a","type":"archive","description":"d","url":"javascript:alert(1)","digest":"%s"}`, "not an http or https URL"},
		{"credentials", `{"name":"a","type":"archive","description":"d","url":"https://u:secret@cdn.example/a.tgz","digest":"%s"}`, "user information"},
		{"empty URL", `{"name":"a","type":"archive","description":"d","url":"","digest":"%s"}`, "url is empty"},
		{"bad URL", `{"name":"a","type":"archive","description":"d","url":"http://[::1","digest":"%s"}`, "is not a URL"},
		{"upper digest", `{"name":"a","type":"archive","description":"d","url":"x","digest":"` + strings.ToUpper(goodDigest) + `"}`, "64 lowercase"},
		{"sha512", `{"name":"a","type":"archive","description":"d","url":"x","digest":"sha512:` + strings.Repeat("ab", 32) + `"}`, "64 lowercase"},
		{"short digest", `{"name":"a","type":"archive","description":"d","url":"x","digest":"sha256:abc"}`, "64 lowercase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.entry
			if strings.Contains(e, "%s") {
				e = fmt.Sprintf(e, goodDigest)
			}
			data := `{"$schema":"` + webindex.Schema + `","skills":[` + e + `,{"name":"ok","type":"archive","description":"d","url":"ok.tgz","digest":"` + goodDigest + `"}]}`
			ix, err := webindex.Parse([]byte(data), site)
			if err != nil {
				t.Fatal(err)
			}
			if len(ix.Skills) != 1 || ix.Skills[0].Name != "ok" {
				t.Errorf("skills = %+v, want only ok", ix.Skills)
			}
			if len(ix.Skipped) != 1 || !strings.Contains(ix.Skipped[0].Reason, tt.want) {
				t.Errorf("skipped = %+v, want one saying %q", ix.Skipped, tt.want)
			}
			if strings.Contains(fmt.Sprint(ix.Skipped), "secret") {
				t.Errorf("skipped = %+v shows a credential", ix.Skipped)
			}
		})
	}
}

// TestRead stops at the size limit (rule 1).
func TestRead(t *testing.T) {
	big := strings.NewReader(`{"$schema":"` + webindex.Schema + `","skills":[],"x":"` + strings.Repeat("x", 2*webindex.MaxIndexSize) + `"}`)
	if _, err := webindex.Read(big, site); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Read(huge) = %v, want the size limit", err)
	}
	ix, err := webindex.Read(strings.NewReader(`{"$schema":"`+webindex.Schema+`","skills":[]}`), site)
	if err != nil || len(ix.Skills) != 0 {
		t.Errorf("Read(empty) = %+v, %v", ix, err)
	}
}

// TestIndexURL covers rule 4.
func TestIndexURL(t *testing.T) {
	tests := []struct {
		in, want string
		ok, err  bool
	}{
		{"https://example.com", site, true, false},
		{"https://example.com/", site, true, false},
		{site, site, true, false},
		{"http://localhost:8080/team/.well-known/agent-skills/index.json", "http://localhost:8080/team/.well-known/agent-skills/index.json", true, false},
		{"https://example.com/kit.tar.gz", "", false, false},
		{"https://example.github.io/team/", "https://example.github.io/team/.well-known/agent-skills/index.json", true, false},
		{"https://example.com/docs", "", false, false},
		{"./skills", "", false, false},
		{"git+https://example.com/", "", false, false},
		{"https://example.com/?q=1", "", true, true},
		{"https://example.com/#sha256=00", "", true, true},
		{"https://user:pw@example.com/", "", true, true},
		{"https://gitlab.com/acme/skills/", "", false, false}, // a repository (source's rule 19)
		{"https://github.com/acme/skills/", "", false, false},
	}
	for _, tt := range tests {
		got, ok, err := webindex.IndexURL(tt.in)
		if got != tt.want || ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("IndexURL(%q) = %q, %v, %v; want %q, %v, error %v", tt.in, got, ok, err, tt.want, tt.ok, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("IndexURL(%q) error %v shows a credential", tt.in, err)
		}
	}
}

// TestIndexURLAgreesWithParse checks that rule 4 is source's rule 20:
// IndexURL names an index exactly when source.Parse reads a web index.
func TestIndexURLAgreesWithParse(t *testing.T) {
	for _, text := range []string{
		"https://example.com", "https://example.com/", "http://example.com/team/", site,
		"https://example.com/kit.tgz", "https://example.com/docs", "https://example.com/x/.well-known/agent-skills/",
		"https://github.com/", "https://github.com/acme/", "https://github.com/acme/skills", "https://github.com/acme/skills/",
		"https://gitlab.com/acme/skills/", "https://codeberg.org/acme/skills/", "https://host.example/acme/skills.git/",
		"https://ghe.example/acme/skills/tree/main/", "https://example.com/?q=1", "https://user@example.com/",
		"oci://example.com/", "git+https://example.com/", "./skills/", "acme/skills",
	} {
		spec, err := source.Parse(text)
		want := err == nil && spec.Kind == source.WebIndex
		if _, ok, _ := webindex.IndexURL(text); ok != want {
			t.Errorf("IndexURL(%q) names an index: %v, want %v (source.Parse: %v, %v)", text, ok, want, spec.Kind, err)
		}
	}
}

func TestDigest(t *testing.T) {
	d := webindex.Digest([]byte("x"))
	if !webindex.ValidDigest(d) || d != "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" {
		t.Errorf("Digest(x) = %q", d)
	}
}
