package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// reportsDir is the folder, under the folder [RememberReports] names (a
// skill cache's root), that keeps audit reports (# Kept reports).
const reportsDir = ".audit"

// maxReportFile bounds a kept report, written or read back: a larger
// one is not written, and one read back larger is not used.
const maxReportFile = 4 << 20

// reportFormat names the format of a kept report file; another is not
// used.
const reportFormat = "agentadaptor audit report v1"

// keptReport is a kept report's file: the raw report audit.Tree made of
// the tree whose content digest is Digest, with the rules of Rules.
type keptReport struct {
	Format   string          `json:"format"`
	Rules    string          `json:"rules"`
	Digest   string          `json:"digest"`
	Findings []audit.Finding `json:"findings"`
	Omitted  audit.Omitted   `json:"omitted,omitempty"`
}

// reportStore keeps reports under dir/.audit (# Kept reports); the zero
// value keeps nothing. It is safe for concurrent use: a file is written
// whole (internal/atomicfile), and two writers of one digest write the
// same report.
type reportStore struct {
	dir   string
	root  *rootCheck  // whether dir may keep reports (rule 3)
	store *heldStore  // the skill cache's store under dir (rules 7 and 8)
	index *emptyIndex // the reports found empty (rule 7)
}

// newReportStore returns the store of reports under dir/.audit; a dir
// of "" keeps nothing.
func newReportStore(dir string) reportStore {
	if dir == "" {
		return reportStore{}
	}
	store := new(heldStore)
	return reportStore{dir: dir, root: &rootCheck{dir: dir}, store: store, index: &emptyIndex{store: store}}
}

// maxDigest bounds the digests a store keeps reports of: a content
// digest is 64 hex digits.
const maxDigest = 128

// name is the file of the report of digest: a SHA-256 of the rules'
// version and the digest, so a report made with other rules is another
// file, and no digest names a path.
func (s reportStore) name(digest string) string {
	sum := sha256.Sum256([]byte("audit report\x00" + audit.RulesVersion + "\x00" + digest))
	return filepath.Join(s.dir, reportsDir, hex.EncodeToString(sum[:])+".json")
}

// get returns the report kept for digest. A file that is missing, not a
// regular file, larger than maxReportFile, not whole JSON of this format,
// or of another digest or rules' version, or that names a rule the audit
// does not have or a severity other than its rule's, is no report: the
// tree is audited again. A report the index holds as empty, whose file
// has the stamp it had then, is empty without being read (rule 7).
func (s reportStore) get(digest string) (audit.Report, bool) {
	if s.dir == "" || digest == "" || len(digest) > maxDigest {
		return audit.Report{}, false
	}
	if !s.root.safe() {
		return audit.Report{}, false
	}
	name := s.name(digest)
	if s.index.empty(s.dir, digest, name) {
		return audit.Report{}, true
	}
	taken := now()
	fi, lerr := os.Lstat(name) // stamped before it is read
	b, err := readfile.Small(name, maxReportFile)
	if err != nil {
		return audit.Report{}, false
	}
	var k keptReport
	if json.Unmarshal(b, &k) != nil || k.Format != reportFormat || k.Rules != audit.RulesVersion || k.Digest != digest {
		return audit.Report{}, false
	}
	for _, f := range k.Findings {
		r, ok := audit.LookupRule(f.Rule)
		if !ok || r.Severity != f.Severity || f.File == "" || f.Line < 0 {
			return audit.Report{}, false
		}
	}
	for rule, n := range k.Omitted {
		if _, ok := audit.LookupRule(rule); !ok || n <= 0 {
			return audit.Report{}, false
		}
	}
	if len(k.Findings) == 0 && len(k.Omitted) == 0 && lerr == nil && fi.Mode().IsRegular() {
		if st, ok := cache.StampOf(fi); ok {
			s.index.found(s.dir, digest, st, taken)
		}
	}
	return audit.Report{Findings: k.Findings, Omitted: k.Omitted}, true
}

// save writes what the store learnt of its reports back (rule 7).
func (s reportStore) save() {
	if s.dir != "" && s.root.safe() {
		s.index.save(s.dir)
	}
}

// put keeps rep, the report of a tree whose content digest is digest.
// Failing to keep it costs an audit later, nothing more.
func (s reportStore) put(digest string, rep audit.Report) {
	if s.dir == "" || digest == "" || len(digest) > maxDigest {
		return
	}
	b, err := json.Marshal(keptReport{Format: reportFormat, Rules: audit.RulesVersion, Digest: digest, Findings: rep.Findings, Omitted: rep.Omitted})
	if err != nil || len(b) > maxReportFile {
		return
	}
	name := s.name(digest)
	if !s.root.safe() && (os.MkdirAll(filepath.Dir(name), 0o700) != nil || !s.root.safe()) {
		return
	}
	if err := atomicfile.WriteUnflushed(name, b, 0o600); errors.Is(err, fs.ErrNotExist) && os.MkdirAll(filepath.Dir(name), 0o700) == nil {
		atomicfile.WriteUnflushed(name, b, 0o600)
	}
}

// rootCheck is whether a folder may keep reports (rule 3): it, and its
// .audit folder when there is one, are folders (not links) of this user
// that no other user may write, under ancestors safe from other users,
// as the skill cache requires of its root (rule 8 of package skill). A
// root another user could write is trusted for nothing. A folder that
// is there is checked once: no other user can change what the check
// finds, nor make .audit where it was missing (only the folder's owner
// may write in it). A folder that is missing keeps nothing until it is
// made.
type rootCheck struct {
	dir  string
	mu   sync.Mutex
	done bool // ok holds the answer
	ok   bool
}

// safe reports whether c's folder may keep reports.
func (c *rootCheck) safe() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return c.ok
	}
	abs, err := filepath.Abs(c.dir)
	if err != nil {
		return false
	}
	for _, p := range []string{abs, filepath.Join(abs, reportsDir)} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if p == abs {
				return false // asked again once the folder is made
			}
			break
		}
		if err != nil || !fi.IsDir() || cache.CheckOwner(fi) != nil {
			c.done = true
			return false
		}
	}
	c.done, c.ok = true, cache.CheckAncestors(abs) == nil
	return c.ok
}
