package trust_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// countingFS is a tree that counts the files the audit opens in it.
type countingFS struct {
	fs.FS
	opened *atomic.Int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	c.opened.Add(1)
	return c.FS.Open(name)
}

// tree returns a tree holding md as its SKILL.md, counting what is
// opened in it.
func tree(md string) (countingFS, *atomic.Int64) {
	n := new(atomic.Int64)
	return countingFS{FS: fstest.MapFS{"SKILL.md": {Data: []byte(md)}}, opened: n}, n
}

// The digests these tests hand the checker: they stand for the content
// digests a caller computes; the checker only keys reports by them.
const (
	digestA = "aaaa000000000000000000000000000000000000000000000000000000000000"
	digestB = "bbbb000000000000000000000000000000000000000000000000000000000000"
)

var helperOrigin = source.Origin{Kind: source.Local, Location: "/skills/helper"}

// keptFiles lists the files of the folder reports are kept in under dir.
func keptFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".audit"))
	if err != nil {
		t.Fatalf("ReadDir(.audit) = %v", err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(dir, ".audit", e.Name()))
	}
	return out
}

// TestKeptReports checks rules 2 to 4 of "Kept reports": a report made
// by one checker is read back by another on the same folder (a later
// process) without reading the tree; another digest is audited; the
// kept report with findings still refuses, and the policy's threshold,
// its accepted findings and AllowRisks filter it per call.
func TestKeptReports(t *testing.T) {
	dir := t.TempDir()
	first := trust.NewChecker(nil, trust.RememberReports(dir))
	fsys, opened := tree(maliciousMD)
	refusing, _, err := first.AuditContent(fsys, digestA, "helper", helperOrigin)
	if err != nil || len(refusing.Findings) == 0 || refusing.Findings[0].Rule != maliciousRule {
		t.Fatalf("AuditContent(malicious) = %v, %v; want a %s finding", refusing.Findings, err, maliciousRule)
	}
	if opened.Load() == 0 {
		t.Fatal("the first audit opened no file of the tree")
	}
	if files := keptFiles(t, dir); len(files) != 1 {
		t.Fatalf("kept files = %q, want one", files)
	}

	tests := []struct {
		name    string
		checker *trust.Checker
		digest  string
		md      string // the tree handed in now
		refuse  bool
		allowed []string
		audited bool // the tree is read
	}{
		{"kept, read back by a new checker", trust.NewChecker(nil, trust.RememberReports(dir)), digestA, skillMD("helper"), true, nil, false},
		{"kept, allowed per call", trust.NewChecker(nil, trust.RememberReports(dir), trust.AllowRisks(maliciousRule)), digestA, skillMD("helper"), false, []string{maliciousRule}, false},
		{"kept, under a threshold above it", trust.NewChecker(mustPolicy(t, "version: 1\naudit:\n  fail_on: critical\n"), trust.RememberReports(dir)), digestA, skillMD("helper"), false, nil, false},
		{"kept, accepted by the policy", trust.NewChecker(mustPolicy(t, "version: 1\naudit:\n  accept:\n    - rule: "+maliciousRule+"\n      skill: helper\n      reason: ours\n"), trust.RememberReports(dir)), digestA, skillMD("helper"), false, nil, false},
		{"kept, accepted for another skill", trust.NewChecker(mustPolicy(t, "version: 1\naudit:\n  accept:\n    - rule: "+maliciousRule+"\n      skill: other\n      reason: ours\n"), trust.RememberReports(dir)), digestA, skillMD("helper"), true, nil, false},
		{"another digest", trust.NewChecker(nil, trust.RememberReports(dir)), digestB, skillMD("helper"), false, nil, true},
		{"no digest", trust.NewChecker(nil, trust.RememberReports(dir)), "", skillMD("helper"), false, nil, true},
		{"another folder", trust.NewChecker(nil, trust.RememberReports(t.TempDir())), digestA, skillMD("helper"), false, nil, true},
		{"nothing kept on disk", trust.NewChecker(nil), digestA, skillMD("helper"), false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys, opened := tree(tt.md)
			refusing, allowed, err := tt.checker.AuditContent(fsys, tt.digest, "helper", helperOrigin)
			if err != nil {
				t.Fatalf("AuditContent() = %v", err)
			}
			if got := len(refusing.Findings) > 0; got != tt.refuse {
				t.Errorf("AuditContent() refusing = %v, want refused %v", refusing.Findings, tt.refuse)
			}
			if !slices.Equal(allowed, tt.allowed) {
				t.Errorf("AuditContent() allowed = %q, want %q", allowed, tt.allowed)
			}
			if got := opened.Load() > 0; got != tt.audited {
				t.Errorf("AuditContent() opened %d files of the tree, want audited %v", opened.Load(), tt.audited)
			}
		})
	}
}

