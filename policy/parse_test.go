package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// testPub is a P-256 public key in the PEM form cosign writes cosign.pub.
const testPub = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEF8vUrgF/ZVhjBaWIxjbW7mONKB7c
kqq3tgPlsJgxfaYUZUY5fx4VVa9vbQSlLCnhnqZGILrPBOgGaVTQ7GVDGg==
-----END PUBLIC KEY-----
`

// writePolicy writes content as the policy file of the scope dir (under
// dir/.agents) and returns its path.
func writePolicy(t *testing.T, dir, content string) string {
	t.Helper()
	name := filepath.Join(dir, ".agents", policy.FileName)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// Rule 1: strict parsing; every error names the file and line.
func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, policy.FileName)
	// name serves as a file the rules name (a keyring, a trusted root).
	if err := os.WriteFile(name, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, yaml string
		line       int    // the line the error names; 0: the file alone
		want       string // in the message
	}{
		{"empty", "", 0, "empty"},
		{"no version", "sources:\n  pinned: true\n", 1, "no version"},
		{"version 2", "version: 2\n", 1, `version "2"`},
		{"unknown top key", "version: 1\nsource:\n  pinned: true\n", 2, `unknown key "source"`},
		{"unknown sources key", "version: 1\nsources:\n  pinned: true\n  alow: []\n", 4, `unknown key "alow"`},
		{"unknown signer key", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    key: [k.pub]\n", 4, `unknown key "key"`},
		{"unknown audit key", "version: 1\naudit:\n  failon: low\n", 3, `unknown key "failon"`},
		{"unknown accept key", "version: 1\naudit:\n  accept:\n    - rule: symlink\n      reason: y\n      file: a\n", 6, `unknown key "file"`},
		{"duplicate key", "version: 1\nsources:\n  pinned: true\n  pinned: false\n", 4, "given twice"},
		{"merge key", "version: 1\nsources:\n  <<: {pinned: true}\n", 3, `unknown key "<<"`},
		{"anchor", "version: 1\nsources:\n  allow: &a [github:a/b]\n", 3, "anchors and aliases"},
		{"alias", "version: 1\nsources:\n  allow:\n    - github:a/b\nsigners:\n  - sources: [oci:x/y]\n    keys: *k\n", 0, "unknown anchor"},
		{"two documents", "version: 1\n---\nversion: 1\n", 0, "more than one YAML document"},
		{"syntax", "version: 1\nsources: [\n", 2, "did not find expected node content"},
		{"not a mapping", "- version: 1\n", 1, "must be a mapping"},
		{"pinned not bool", "version: 1\nsources:\n  pinned: yes\n", 3, "true or false"},
		{"allow not list", "version: 1\nsources:\n  allow: github:a/*\n", 3, "must be a list"},
		{"allow entry not string", "version: 1\nsources:\n  allow:\n    - [github:a/*]\n", 4, "must be a string"},
		{"bad kind", "version: 1\nsources:\n  allow:\n    - gitlab:a/*\n", 4, "KIND:LOCATION"},
		{"no colon", "version: 1\nsources:\n  allow:\n    - acme/*\n", 4, "KIND:LOCATION"},
		{"no location", "version: 1\nsources:\n  allow:\n    - \"oci:\"\n", 4, "names no location"},
		{"github owner only", "version: 1\nsources:\n  allow:\n    - github:acme\n", 4, "github:acme/*"},
		{"partial **", "version: 1\nsources:\n  allow:\n    - github:acme/x**\n", 4, "whole element"},
		{"bad glob", "version: 1\nsources:\n  allow:\n    - github:acme/[a\n", 4, "not a valid pattern"},
		{"too many elements", "version: 1\nsources:\n  allow:\n    - oci:h" + strings.Repeat("/a", 64) + "\n", 4, "more than 64"},
		{"signers not list", "version: 1\nsigners: {}\n", 2, "must be a list"},
		{"signer without sources", "version: 1\nsigners:\n  - identity: a\n    issuer: b\n", 3, "has no sources"},
		{"signer empty sources", "version: 1\nsigners:\n  - sources: []\n    identity: a\n    issuer: b\n", 3, "is empty"},
		{"signer names nobody", "version: 1\nsigners:\n  - sources: [oci:r/a]\n", 3, "names no signer"},
		{"identity without issuer", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    identity: me@acme.corp\n", 3, "without an issuer"},
		{"issuer without identity", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    issuer: https://accounts.google.com\n", 3, "without an issuer"},
		{"identity twice", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    identity: a\n    identity_regexp: b\n    issuer: c\n", 4, "keep one"},
		{"identity regexp does not compile", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    identity_regexp: ^https://(acme\n    issuer: c\n", 4, "does not compile"},
		{"issuer regexp does not compile", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    identity: a\n    issuer_regexp: '[z-a]'\n", 5, "does not compile"},
		{"keys on github", "version: 1\nsigners:\n  - sources: [oci:r/a, github:acme/*]\n    identity: a\n    issuer: b\n", 3, "sign oci sources, not \"github:acme/*\""},
		{"commits on oci", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    commits: {gpg_keyring: " + name + "}\n", 3, "commits apply to git and github sources"},
		{"commits and keys", "version: 1\nsigners:\n  - sources: [git:h/r]\n    commits: {gpg_keyring: " + name + "}\n    identity: a\n    issuer: b\n", 3, "write two rules"},
		{"commits empty", "version: 1\nsigners:\n  - sources: [git:h/r]\n    commits: {}\n", 4, "neither"},
		{"commits file missing", "version: 1\nsigners:\n  - sources: [git:h/r]\n    commits: {allowed_signers: nope}\n", 4, "no such file"},
		{"commits file a folder", "version: 1\nsigners:\n  - sources: [git:h/r]\n    commits: {allowed_signers: .}\n", 4, "not a regular file"},
		{"keys empty", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys: []\n", 4, "is empty"},
		{"key file missing", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys: [missing.pub]\n", 4, "no such file"},
		{"inline key not a public key", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys:\n      - |\n        -----BEGIN PRIVATE KEY-----\n        AAAA\n        -----END PRIVATE KEY-----\n", 5, "is not a public key"},
		{"key file not a key", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys:\n      - " + name + "\n", 5, "unusable key"},
		{"trusted root without identity", "version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys: [\"" + strings.ReplaceAll(testPub, "\n", "\\n") + "\"]\n    trusted_root: " + name + "\n", 5, "no identity"},
		{"fail_on unknown", "version: 1\naudit:\n  fail_on: severe\n", 3, "not a severity"},
		{"accept not list", "version: 1\naudit:\n  accept: {rule: a}\n", 3, "must be a list"},
		{"accept without reason", "version: 1\naudit:\n  accept:\n    - rule: download-exec\n", 4, "has no reason"},
		{"accept empty reason", "version: 1\naudit:\n  accept:\n    - rule: download-exec\n      reason: \"\"\n", 5, "is empty"},
		{"accept without rule", "version: 1\naudit:\n  accept:\n    - reason: ours\n", 4, "has no rule"},
		{"accept bad rule id", "version: 1\naudit:\n  accept:\n    - rule: Download Exec\n      reason: ours\n", 4, "is not an audit rule; the rules are attack-example, "},
		{"accept rule typo", "version: 1\naudit:\n  accept:\n    - rule: download-exce\n      reason: ours\n", 4, `"download-exce" is not an audit rule`},
		{"accept bad source", "version: 1\naudit:\n  accept:\n    - rule: symlink\n      reason: b\n      source: acme/*\n", 6, "KIND:LOCATION"},
		{"escape in reason", "version: 1\naudit:\n  accept:\n    - rule: symlink\n      reason: \"ok\\e[2J\"\n", 5, "U+001B"},
		{"bidi override in pattern", "version: 1\nsources:\n  allow: [\"github:acme/\u202e*\"]\n", 3, "U+202E"},
		{"accept bad skill", "version: 1\naudit:\n  accept:\n    - rule: symlink\n      reason: b\n      skill: \"[\"\n", 6, "not a valid pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := policy.Parse([]byte(tt.yaml), name)
			if !errors.Is(err, policy.ErrInvalid) {
				t.Fatalf("Parse(%q) = %v, want %v", tt.yaml, err, policy.ErrInvalid)
			}
			at := name + ": "
			if tt.line > 0 {
				at = name + ":" + strconv.Itoa(tt.line) + ": "
			}
			if !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %v, want it to name %q and say %q", tt.yaml, err, at, tt.want)
			}
		})
	}
}

// Rule 1: a file larger than MaxFileSize is refused unread, by Parse and
// by Load; a huge valid-looking file costs nothing.
func TestParseSizeCap(t *testing.T) {
	big := "version: 1\n#" + strings.Repeat("x", policy.MaxFileSize) + "\n"
	if _, err := policy.Parse([]byte(big), "p.yaml"); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Parse(%d bytes) = %v, want larger than %d", len(big), err, policy.MaxFileSize)
	}
	home := t.TempDir()
	writePolicy(t, home, big)
	if _, err := policy.Load(home, ""); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load(%d bytes) = %v, want larger than %d", len(big), err, policy.MaxFileSize)
	}
	// At the limit, the file is read.
	ok := "version: 1\n#" + strings.Repeat("x", policy.MaxFileSize-len("version: 1\n#\n")) + "\n"
	if _, err := policy.Parse([]byte(ok), "p.yaml"); err != nil {
		t.Errorf("Parse(%d bytes) = %v, want nil", len(ok), err)
	}
}

// Rule 1: the billion-laughs shape is refused at its first anchor,
// without expanding anything.
func TestParseAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nsources:\n  allow: &a0 [github:a/b]\naudit:\n  x0: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]\n")
	for i := 2; i < 10; i++ {
		b.WriteString("  x" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [*a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + "]\n")
	}
	_, err := policy.Parse([]byte(b.String()), "p.yaml")
	if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "p.yaml:3: YAML anchors and aliases") {
		t.Errorf("Parse(alias bomb) = %v, want anchors refused at line 3", err)
	}
}

// Rule 8: files a rule names are found in the policy file's folder, not
// the working folder; ~/ is the home; absolute paths are kept; .. is a
// path like any other, resolved against the policy file's folder.
func TestParseRelativeFiles(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	outside := t.TempDir()
	for _, p := range []string{
		filepath.Join(home, ".agents", "keys", "acme.pub"),
		filepath.Join(home, "secure", "acme.pub"),
		filepath.Join(project, "acme.pub"),
		filepath.Join(outside, "acme.pub"),
		filepath.Join(project, ".agents", "allowed_signers"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(testPub), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The working folder holds a key of the same name, which must not be
	// the one read.
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("keys", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, scope, key string
		wantErr          string
	}{
		{"relative to the policy folder", home, "keys/acme.pub", ""},
		{"home", project, "~/secure/acme.pub", ""},
		{"absolute", project, filepath.Join(outside, "acme.pub"), ""},
		{"dot dot from the policy folder", project, "../acme.pub", ""},
		{"not in the working folder", project, "keys/acme.pub", filepath.Join(project, ".agents", "keys", "acme.pub")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writePolicy(t, tt.scope, "version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys: ["+tt.key+"]\n")
			root := ""
			if tt.scope == project {
				root = project
			}
			_, err := policy.Load(home, root)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Load with key %q = %v, want nil", tt.key, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Load with key %q = %v, want an error naming %s", tt.key, err, tt.wantErr)
			}
			os.Remove(filepath.Join(tt.scope, ".agents", policy.FileName))
		})
	}
	writePolicy(t, project, "version: 1\nsigners:\n  - sources: [git:h/**]\n    commits: {allowed_signers: allowed_signers}\n")
	p, err := policy.Load("", project)
	if err != nil {
		t.Fatal(err)
	}
	rules := p.CommitRules(source.Origin{Kind: "git", Location: "h/r"})
	if want := filepath.Join(project, ".agents", "allowed_signers"); len(rules) != 1 || rules[0].AllowedSigners != want {
		t.Errorf("CommitRules = %+v, want one naming %q", rules, want)
	}
}

// Rule 8: a key or trusted root that is not a regular file (a folder, a
// device that never ends) is refused, never read without end.
func TestParseKeyNotRegular(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{dir, os.DevNull} {
		_, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys: ["+k+"]\n"), filepath.Join(dir, "p.yaml"))
		if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Parse with key %s = %v, want not a regular file", k, err)
		}
	}
}

// Rule 1: deeply nested YAML is refused by the parser, not recursed into
// without end.
func TestParseDeep(t *testing.T) {
	deep := "version: 1\nsources:\n  allow: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"
	if _, err := policy.Parse([]byte(deep), "p.yaml"); !errors.Is(err, policy.ErrInvalid) {
		t.Errorf("Parse(100000 nested lists) = %v, want %v", err, policy.ErrInvalid)
	}
}
