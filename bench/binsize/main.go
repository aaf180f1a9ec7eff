// Command binsize weighs what the SDK adds to a program: it builds the
// smallest SDK program (an Agent running Claude Code with one folder
// skill, ./sdk) and the same run through the driver alone (./driveronly),
// and prints each binary's size, the ratio, and how many packages outside
// the standard library each links, of them how many of Sigstore and gRPC.
// Trust (policy, signatures, audit) is linked only by programs that ask
// for it, so the ratio stays near 1; [TestRatio] fails when it is above
// [Bar].
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

// Bar is the most the SDK program may weigh against the driver alone.
const Bar = 1.5

// pkg is the import path of this command, whose two programs are built
// from any folder of the module.
const pkg = "github.com/agentadaptor/agentadaptor/bench/binsize/"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

func run() error {
	fmt.Printf("%-12s %12s %9s %9s %5s\n", "PROGRAM", "BYTES", "NON-STD", "SIGSTORE", "GRPC")
	ws, err := weigh()
	if err != nil {
		return err
	}
	for _, w := range ws {
		fmt.Printf("%-12s %12d %9d %9d %5d\n", w.prog, w.size, w.nonstd, w.sigstore, w.grpc)
	}
	fmt.Printf("sdk / driveronly: %.2fx (bar %.1fx)\n", ratio(ws), Bar)
	return nil
}

// weight is what one program weighs.
type weight struct {
	prog                   string
	size                   int64
	nonstd, sigstore, grpc int
}

// weigh builds the driver-alone program and the SDK program, in that
// order, as `go build` builds them by default, and weighs each.
func weigh() ([]weight, error) {
	tmp, err := os.MkdirTemp("", "binsize")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var ws []weight
	for _, prog := range []string{"driveronly", "sdk"} {
		bin := filepath.Join(tmp, prog)
		build := exec.Command("go", "build", "-o", bin, pkg+prog)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("build %s: %w", prog, err)
		}
		st, err := os.Stat(bin)
		if err != nil {
			return nil, err
		}
		w := weight{prog: prog, size: st.Size()}
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg+prog).Output()
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", prog, err)
		}
		for _, p := range strings.Fields(string(out)) {
			w.nonstd++
			if strings.Contains(p, "sigstore") {
				w.sigstore++
			}
			if strings.Contains(p, "grpc") {
				w.grpc++
			}
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// ratio is the SDK program's size over the driver-alone program's.
func ratio(ws []weight) float64 { return float64(ws[1].size) / float64(ws[0].size) }
