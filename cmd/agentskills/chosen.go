package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/install"
)

// printChoice says which agents add installs for and why (from the flags,
// the lock file, detection, or the default), one line on w.
func printChoice(w io.Writer, c install.AgentChoice, f *scopeFlags) {
	ids := make([]string, len(c.Agents))
	for i, a := range c.Agents {
		ids[i] = a.Agent.ID
		if a.Found != "" {
			ids[i] += " (found " + homePath(a.Found) + ")"
		}
	}
	list := strings.Join(ids, ", ")
	switch c.Why {
	case install.WhyRequested:
		flag := "--agent"
		if f.all {
			flag = "--all"
		}
		if len(ids) == len(install.Agents()) {
			list = fmt.Sprintf("all %d known agents", len(ids))
		}
		fmt.Fprintf(w, "installing for %s, as %s asks\n", list, flag)
	case install.WhyRecorded:
		fmt.Fprintf(w, "installing for %s, which %s records (--agent chooses others)\n", list, homePath(c.Lock))
	case install.WhyDetected:
		fmt.Fprintf(w, "installing for %s, detected here (--agent chooses others)\n", list)
	default:
		fmt.Fprintf(w, "installing for %s: no agent was detected here (--agent chooses others)\n", list)
	}
}

// homePath shows p as shortPath does, and a path under the home folder
// as ~/... .
func homePath(p string) string {
	if s := shortPath(p); s != p {
		return s
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return "~" + string(filepath.Separator) + rel
	}
	return p
}
