package audit_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/audit"
)

// fixtureDirs returns the skill folders under testdata/KIND.
func fixtureDirs(t *testing.T, kind string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", kind))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join("testdata", kind, e.Name()))
		}
	}
	return dirs
}

func describe(fs []audit.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  " + f.Severity.String() + " " + f.Rule + " " + f.File + ": " + f.Excerpt)
	}
	return b.String()
}

// TestMaliciousFixturesAreHigh checks that every malicious fixture, each a
// different published technique, has a finding at high or above.
func TestMaliciousFixturesAreHigh(t *testing.T) {
	dirs := fixtureDirs(t, "malicious")
	if len(dirs) < 20 {
		t.Fatalf("%d malicious fixtures, want at least 20", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fs, err := treeFindings(os.DirFS(dir))
			if err != nil {
				t.Fatal(err)
			}
			if top, ok := audit.Max(fs); !ok || top < audit.High {
				t.Errorf("Tree(%s): highest %v (found: %v), want high or above; findings:%s", dir, top, ok, describe(fs))
			}
		})
	}
}

// TestBenignFixturesStayBelowHigh checks that skills that look close to
// the attacks (an official curl | sh installer, .env.example, RTL text,
// an upload API, a skill that teaches about injections, a colored
// script) stay below high.
func TestBenignFixturesStayBelowHigh(t *testing.T) {
	for _, dir := range fixtureDirs(t, "benign") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fs, err := treeFindings(os.DirFS(dir))
			if err != nil {
				t.Fatal(err)
			}
			if top, ok := audit.Max(fs); ok && top >= audit.High {
				t.Errorf("Tree(%s): highest %v, want below high; findings:%s", dir, top, describe(fs))
			}
		})
	}
}

// elf is the start of a Linux program.
func elf() []byte {
	b := make([]byte, 64)
	copy(b, "\x7fELF\x02\x01\x01")
	return b
}

// pe is the start of a Windows program: MZ, and PE at e_lfanew.
func pe() []byte {
	b := make([]byte, 0x100)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[0x3c:], 0x80)
	copy(b[0x80:], "PE\x00\x00")
	return b
}

// TestMaliciousTreesBuiltInTest covers what is awkward to commit: a
// bundled program, a link to ~/.ssh, oversized files.
func TestMaliciousTreesBuiltInTest(t *testing.T) {
	skillMD := "---\nname: x\ndescription: y\n---\nUse the tool.\n"
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		rule string
	}{
		{"bundled ELF", fstest.MapFS{"SKILL.md": {Data: []byte(skillMD)}, "bin/helper": {Data: elf(), Mode: 0o755}}, "executable-binary"},
		{"bundled PE", fstest.MapFS{"SKILL.md": {Data: []byte(skillMD)}, "helper.dat": {Data: pe()}}, "executable-binary"},
		{"bundled Mach-O", fstest.MapFS{"SKILL.md": {Data: []byte(skillMD)}, "helper": {Data: []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01")}}, "executable-binary"},
		{"huge SKILL.md", fstest.MapFS{"SKILL.md": {Data: bytes.Repeat([]byte("Be helpful.\n"), (1<<20)/12+1)}}, "large-file"},
		{"huge file", fstest.MapFS{"SKILL.md": {Data: []byte(skillMD)}, "data.txt": {Data: make([]byte, 8<<20+1)}}, "large-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := treeFindings(tc.fs)
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(fs, tc.rule, audit.High) {
				t.Errorf("Tree = %s, want a %s finding at high", describe(fs), tc.rule)
			}
		})
	}
}

func hasRule(fs []audit.Finding, rule string, at audit.Severity) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Severity >= at {
			return true
		}
	}
	return false
}

// TestSymlinkToSSH checks rule 19 on a real folder with a link to ~/.ssh.
func TestSymlinkToSSH(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: x\ndescription: y\n---\nRead keys/config.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(os.Getenv("HOME"), ".ssh"), filepath.Join(dir, "keys")); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("cannot make a symbolic link here: %v", err)
		}
		t.Fatal(err)
	}
	fs, err := treeFindings(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(fs, "symlink", audit.High) || !strings.Contains(describeMessages(fs), ".ssh") {
		t.Errorf("Tree = %s, want a symlink finding naming .ssh", describeMessages(fs))
	}
}

func describeMessages(fs []audit.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Rule + ": " + f.Message + "\n")
	}
	return b.String()
}
