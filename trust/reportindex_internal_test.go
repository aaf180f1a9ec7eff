package trust

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

const (
	indexDigestA = "aaaa000000000000000000000000000000000000000000000000000000000000"
	indexDigestB = "bbbb000000000000000000000000000000000000000000000000000000000000"
)

// indexedStore returns a store under a new root that keeps an empty
// report of indexDigestA and one with a finding of indexDigestB, both read
// once their files settled and the index saved: what a later process
// finds.
func indexedStore(t *testing.T) string {
	t.Helper()
	if bootid.ID() == "" {
		t.Skip("no boot id here: no index is kept")
	}
	dir := cachetest.Root(t)
	if !stampableFS(dir) {
		t.Skip("the cache root is on a file system where no index is kept")
	}
	s := newReportStore(dir)
	s.put(indexDigestA, audit.Report{})
	s.put(indexDigestB, audit.Report{Findings: []audit.Finding{{Rule: "prerequisite-install", Severity: audit.High, File: "SKILL.md", Line: 3, Message: "m"}}})
	cachetest.Settle()
	for _, d := range []string{indexDigestA, indexDigestB} {
		if _, ok := s.get(d); !ok {
			t.Fatalf("get(%s) found no report", d)
		}
	}
	s.save()
	return dir
}

// TestEmptyIndex checks rule 7 of "Kept reports": a later store takes an
// empty report from the index without reading its file while the file
// is unchanged, and reads the file again, as rule 5 says, when it was
// removed or changed (a finding planted in it refuses); a report with
// findings, or one whose file is racy, is never indexed.
func TestEmptyIndex(t *testing.T) {
	dir := indexedStore(t)
	s := newReportStore(dir)
	if rep, ok := s.get(indexDigestA); !ok || len(rep.Findings) != 0 || !s.index.empty(dir, indexDigestA, s.name(indexDigestA)) {
		t.Fatalf("get(A) = %v, %v; want the empty report, from the index", rep, ok)
	}
	if _, ok := s.index.stamps[indexDigestB]; ok {
		t.Errorf("the index holds the report with a finding")
	}

	// A finding planted in the kept file, or the file removed: the file
	// is read again, and the index forgets it.
	b, err := os.ReadFile(s.name(indexDigestB))
	if err != nil {
		t.Fatal(err)
	}
	planted := bytes.Replace(b, []byte(indexDigestB), []byte(indexDigestA), 1)
	if err := os.WriteFile(s.name(indexDigestA), planted, 0o600); err != nil {
		t.Fatal(err)
	}
	s = newReportStore(dir)
	if rep, ok := s.get(indexDigestA); !ok || len(rep.Findings) != 1 {
		t.Errorf("get(A) after a finding was planted = %v, %v; want the finding", rep, ok)
	}
	if _, ok := s.index.stamps[indexDigestA]; ok {
		t.Errorf("the index still holds A after its file changed")
	}
	os.Remove(s.name(indexDigestA))
	if rep, ok := newReportStore(dir).get(indexDigestA); ok {
		t.Errorf("get(A) after its file was removed = %v; want no report", rep)
	}

	// A report just written is racy: read, not indexed.
	s = newReportStore(dir)
	s.put(indexDigestA, audit.Report{})
	s.get(indexDigestA)
	if _, ok := s.index.stamps[indexDigestA]; ok {
		t.Errorf("the index holds a report written just now")
	}
}

// TestEmptyIndexIgnored checks that an index of another boot (package
// bootid, rule 1), or cut short or damaged is no index: every report
// is read.
func TestEmptyIndexIgnored(t *testing.T) {
	dir := indexedStore(t)
	if n := len(newIndexed(dir)); n != 1 {
		t.Fatalf("the index holds %d reports, want 1", n)
	}
	restore := bootid.SetForTest("another-boot")
	if n := len(newIndexed(dir)); n != 0 {
		t.Errorf("the index of another boot holds %d reports, want none", n)
	}
	restore()

	file := filepath.Join(dir, ".memo", indexKey()+".folder")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"cut short":      good[:len(good)/2],
		"a byte changed": bytes.Replace(good, []byte(indexDigestA[:8]), []byte("cccc0000"), 1),
		"another head":   bytes.Replace(good, []byte(indexHead), []byte("agentadaptor audit report index v0"), 1),
	} {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if n := len(newIndexed(dir)); n != 0 {
			t.Errorf("an index %s holds %d reports, want none", name, n)
		}
	}
}

