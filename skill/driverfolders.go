package skill

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/agentdir"
)

// DriverFolder is a folder that a driver keeps under a [Cache]'s root for
// its runs: a skill mount (Claude Code's <root>/mounts/claude/<key>,
// Qwen Code's <root>/mounts/qwen/<key>) or a managed home (Codex's
// <root>/homes/codex/<key>, Gemini CLI's overlay <root>/homes/gemini/<key>).
// Each run holds a lease on its folder while it runs and records its use
// in it.
type DriverFolder struct {
	// Agent is the agent that reads the folder, as the driver that made
	// it records it ("claude-code", "codex", "gemini-cli", ...): the
	// cache finds the folders under its root (mounts/NAME/<key>,
	// homes/NAME/<key>) and knows no driver; one whose driver recorded
	// nothing (made by an older version) is named by NAME.
	Agent string
	// Kind is "mount" (a folder of skill links the agent is pointed at) or
	// "home" (a managed home the agent runs in, which may hold sessions).
	Kind string
	// Dir is the folder.
	Dir string
	// Size is the total size of its files in bytes; the skills it links
	// to are not counted.
	Size int64
	// Files is the number of its files.
	Files int
	// Sessions is the number of agent sessions it holds (a Codex home
	// keeps its sessions): removing the folder removes them, and they can
	// no longer be resumed.
	Sessions int
	// LastUse is when a run last started or ended with it.
	LastUse time.Time
	// InUse reports whether a run was using it when it was listed.
	InUse bool
}

// DriverFolders lists the folders that drivers keep under the cache's
// root, sorted by agent then path. Every folder from the root down to
// them must belong to the current user and be writable by no one else,
// or it is an error. A root that does not exist holds none. A ctx
// already done stops it before it reads anything, with ctx's error.
func (c *Cache) DriverFolders(ctx context.Context) ([]DriverFolder, error) {
	if c.root == "" {
		return nil, errZeroCache
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	folders, err := agentdir.List(c.root)
	out := toDriverFolders(folders)
	slices.SortStableFunc(out, func(a, b DriverFolder) int {
		return cmp.Or(strings.Compare(a.Agent, b.Agent), strings.Compare(a.Dir, b.Dir))
	})
	return out, err
}

// CollectDriverFolders removes the folders that drivers keep under the
// cache's root that no run has used for olderThan, and returns them. A
// folder that a running agent uses is never removed, however old; an
// olderThan of 0 or less removes every other one. Removing a managed
// Codex home removes the sessions it holds ([DriverFolder.Sessions]).
// Collect the folders before the trees ([Cache.GC]): a tree a remaining
// folder links to is kept. A ctx already done stops it before it
// removes anything, with ctx's error.
func (c *Cache) CollectDriverFolders(ctx context.Context, olderThan time.Duration) ([]DriverFolder, error) {
	if c.root == "" {
		return nil, errZeroCache
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	removed, err := agentdir.Collect(c.root, time.Now().Add(-olderThan))
	return toDriverFolders(removed), err
}

// toDriverFolders converts agentdir's listing. DriverFolder repeats most
// of agentdir.Folder's fields on purpose: agentdir, below this package,
// cannot return the public type, and names a folder by an internal Kind
// and its key where the public type speaks of "mount" or "home".
func toDriverFolders(in []agentdir.Folder) []DriverFolder {
	out := make([]DriverFolder, len(in))
	for i, f := range in {
		kind := "mount"
		if f.Home {
			kind = "home"
		}
		out[i] = DriverFolder{
			Agent: f.Agent, Kind: kind, Dir: f.Dir, Size: f.Size, Files: f.Files,
			Sessions: f.Sessions, LastUse: f.LastUse, InUse: f.InUse,
		}
	}
	return out
}
