//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package skill

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestFolderRecordTruncatedAtLine checks that a record cut short at the
// end of a line (its last entries lost) is not used: a folder whose
// stamp the record still vouches for would otherwise be read as holding
// only the names left in the record, and the digest would leave out
// what the folder holds.
func TestFolderRecordTruncatedAtLine(t *testing.T) {
	for _, drop := range []int{1, 2, 3} {
		c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
		dir := sourceFolder(t)
		store := settledRecord(t, c, dir)
		want, err := ContentDigest(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		data := store.FolderRecord(folderKey(dir))
		cut := data
		for range drop {
			cut = cut[:bytes.LastIndexByte(cut[:len(cut)-1], '\n')+1]
		}
		if err := store.SetFolderRecord(folderKey(dir), cut); err != nil {
			t.Fatal(err)
		}
		// And one line lost from the middle: a.md's.
		mid := bytes.Split(data, []byte("\n"))
		for i, l := range mid {
			if bytes.HasSuffix(l, []byte(" "+hex.EncodeToString([]byte("references/a.md")))) {
				mid = append(mid[:i], mid[i+1:]...)
				break
			}
		}
		if parseFolderRecord(bytes.Join(mid, []byte("\n")), dir) != nil {
			t.Errorf("a record without the line of references/a.md was accepted")
		}
		fresh := NewCache(WithSkillCacheRoot(c.Root()))
		if got, _, err := fresh.folderDigestIn(t.Context(), store, dir); err != nil || got != want {
			t.Errorf("folderDigestIn with the record's last %d lines cut = %s, %v; want %s", drop, got, err, want)
		}
	}
}