// TestEmptyIndexOnlyOnStampableFS checks that the index is none where
// the reports' file system is not one whose stamps may stand for reading
// (a network or FUSE one): every report is read, none indexed, and the
// file system is asked again after a save.
func TestEmptyIndexOnlyOnStampableFS(t *testing.T) {
	dir := indexedStore(t)
	var asked int
	stampable := false
	defer func(f func(string) bool) { stampableFS = f }(stampableFS)
	stampableFS = func(string) bool { asked++; return stampable }
	s := newReportStore(dir)
	if rep, ok := s.get(indexDigestA); !ok || len(rep.Findings) != 0 {
		t.Fatalf("get(A) = %v, %v; want the empty report", rep, ok)
	}
	if s.index.empty(dir, indexDigestA, s.name(indexDigestA)) || len(s.index.stamps) != 0 || asked == 0 {
		t.Errorf("on a file system not stampable (asked %d times), the index holds %v; want none", asked, s.index.stamps)
	}
	s.save()
	stampable = true
	asked = 0
	if _, ok := s.get(indexDigestA); !ok || asked == 0 || !s.index.empty(dir, indexDigestA, s.name(indexDigestA)) {
		t.Errorf("after a save on a stampable file system (asked %d times), A is not taken from the index", asked)
	}
}

// TestIndexKeyOfFormat checks that the index is kept under a key of the
// reports' format as well as of the rules: an index of reports of
// another format is another record.
func TestIndexKeyOfFormat(t *testing.T) {
	if indexKey() != indexKeyOf(reportFormat, audit.RulesVersion) {
		t.Errorf("indexKey() is not the key of reportFormat and audit.RulesVersion")
	}
	keys := map[string]bool{}
	for _, k := range []string{
		indexKeyOf(reportFormat, audit.RulesVersion),
		indexKeyOf("agentadaptor audit report v0", audit.RulesVersion),
		indexKeyOf(reportFormat, audit.RulesVersion+"x"),
	} {
		keys[k] = true
	}
	if len(keys) != 3 {
		t.Errorf("indexKeyOf gives %d keys for 3 formats and rules, want 3", len(keys))
	}
}

// newIndexed returns what a new store under dir reads of its index.
func newIndexed(dir string) map[string]cache.Stamp {
	s := newReportStore(dir)
	s.index.mu.Lock()
	defer s.index.mu.Unlock()
	s.index.load(dir)
	return s.index.stamps
}

// TestReportStoreOpensTheCacheOnce checks that a report store opens the
// skill cache's store under its root once for its life: a new process's
// miss looks for the clean set, loads the index, keeps the set and saves
// the index through the store it opened first (an open would sweep the
// abandoned staging planted after the first use); and that an open that
// fails is tried again on the next use.
func TestReportStoreOpensTheCacheOnce(t *testing.T) {
	dir := indexedStore(t)
	s := newReportStore(dir)
	set, _ := cleanSetOf([]string{indexDigestA, indexDigestB})
	if s.hasClean(set) {
		t.Fatal("hasClean() of a set never kept = true")
	}
	abandoned := filepath.Join(dir, ".tmp", strings.Repeat("ab", 12)+".stage")
	if err := os.MkdirAll(abandoned, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.get(indexDigestA); !ok || !s.index.loaded {
		t.Fatalf("get(A) = _, %v, index loaded %v; want the report, and the index loaded", ok, s.index.loaded)
	}
	s.keepClean(set)
	s.index.mu.Lock()
	s.index.dirty = true
	s.index.mu.Unlock()
	s.save()
	if _, err := os.Lstat(abandoned); err != nil {
		t.Errorf("the abandoned staging planted after the first use was swept (%v): the cache's store was opened again", err)
	}
	if !s.hasClean(set) || !newReportStore(dir).hasClean(set) {
		t.Error("hasClean() after keepClean = false")
	}
	store, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	if _, err := os.Lstat(abandoned); err == nil {
		t.Fatal("cache.Open left the abandoned staging: the test's probe shows no open")
	}

	root := filepath.Join(t.TempDir(), "root")
	if err := os.WriteFile(root, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var h heldStore
	ran := false
	h.with(root, func(*cache.Store) { ran = true })
	if ran {
		t.Fatal("with() ran with a root that is a file")
	}
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	h.with(root, func(*cache.Store) { ran = true })
	if !ran {
		t.Error("with() after the root was freed did not run: a failed open is not tried again")
	}
}
