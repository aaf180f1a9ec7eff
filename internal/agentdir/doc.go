// Package agentdir keeps the folders that drivers build for agent runs
// under a skill cache root (Claude Code skill mounts, managed Codex
// homes): it makes them safe from other users, leases them to the runs
// that use them, and lists and collects them.
//
// # Layout
//
//	<root>/mounts/claude/<key>/       a Claude Code skill mount ([ClaudeMount])
//	<root>/homes/codex/<key>/         a managed Codex home ([CodexHome])
//	<root>/<kind>/<key>.lease         the key's lease and last-use record
//	<root>/<kind>/<key>.<other>       a driver's staging for the key, or a
//	                                  folder moved aside to be removed
//
// A key is 1 to 64 lowercase hexadecimal digits. Names under a kind's
// folder that do not start with a key are left alone.
//
// # Rules
//
//  1. Every folder from the root down to a key's folder (the root,
//     mounts/, mounts/claude/, homes/, homes/codex/ and the key's folder)
//     must be a real folder (not a link) of the current user that neither
//     its group nor every user may write; every folder above the root must
//     belong to the current user or to root and be writable by no one else
//     unless sticky, as /tmp is. [Acquire] creates the missing folders
//     (0700) and checks them all, top down, before a driver uses any;
//     [CheckFolder] checks a key's folder that a driver makes itself. A
//     folder that fails is an error naming it and saying what to do, and
//     nothing below it is used. [List], [Collect] and [Linked] check the
//     same folders before they read or remove anything under them.
//  2. A run holds a lease on its key for as long as it runs: a shared
//     lock on <key>.lease, taken by [Acquire] before the driver builds or
//     reuses the key's folder, and released by [Lease.Release]. Any number
//     of runs may hold leases on one key.
//  3. A key's last use is the modification time of <key>.lease, set when
//     a lease is taken and again when it is released, never the time of
//     the folder, which the agent changes or does not as it pleases. A
//     key without a lease file (a folder made before leases) was last used
//     when its folder was last modified.
//  4. [Collect] removes a key only while it holds the exclusive lock of
//     its lease, taken without waiting: a key that a run holds is kept,
//     however old. Of the others, a key last used before the cut-off is
//     removed, a later one kept. Removal renames the key's folder aside
//     first, so that no one sees it half removed, then removes every
//     <key>.* name, the lease file last.
//  5. A run that takes a lease checks, once it holds the lock, that its
//     file is still the one named <key>.lease; if a collection removed it
//     meanwhile, it takes the lease again on the new file. So a collection
//     and a run never hold a key at the same time, and a folder built
//     under a lease is not removed until its lease is released.
//  6. [Linked] reports the trees under the root that the folders link to
//     (their links are read, never followed), so that the collection of
//     the content store keeps every tree a kept folder points at.
//  7. [List] reports each folder with its size (its regular files; links
//     are not followed), the agent sessions it holds (a Codex home keeps
//     them under sessions/), its last use and whether a run holds it. It
//     creates nothing and waits for nothing.
//
// # Other systems
//
// On macOS and the BSDs everything holds as on Linux (the locks are
// flock's). On Windows ownership and modes are not checked, as access
// control lists govern access there, and [CheckAncestors] accepts every
// folder; leases are LockFileEx locks, and a lease file that a waiting run
// holds open cannot be removed, so it may stay behind: that changes
// nothing but a file left. None of it has run on Windows: CI has no
// Windows machine. On systems that are neither Unix nor Windows no lock is
// taken, so [Collect] could remove a folder a run is using: collect there
// only while no agent runs.
//
// [CheckAncestors]: https://pkg.go.dev/github.com/agentadaptor/agentadaptor/internal/cache#CheckAncestors
package agentdir
