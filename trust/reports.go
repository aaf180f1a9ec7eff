package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
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
type reportStore struct{ dir string }

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
// tree is audited again.
func (s reportStore) get(digest string) (audit.Report, bool) {
	if s.dir == "" || digest == "" || len(digest) > maxDigest {
		return audit.Report{}, false
	}
	b, err := readfile.Small(s.name(digest), maxReportFile)
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
	return audit.Report{Findings: k.Findings, Omitted: k.Omitted}, true
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
	if err := atomicfile.WriteUnflushed(name, b, 0o600); errors.Is(err, fs.ErrNotExist) && os.MkdirAll(filepath.Dir(name), 0o700) == nil {
		atomicfile.WriteUnflushed(name, b, 0o600)
	}
}
