package install

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
)

// TestStampsRecordOfAnotherBoot checks rule 16: a record written on
// another boot vouches for nothing (package bootid's rule 1), as a crash
// may have kept the stamps of files whose bytes it lost. A new Installer
// reads the folder once and records it again; the record of this boot is
// then relied on.
func TestStampsRecordOfAnotherBoot(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	dir := stampFolder(t)
	settledStamps(t, in.stamps, in, dir)
	in.stamps.save(in)
	good := encodeStamps(in.stamps.folders)
	resum := func(body []byte) []byte {
		body = body[:bytes.LastIndex(body[:len(body)-1], []byte("\n"))+1]
		return fmt.Appendf(body, "sum %x\n", sha256.Sum256(body))
	}
	line := []byte("\nboot " + bootid.ID() + "\n")
	for name, data := range map[string][]byte{
		"another boot": resum(bytes.Replace(good, line, []byte("\nboot another-boot\n"), 1)),
		"no boot":      resum(bytes.Replace(good, line, []byte("\n"), 1)),
	} {
		if got := parseStamps(data); len(got) != 0 {
			t.Errorf("parseStamps(%s) = %d folders, want none", name, len(got))
		}
	}
	if fresh := f.installer(t); stampDigest(t, fresh.stamps, fresh, dir) != 0 {
		t.Fatalf("a new Installer on the boot that wrote the record read a folder")
	}
	defer bootid.SetForTest("another-boot")()
	again := f.installer(t)
	if n := stampDigest(t, again.stamps, again, dir); n != 1 {
		t.Errorf("a new Installer on another boot read %d folders, want 1", n)
	}
	again.stamps.save(again)
	if fresh := f.installer(t); stampDigest(t, fresh.stamps, fresh, dir) != 0 {
		t.Errorf("a new Installer once the record was made again read a folder")
	}
}
