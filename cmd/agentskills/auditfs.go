//go:build !linux

package main

import (
	"os"

	"github.com/agentadaptor/agentadaptor/audit"
)

// auditFolder audits the skill tree in the folder dir. On Linux the tree
// is read through the folder's descriptor, following no link
// (auditfs_linux.go).
func auditFolder(dir string) (audit.Report, error) {
	return audit.Tree(os.DirFS(dir))
}