// TestKeptReportsUnusable checks rule 5 of "Kept reports": a kept file
// that is damaged, hostile or of another version is no report: the tree
// is audited again, without an error or a panic, and a good report is
// kept in its place.
func TestKeptReportsUnusable(t *testing.T) {
	valid := func(t *testing.T, dir string) (string, []byte) {
		t.Helper()
		fsys, _ := tree(maliciousMD)
		if _, _, err := trust.NewChecker(nil, trust.RememberReports(dir)).AuditContent(fsys, digestA, "helper", helperOrigin); err != nil {
			t.Fatal(err)
		}
		file := keptFiles(t, dir)[0]
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return file, b
	}
	big := make([]byte, 5<<20)
	for i := range big {
		big[i] = ' '
	}
	tests := []struct {
		name  string
		spoil func(t *testing.T, file string, b []byte)
	}{
		{"empty", func(t *testing.T, file string, b []byte) { write(t, file, "") }},
		{"truncated", func(t *testing.T, file string, b []byte) { write(t, file, string(b[:len(b)/2])) }},
		{"not JSON", func(t *testing.T, file string, b []byte) { write(t, file, "\x00\xff not json") }},
		{"trailing bytes", func(t *testing.T, file string, b []byte) { write(t, file, string(b)+"\x00\x00") }},
		{"oversized", func(t *testing.T, file string, b []byte) { write(t, file, string(b[:len(b)-1])+string(big)+"}") }},
		{"another format", func(t *testing.T, file string, b []byte) {
			replace(t, file, b, `"agentadaptor audit report v1"`, `"agentadaptor audit report v0"`)
		}},
		{"another rules' version", func(t *testing.T, file string, b []byte) { replace(t, file, b, `"rules":"`, `"rules":"0.`) }},
		{"another digest", func(t *testing.T, file string, b []byte) { replace(t, file, b, digestA, digestB) }},
		{"an unknown rule", func(t *testing.T, file string, b []byte) {
			replace(t, file, b, `"rule":"`+maliciousRule+`"`, `"rule":"no-such-rule"`)
		}},
		{"a severity lowered", func(t *testing.T, file string, b []byte) {
			replace(t, file, b, `"severity":"high"`, `"severity":"info"`)
		}},
		{"findings of another type", func(t *testing.T, file string, b []byte) {
			write(t, file, `{"format":"agentadaptor audit report v1","rules":"1","digest":"`+digestA+`","findings":{"a":1}}`)
		}},
		{"a folder", func(t *testing.T, file string, b []byte) {
			os.Remove(file)
			if err := os.Mkdir(file, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link to a device", func(t *testing.T, file string, b []byte) {
			os.Remove(file)
			if err := os.Symlink(os.DevNull, file); err != nil {
				t.Skipf("no links here: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file, b := valid(t, dir)
			tt.spoil(t, file, b)
			fsys, opened := tree(maliciousMD)
			refusing, _, err := trust.NewChecker(nil, trust.RememberReports(dir)).AuditContent(fsys, digestA, "helper", helperOrigin)
			if err != nil {
				t.Fatalf("AuditContent() over a spoilt kept report = %v, want the tree audited", err)
			}
			if opened.Load() == 0 {
				t.Fatal("AuditContent() over a spoilt kept report read nothing of the tree")
			}
			if len(refusing.Findings) == 0 || refusing.Findings[0].Rule != maliciousRule {
				t.Fatalf("AuditContent() refusing = %v, want the tree's own %s finding", refusing.Findings, maliciousRule)
			}
		})
	}
}

func write(t *testing.T, file, s string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func replace(t *testing.T, file string, b []byte, old, new string) {
	t.Helper()
	if !strings.Contains(string(b), old) {
		t.Fatalf("kept report %s holds no %s", b, old)
	}
	write(t, file, strings.Replace(string(b), old, new, 1))
}

// TestKeptReportsConcurrent checks rule 1 of "Kept reports": checkers
// of many processes keeping and reading the same content's report at
// once leave one whole file, which each reads as the report or not at
// all.
func TestKeptReportsConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			fsys, _ := tree(maliciousMD)
			refusing, _, err := trust.NewChecker(nil, trust.RememberReports(dir)).AuditContent(fsys, digestA, "helper", helperOrigin)
			if err != nil || len(refusing.Findings) == 0 {
				t.Errorf("AuditContent() = %v, %v; want the %s finding", refusing.Findings, err, maliciousRule)
			}
		})
	}
	wg.Wait()
	if files := keptFiles(t, dir); len(files) != 1 {
		t.Fatalf("kept files = %q, want one", files)
	}
	fsys, opened := tree(skillMD("helper"))
	refusing, _, err := trust.NewChecker(nil, trust.RememberReports(dir)).AuditContent(fsys, digestA, "helper", helperOrigin)
	if err != nil || len(refusing.Findings) == 0 || opened.Load() != 0 {
		t.Fatalf("AuditContent() after concurrent writers = %v, %v, %d files read; want the kept finding, nothing read", refusing.Findings, err, opened.Load())
	}
}

