//go:build linux

package benchrun

import (
	"os/exec"
	"testing"
)

func TestPeakRSS(t *testing.T) {
	cmd := exec.Command("sh", "-c", "true")
	if got := PeakRSS(cmd); got != 0 {
		t.Errorf("PeakRSS before the run = %d, want 0", got)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := PeakRSS(cmd); got <= 0 {
		t.Errorf("PeakRSS after the run = %d KiB, want more than 0", got)
	}
}
