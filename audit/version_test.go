package audit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
)

// rulesDigests records, for each RulesVersion, the digest of the code
// that decides what the audit finds (rulesDigest). A change to that
// code makes a new digest: record it under a new RulesVersion.
var rulesDigests = map[string]string{
	"1": "3a23326deb0a0c0e3a40679f858c1ecfcb429d545752211d9ffd26c8853e4505",
	"2": "d4bcb006f3284047d9b1231c50d790962844dbbfdf1658356bd3227c7ddcd5a3",
}

// rulesFiles hold the rules, their expressions, the reading of text and
// files, and the caps: the code whose change may change a report.
var rulesFiles = []string{"rules.go", "patterns.go", "text.go", "scan.go", "caps.go"}

// rulesDigest is a digest of the tokens of rulesFiles and of the rule
// table: comments and layout aside, as a change to them changes no
// finding.
func rulesDigest(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	for _, name := range rulesFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(name, -1, len(src)), src, nil, 0)
		fmt.Fprintf(h, "%s\n", name)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			fmt.Fprintf(h, "%d %q\n", tok, lit)
		}
	}
	for _, r := range audit.Rules() {
		fmt.Fprintf(h, "%q %v %q %q\n", r.ID, r.Severity, r.Summary, r.Help)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestRulesVersion checks that RulesVersion changes with the rules: the
// digest of their code is the one recorded for it.
func TestRulesVersion(t *testing.T) {
	got := rulesDigest(t)
	want, ok := rulesDigests[audit.RulesVersion]
	if !ok || got != want {
		t.Errorf("the rules' code has digest %s, but RulesVersion %q records %q: when the rules change, bump RulesVersion and record the new digest under it in rulesDigests", got, audit.RulesVersion, want)
	}
}
