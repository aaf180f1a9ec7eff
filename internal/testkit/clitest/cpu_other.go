//go:build !unix

package clitest

import "time"

// cpuTime reports no CPU time where getrusage is not available.
func cpuTime() time.Duration { return 0 }
