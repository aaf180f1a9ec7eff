package audit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
)

// rulesDigests records, for each RulesVersion, the digests of the code
// that decides what the audit finds (rulesDigest). A change to that
// code makes a new digest: record it under a new RulesVersion when it
// may change a finding, and add it to the current version's list when
// it changes none (a faster reading of the same text, which the
// equivalence tests of the prefilter hold to the same findings), so
// that verdicts kept for the version stay valid.
var rulesDigests = map[string][]string{
	"1": {"3a23326deb0a0c0e3a40679f858c1ecfcb429d545752211d9ffd26c8853e4505"},
	"2": {
		"840b7e96d1a6f277ad92f19f34bb92c30e14227e276e1e5f73d1dce2406e65a7",
		"26bf2c18d9066089ee79615b70f722e320e31af8dadde3bc69b9b7cc092d6d09", // the prefilter's speed: lines scanned in pairs, hidden characters looked for by their bytes, long texts asked at anchors
	},
	"3": {
		"28b21dfe2d7e5d37ec827fdb7a972f11555e93a33494ddd01f59ffda21181111", // Examples and confirmations tightened against evasions
		"51e2588fe9daf9fc3f1e7f2ffd55094fa0b8a317011c78215dce7d67c2f67758", // one search of a file for rules 1-4's bytes instead of a reading of its lines; rule 7's inert decode asks the prefilter and asks once of a line
		"6af09fe5a6a416a9806e7b346e6d81cd1a63e90451bc1ff4fb3dbc82872c26f2", // the prefilter is built on the first audit, not at start
		"9b5e6440e3f91d74eb9bdcb1ca8bb5e694125ee6d56cd9b5543a481c8cd6c0fd", // the prefilter loaded from tables generated beside the expressions, the expressions compiled when they first run, a tree's files read into one buffer, the window of lines moved a batch at a time
		"d9a20f1f279c711c429d6f1412035fdac0fe1b06a6e18515494e843058c62382", // the costliest expressions confirmed by matchers written by hand
		"14927ef770f676cd326f997aa57db90d506392ad9d41d0fb3a32b7b83c829e79", // every lazily compiled expression made by lazyCompile, which lists it for a test to compile
		"84d11a0b50e6b8adc3c78427cc01e566cebac4454f93adeea26fd327f87b066b", // PowerShell's encoded command and printenv piped confirmed by matchers written by hand, an inert decode's payloads found by its expression run anchored
		"2603152ee394993322d694eccd3bb6398b5b3b89a8344e69e998cf1a60c5b691", // a decode run by eval or a shell's -c, and a home folder's keys archived, confirmed by matchers written by hand
		"44e3ae4eefbbf8f841a290028a2927697b6a4a260895ad353f25b0f17af1d183", // a private key read found by a finder written by hand
		"f6f460447f27a3fcd45de8fa94c7e7ab8e2c3c75bdcd1a3ba21b808dc59e8da4", // rule 6's lines around a download joined only for an expression that may match them
		"9da42f96c1471363fa84e4423213351a556ee23e5daa308353a0c68b7a147c25", // an instruction to ignore the ones before found by a finder written by hand
		"aaa1edcb359a13343aae1b20a88205583d798bf9338d21ceecc6b3a042bb6df2", // an instruction to keep something from the user found by a finder written by hand
		"6a7392f4c9224aeff2e40ecb76543d4b7c2bc9ad99b67464fbe484a8d9e5476f", // what a file holds outside ASCII asked in one pass over it
		"9e7826c042e275e8c6f040359438414472b285d89fb43e7bb6dec6af3ef64cc5", // rules 1-3 decode a line only from the places where what they find may be
		"d53ca6a0aac907dfd41640817ee581dc0922c2dd3f9845723790d0e003ac87b0", // the prefilter's Find takes no text it did not read
		"ddebf59bda3a684c80d73456989a9172a4c34fedb6d641531cb617c8c7f99104", // a tree's files scanned on several goroutines, their findings merged in the order they were read (tree.go now counted)
	},
	"4": {
		"c647f098476da238602725e2c50d712537d004cfdf3eb1bbc0e175726caa3943", // rule 23, direct-run: a program of the skill run by its path
	},
	"5": {
		"0a5ff71556008169807dee9573fbc66f826b3f71e2ee97f858bb9374ba1037ba", // rule 23: only a variable that names the skill leads into it, a continued line read after its separators, the SKILL.md's paths held apart
		"80d1b4c6cba264d1654068439cc6b4a0d78609e3c38f170d3c24561d6dd784e6", // a small tree scanned on the calling goroutine, a line that touches none of the expressions asked of every line left before any rule asks it
		"dc2a26b2f6197ae062f9d24f14f4b2d3e14144adaecd405d2c004bae41e65204", // the prefilter's Find answers by offsets, allocating nothing, and find's locations are cut from a block
		"c2ea905c962152aeeadac4f8848d4b7a7bed5c537fda77177e7d18c753354b97", // with the above: the pipes, /dev/tcp, a wallet, the keychain, a .env search, pip from a URL and others found by finders written by hand, a keeper counting by a rule's index, rules 1-4's messages written for a finding kept
	},
	"6": {
		"c8d65b67ea4553e736f99f7d166818346605418fbfa009f2f6a8ba9309490a0c", // rule 23: a cd's folder past maxRunPath (1 KiB) is lost, as a longer path run is not read
		"d422c525bd2cc70d88824b1e5d0b4c81ae10b7babec3c8111cc881952f5c057f", // rule 10: the browsers' stores found by finders written by hand, which find the same
		"f0543774c827dbbaee2ce573cf093b7809af3ec4399c45ca3007b9d7b23c7531", // rule 5's confirmation read once a line (confirm.go), which answers as the expressions do
		"465f0447aff0e3d82023a655a18a44897e95822d5a4b9f905cc89a73b7981a5d", // rule 6's password and prerequisite around a download read once a line (near.go), which answers as the expressions do
	},
	"7": {
		"4f1a944ac8ca6c97f9a2ad1dae8cdf14c83a1f9107d677e0c53018b90d3805ce", // rule 6: the lines around a download joined in their order; rule 5: a script's prompts read within a budget
		"5aacc0a4b0d0685ae9a8b6973c27f6542ceb3108eb796bd455d07277664e61f2", // a line is not copied to be read by the line rules, nor to give back what rules 5 and 6 learnt of it
		"b35dae200d6c84d43a09768dc72c8c293f25ae597afe5131f8f58e6b23da4f89", // rule 5's script budget spent in patterns.go, a rules file, so that a change to it changes the digest
		"3a607d5bc86df34fef5a97f0d7a5a601010e6afd9104e081cc5cea111be63f1f", // a long line's piece ends within three bytes of where the count falls, so that a run of bytes that start no character neither panics nor stops the reader
		"42a6892f42f4af485491e3cb15e7afd5f58daaa8cefed823992bc0d062b788d0", // a file's survey lists the places that may hide a character (up to 16,384), which rules 1-3 and the cleaning of a line read instead of searching again (the exhaustive audit still searches), and passes over ASCII and tests continuation bytes a word at a time
		"6b664a4741a69cb32f5c2caa7fee623dee77df93ccd91e8b382ee80f63b4ee51", // the quiet lines more than three lines from every line that holds a prefilter's string are passed over in bulk (quiet.go)
		"adbc1eea569bfcdce66e28a6986fe26fa07686069544c8b70a70ebbfae840da1", // the scanner counts the confirmFacts it learns and the seams it reads, for a test
		"3e699ec54b7d194a9372f4633f42a8fefaadf22193f5a7d8582bb55ccfecb58d", // both of the two before
		"951f5275963a1578571c9510875d9b20f8ce8045bc3195208375b206e4f40eb5", // a Markdown line's "<!--" found by a search of the file that moves on with the lines
		"b58bfba6290b3c26c52f05e5fa8eb8a53abc087684591ec6f76631d72d2d06d8", // a line is written where the window keeps it (nextInto), not returned and copied
		"e164e0a8787e70d64f0aed296472117d0f58503b695f00dd684ae4d9e8989432", // first passes over the expressions a line does not touch without asking find
		"4e591fe9cc07ffe87c0f300b663c66c0c5487d6665217517ca04c057b73788ec", // may asks whether a line touches one expression with prefilter.Hits.Touched, which is inlined, rather than AnyTouched of a range of one
		"0e8fcc53003acab8d340987f21f15cf8baf228e575f74649898f6c9ebfb2d314", // the prefilter's round merged with first's passing over the expressions a line does not touch, asked by Hits.Touched
		"c32681920537daaea82817d9c0d1c5dcd0d95b938e7b9407b2f730006388aaf0", // an empty line is read without a scan or the rules' checks: it shares one Hits that holds nothing, and tells rule 23 alone that it continues no command
		"bd6946c758aa96fe6b0baabee2e983eaf67b25b1f119bbd56be9689de6d6bc90", // a review's mends: one function for the context a line that opens or closes nothing stands in, a line whose cleaned text is empty not asked of the rules, comments that say why a skip may end on a backslash
		"83a221ee58e0b9f88ea20e9a5107381e89aade8c6a0907201ce670fb6678951e", // the searches that move on with the lines (the quiet lines' marks and next string, a line's "<!--") share one type, ahead
		"0c83590aa360708fc43b33f67e61bef1dd5355ed1e9231fd0f6e3c7812eedf81", // rules 1-4's next places of each kind are searched with ahead too, and a batch of lines is read by one method (readBatch), under the one test of the window
		"b6a8a6d8c2c9ffc6e1e6dc7ce48196dd5c497cb140fbe9db6691f8a0a3f1944d", // first asks the expressions a line touches by the touched set's bits (Hits.NextTouched), without asking Always of each: every line expression has a condition
		"c269efaf3d2b254b6e88e567ccced9cd6fc5fdc0c60821405e3b04d3eb91cc4a", // of a run of empty lines only the first three are read: no window holds the lines on both sides of a run of three, and each reads three empty lines beside it as it reads the run
		"8b6c3f684865fbcfe1608abb93a955b21e04bb7927346c68172af17e19fd32eb", // the run of empty lines passed over before the empty line's own branch, not in an else of it
	},
}

// rulesFiles hold the rules, their expressions, the reading of text and
// files, and the caps: the code whose change may change a report.
var rulesFiles = []string{"rules.go", "patterns.go", "text.go", "scan.go", "tree.go", "caps.go", "runs.go"}

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
	want := rulesDigests[audit.RulesVersion]
	if !slices.Contains(want, got) {
		t.Errorf("the rules' code has digest %s, but RulesVersion %q records %q: when the rules change, bump RulesVersion and record the new digest under it in rulesDigests (or, for a change that changes no finding, add it to the version's list)", got, audit.RulesVersion, want)
	}
}
