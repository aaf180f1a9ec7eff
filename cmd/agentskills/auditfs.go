package main

import (
	"os"

	"github.com/agentadaptor/agentadaptor/audit"
)

// auditFolder audits the skill tree in the folder dir.
func auditFolder(dir string) (audit.Report, error) {
	return audit.Tree(os.DirFS(dir))
}
