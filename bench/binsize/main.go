// Command binsize weighs what the SDK adds to a program: it builds the
// smallest SDK program (an Agent running Claude Code with one folder
// skill, ./sdk) and the same run through the driver alone (./driveronly),
// and prints each binary's size, the ratio, and how many packages outside
// the standard library each links, of them how many of Sigstore and gRPC.
// Trust (policy, signatures, audit) is linked only by programs that ask
// for it, so the ratio stays near 1.
//
//	go -C bench run ./binsize
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run() error {
	tmp, err := os.MkdirTemp("", "binsize")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	sizes := map[string]int64{}
	fmt.Printf("%-12s %12s %9s %9s %5s\n", "PROGRAM", "BYTES", "NON-STD", "SIGSTORE", "GRPC")
	for _, prog := range []string{"driveronly", "sdk"} {
		bin := filepath.Join(tmp, prog)
		build := exec.Command("go", "build", "-o", bin, "./binsize/"+prog)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build %s: %w", prog, err)
		}
		st, err := os.Stat(bin)
		if err != nil {
			return err
		}
		sizes[prog] = st.Size()
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./binsize/"+prog).Output()
		if err != nil {
			return fmt.Errorf("list %s: %w", prog, err)
		}
		var nonstd, sigstore, grpc int
		for _, p := range strings.Fields(string(out)) {
			nonstd++
			if strings.Contains(p, "sigstore") {
				sigstore++
			}
			if strings.Contains(p, "grpc") {
				grpc++
			}
		}
		fmt.Printf("%-12s %12d %9d %9d %5d\n", prog, st.Size(), nonstd, sigstore, grpc)
	}
	fmt.Printf("sdk / driveronly: %.2fx\n", float64(sizes["sdk"])/float64(sizes["driveronly"]))
	return nil
}
