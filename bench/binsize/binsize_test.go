package main

import "testing"

// TestRatio builds the two programs as the command does and fails when
// the SDK program weighs more than Bar times the driver alone.
func TestRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	ws, err := weigh()
	if err != nil {
		t.Fatal(err)
	}
	if r := ratio(ws); r > Bar {
		t.Errorf("the SDK program is %d bytes, %.2fx the driver alone (%d bytes), above the bar of %.1fx: something in its imports links more than the run needs (go -C bench run ./binsize lists its packages)",
			ws[1].size, r, ws[0].size, Bar)
	}
	for _, w := range ws {
		t.Logf("%s: %d bytes, %d non-std packages (%d Sigstore, %d gRPC)", w.prog, w.size, w.nonstd, w.sigstore, w.grpc)
	}
}
