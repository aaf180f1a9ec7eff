//go:build !unix

package git

import "os/exec"

// ownGroup leaves cmd as it is: where there are no process groups,
// stopping git stops git alone, and a helper it started ends when its
// connection does (curl's low-speed limit, or the server closing it).
func ownGroup(cmd *exec.Cmd) {}
