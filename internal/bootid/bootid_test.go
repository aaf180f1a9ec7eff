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

// TestLine checks that a record's boot line names this boot only when it
// is Line, and never when the id is "".
func TestLine(t *testing.T) {
	defer SetForTest("b1")()
	for line, want := range map[string]bool{
		Line():     true,
		"boot b1":  true,
		"boot b2":  false,
		"boot ":    false,
		"b1":       false,
		"boot  b1": false,
	} {
		if got := IsLine(line); got != want {
			t.Errorf("IsLine(%q) = %v, want %v", line, got, want)
		}
	}
	SetForTest("")
	if IsLine(Line()) {
		t.Errorf("IsLine(%q) with no id = true, want false", Line())
	}
}