// TestMaterializerKeepsReports checks rule 6 of "Trust" across
// processes: a Materializer keeps each report under its cache's root,
// and a new one (another process) uses it instead of auditing. The
// report planted there, a finding the tree does not have, refuses the
// skill: the kept report, not a new audit, decided.
func TestMaterializerKeepsReports(t *testing.T) {
	root := cachetest.Root(t)
	s := skill.Inline("tone", skillMD("tone"))
	m := trust.NewMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)), nil)
	if _, _, err := m.MaterializeContent(t.Context(), s); err != nil {
		t.Fatalf("MaterializeContent() = %v", err)
	}
	files := keptFiles(t, root)
	if len(files) != 1 {
		t.Fatalf("kept files = %q, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Replace(string(b), `"findings":null`, `"findings":[{"rule":"reverse-shell","severity":"critical","file":"SKILL.md","line":3,"message":"planted"}]`, 1)
	if planted == string(b) {
		t.Fatalf("kept report %s has no empty findings to plant in", b)
	}
	write(t, files[0], planted)
	again := trust.NewMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)), nil)
	_, _, err = again.MaterializeContent(t.Context(), s)
	var re *trust.RefusedError
	if !errors.As(err, &re) || len(re.Refusals[0].Findings) == 0 || re.Refusals[0].Findings[0].Message != "planted" {
		t.Fatalf("MaterializeContent() in a new materializer = %v, want the kept (planted) finding to refuse it", err)
	}
}

// TestRememberKept checks rule 3 of "Kept reports": a report handed to
// Remember is kept on disk too, and a new checker (another process)
// judges the tree by it without reading the tree.
func TestRememberKept(t *testing.T) {
	dir := t.TempDir()
	rep, err := audit.Tree(fstest.MapFS{"SKILL.md": {Data: []byte(maliciousMD)}})
	if err != nil {
		t.Fatal(err)
	}
	trust.NewChecker(nil, trust.RememberReports(dir)).Remember(digestA, rep)
	fsys, opened := tree(skillMD("helper"))
	refusing, _, err := trust.NewChecker(nil, trust.RememberReports(dir)).AuditContent(fsys, digestA, "helper", helperOrigin)
	if err != nil || len(refusing.Findings) == 0 || refusing.Findings[0].Rule != maliciousRule || opened.Load() != 0 {
		t.Fatalf("AuditContent() after Remember in another checker = %v, %v, %d files read; want the remembered finding, nothing read", refusing.Findings, err, opened.Load())
	}
}
