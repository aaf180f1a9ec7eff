package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// cleanSetHead starts the record of a clean set (# Kept reports, rule 8).
const cleanSetHead = "agentadaptor clean set v1"

// cleanSet is a set of trees, by their content digests, every one of
// which the audit's rules of one version found nothing in (# Kept
// reports, rule 8): its key and its record.
type cleanSet struct {
	key    string // hex SHA-256 of record
	record []byte
}

// cleanSetOf returns the clean set of the trees of digests, audited by
// the rules of audit.RulesVersion into reports of reportFormat; false
// when a digest is missing or too long, as no report is kept of such a
// tree.
func cleanSetOf(digests []string) (cleanSet, bool) {
	return cleanSetWith(reportFormat, audit.RulesVersion, digests)
}

// cleanSetWith is cleanSetOf for reports of format made by rules. The
// record is a head, the format, the rules' version, a line a digest in
// the order of the set, and a last line with the count of digests, so
// that one cut short is another record; its key is its SHA-256, so that
// a record kept under a key is the record of that set or none.
func cleanSetWith(format, rules string, digests []string) (cleanSet, bool) {
	if len(digests) == 0 {
		return cleanSet{}, false
	}
	var b bytes.Buffer
	b.Grow(len(cleanSetHead) + len(format) + len(rules) + len(digests)*66 + 32)
	b.WriteString(cleanSetHead + "\nformat " + format + "\nrules " + rules + "\n")
	for _, d := range digests {
		if d == "" || len(d) > maxDigest || strings.ContainsAny(d, "\n\x00") {
			return cleanSet{}, false
		}
		b.WriteString(d + "\n")
	}
	b.WriteString("end " + strconv.Itoa(len(digests)) + "\n")
	sum := sha256.Sum256(b.Bytes())
	return cleanSet{key: hex.EncodeToString(sum[:]), record: b.Bytes()}, true
}

// clean reports whether the report of every tree of reps is empty: no
// finding and none past the audit's caps. Such a report refuses a skill
// under no policy (rule 4's filter keeps findings, and there are none).
func clean(reps []audit.Report) bool {
	for _, r := range reps {
		if len(r.Findings) > 0 || len(r.Omitted) > 0 {
			return false
		}
	}
	return true
}

// hasClean reports whether the store keeps the record of the clean set
// s: a record under its key that is s's record, byte for byte. One that
// is missing, cut short, damaged, of another format, rules' version or
// set is none.
func (st reportStore) hasClean(s cleanSet) bool {
	if st.dir == "" || !st.root.safe() {
		return false
	}
	found := false
	st.store.with(st.dir, func(store *cache.Store) { found = bytes.Equal(store.FolderRecord(s.key), s.record) })
	return found
}

// keepClean keeps the record of the clean set s; best effort: without
// it, a later process recalls the set's reports one by one.
func (st reportStore) keepClean(s cleanSet) {
	if st.dir == "" || !st.root.safe() {
		return
	}
	st.store.with(st.dir, func(store *cache.Store) { store.SetFolderRecord(s.key, s.record) })
}

// isClean reports whether every tree of the clean set s was audited
// clean: a set remembered so, or kept so under the skill cache's root
// (then remembered).
func (c *Checker) isClean(s cleanSet) bool {
	if _, ok := c.cleanSets.get(s.key); ok {
		return true
	}
	if c.kept.hasClean(s) {
		c.cleanSets.put(s.key, struct{}{})
		return true
	}
	return false
}

// keepClean remembers the clean set s, and keeps its record where c
// keeps reports.
func (c *Checker) keepClean(s cleanSet) {
	if _, ok := c.cleanSets.get(s.key); ok {
		return
	}
	c.cleanSets.put(s.key, struct{}{})
	c.kept.keepClean(s)
}
