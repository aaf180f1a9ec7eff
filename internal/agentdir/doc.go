// Package agentdir keeps the folders that drivers build for agent runs
// under a skill cache root (Claude Code skill mounts, managed Codex
// homes): it makes them safe from other users, leases them to the runs
// that use them, and lists and collects them. It is also the drivers'
// kit for building them, so that a driver says only where its agent
// looks (see "Building blocks").
//
// # Layout
//
//	<root>/mounts/<name>/<key>/       a skill mount: Claude Code's
//	                                  (mounts/claude), Qwen Code's, Copilot
//	                                  CLI's, OpenCode's
//	<root>/homes/<name>/<key>/        a managed home: Codex's (homes/codex),
//	                                  Gemini CLI's and Cursor CLI's overlays
//	<root>/<kind>/.kind               the kind's agent and sessions (rule 14)
//	<root>/<kind>/<key>.lease         the key's lease and last-use record
//	<root>/<kind>/<key>.stamp-<name>  what a run found in the key's folder
//	                                  (rule 12)
//	<root>/<kind>/<key>.<name>-<digest>.<ext>  a file given to the agent
//	                                  (rule 13)
//	<root>/<kind>/<key>.<other>       a driver's staging for the key, or a
//	                                  folder moved aside to be removed
//
// A [Kind] is data its driver declares (its folder, its agent, its key's
// magic, where the agent keeps sessions in it); this package holds no
// list of them. The kinds under homes/ are homes ([Kind.Home]): the agent
// writes to them and keeps its sessions there. A key is 1 to 64
// lowercase hexadecimal digits. Names under a kind's folder that do not
// start with a key are left alone.
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
//     of runs may hold leases on one key, and no run waits for another:
//     not for one that builds or uses the same key's folder (builds race
//     to publish, rule 9), nor for one of another key. Only a collection
//     holds a key exclusively, and it never waits (rule 4).
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
//     are not followed), the agent sessions it holds (the matches of its
//     kind's Sessions reached through no link: a Codex home keeps them
//     under sessions/, a Gemini CLI overlay home under .gemini/tmp unless
//     that links to the user's, whose sessions stay the user's), its last
//     use and whether a run holds it. It creates nothing and waits for
//     nothing.
//  8. A key ([Key]) is the first 32 hexadecimal digits of a SHA-256,
//     written with the content store's framed encoding (cache.Encoder: a
//     string is its length as 8 bytes big-endian, then its bytes), of the
//     kind's magic ("agentadaptor claude mount v1", "agentadaptor codex
//     home v1"), the skill set's fingerprint, the number of skills and
//     each skill's runtime name and folder, then whatever else the
//     driver's folder depends on. These are the bytes the drivers hashed
//     by hand before the kit, so mounts and homes, and the Codex sessions
//     in them, stay where they were: a run after an upgrade resumes a
//     session started before it.
//  9. A folder that [Publish] makes is built once and never changed: it
//     is filled in a staging folder <key>.staging-* beside the key's
//     folder and renamed into place. A run that finds the key's folder
//     whole uses it; one that loses the race to publish uses the winner's
//     when it is whole, and otherwise moves the broken one aside to
//     <key>.staging-*.old, removes it, and publishes its own. Staging
//     left by a crash is removed with the key ([Collect], rule 4).
//  10. A skill mount ([Mount]) holds only the path where the agent finds
//     skills in a folder it is given (".claude/skills" for Claude Code),
//     each of its folders holding nothing else, and the last one entry
//     per skill by runtime name: a link to the skill's folder, or a copy
//     of it where links cannot be made, which must have the skill's
//     content digest. Its skills folder is read-only (0555). A mount that
//     holds anything else, a link in place of one of its folders, a link
//     to another folder or a changed copy is not whole, and rule 9
//     replaces it.
//  11. In a folder the agent also writes to (a managed home's skills
//     folder), [SyncLinks] keeps exactly one link per wanted skill:
//     hidden entries are the agent's own and stay, links of other names
//     or targets are removed, and anything but a link under a wanted name
//     is an error saying to remove it. [MirrorLink] keeps a link to a
//     file of the user's that exists, removes it when the file is gone,
//     and leaves a file the agent put in its place; [MirrorDir] does so
//     for every entry of a folder of the user's, but those it is told
//     to leave to the driver.
//  12. A run that checked folders under a lease and found them as wanted,
//     changing nothing, may record that in a stamp, <key>.stamp-<name>:
//     the digest of what they were checked against, and each folder's
//     state (device, inode, mode, size, modification and change times)
//     read before the check. A later run takes the folders as checked,
//     without reading what they hold, only when the stamp is a regular
//     file written for the same want, each folder's state is the one
//     recorded, and each had last changed at least 100 ms (3 s where the
//     file system keeps whole seconds) before that state was read, so
//     that no change in the same tick of the file system's clock goes
//     unseen; anything else is a full check. A folder's change time moves
//     with every entry added, removed or renamed in it and with a change
//     of its mode, and cannot be set back, so a stamp covers a folder of
//     links (a link cannot change in place), never a copy's content:
//     [Mount] stamps a mount only when every entry is a link, and
//     [Lease.SyncLinks] a skills folder. A stamp is removed with its key
//     (rule 4).
//  13. A file a driver gives its agent beside a key's folder ([Lease.File],
//     such as a settings file for the run) is named by a digest of its
//     content, <key>.<name>-<digest>.<ext>: written once (0600, to a new
//     file renamed into place), used again by every run whose file holds
//     the same bytes, checked to be a regular file holding them before
//     each use, and removed with its key (rule 4).
//
// # Building blocks
//
// A driver that gives its agent skills for one run without writing to the
// user's folders picks one of two shapes, both leased with [Use] under a
// [Key]:
//
//   - a folder the agent is given, read-only: [Mount] with the path under
//     it where the agent looks. Claude Code's --add-dir (.claude/skills)
//     is one; Copilot CLI's --add-dir (.github/skills) and an OpenCode
//     config folder (OPENCODE_CONFIG_DIR, skills/) have the same shape.
//   - a home the agent writes to (sessions, logins, its own skills): a
//     folder made in place, whose skills folder is kept with [SyncLinks]
//     and whose links to the user's own files are kept with [MirrorLink].
//     The managed Codex home (CODEX_HOME) is one; Gemini CLI's
//     GEMINI_CLI_HOME has the same shape.
//
// The agent's facts (which folder, which files of the user's to link)
// stay in the driver.
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
// only while no agent runs. Stamps (rule 12) are read on Linux and macOS
// only, where Go reads change times: on other systems every check is a
// full one. Where links cannot be made (Windows without
// the right to make them), [Mount] copies each skill, and [SyncLinks] and
// [MirrorLink] fail with the system's error.
//
// [CheckAncestors]: https://pkg.go.dev/github.com/agentadaptor/agentadaptor/internal/cache#CheckAncestors
package agentdir
