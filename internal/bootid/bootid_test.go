package bootid

import (
	"runtime"
	"testing"
)

func TestID(t *testing.T) {
	id := ID()
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		if id == "" {
			t.Fatalf("ID() = %q, want the boot's id", id)
		}
	}
	if id != ID() {
		t.Fatalf("ID() changed within a process")
	}
	if id != "" && !Same(id) {
		t.Fatalf("Same(ID()) = false")
	}
	if Same("") || Same(id+"x") {
		t.Fatalf("Same took no id or another id as this boot's")
	}
}

func TestSetForTest(t *testing.T) {
	id := ID()
	restore := SetForTest("another")
	if ID() != "another" || Same(id) && id != "another" || !Same("another") {
		t.Fatalf("ID() = %q under SetForTest(%q)", ID(), "another")
	}
	restore()
	if ID() != id {
		t.Fatalf("ID() = %q after restore, want %q", ID(), id)
	}
	defer SetForTest("")()
	if Same("") {
		t.Fatalf("Same(\"\") = true with no id")
	}
}
