// Package install puts skills into coding agents' skill folders and keeps
// them right: the library behind `agentskills
// add/list/remove/sync/verify/outdated/update`.
//
// A complete program that installs a skill folder for two agents in the
// current project:
//
//	package main
//
//	import (
//		"context"
//		"fmt"
//		"log"
//
//		"github.com/agentadaptor/agentadaptor/install"
//	)
//
//	func main() {
//		env, err := install.CurrentEnv() // $HOME and the current folder
//		if err != nil {
//			log.Fatal(err)
//		}
//		agents, err := install.LookupAgents("claude-code", "codex")
//		if err != nil {
//			log.Fatal(err)
//		}
//		changes, err := install.New(env).Add(context.Background(), install.AddRequest{
//			Sources: []string{"./skills/review"},
//			Agents:  agents,
//		})
//		if err != nil {
//			log.Fatal(err)
//		}
//		for _, c := range changes {
//			fmt.Println(c.Agent, c.Action, c.Path)
//		}
//	}
//
// Runnable examples are in example_test.go and agents_example_test.go (go
// doc does not print them; pkg.go.dev does): ExampleInstaller_Add,
// ExampleLookupAgents and ExampleAgent_Reads.
//
// # Operations
//
// Every method of [Installer] that reads the lock file, the cache, the
// agents' folders or the network is an operation: it takes its context
// first, then one request struct when it has other inputs
// ([Installer.Add] an [AddRequest], [Installer.ChooseAgents] the same),
// or the context alone ([Installer.Verify], [Installer.RecordedRisks]).
// Two methods are no operations and take no context: [Installer.Root],
// the scope's folder, and [Installer.Origin], which answers from the
// text and, for a local path, the links along it (as
// filepath.EvalSymlinks does): it reads no file's content, nothing over
// the network, and nothing it could wait for.
//
// # Layout
//
// Each scope (a project, or the user's home) keeps one canonical copy of
// every skill under <root>/.agents/skills/<name>, as real files a project
// can commit. Each selected agent whose folder is not that one gets a
// relative symbolic link <agent folder>/<name> to the canonical copy,
// computed between real paths so it survives a moved checkout and folders
// that are themselves links. Where links cannot be made (Windows without
// the privilege) it gets a directory junction, and failing that, or with
// Copy, a full copy. Reports and the lock file say which was made.
//
// # Rules
//
//  1. Ownership: everything the installer creates is recorded in the
//     scope's lock file, <root>/.agents/agentskills.lock. It never
//     modifies, replaces or deletes a folder or link it did not create: a
//     name taken by anything else fails the whole request with
//     [ErrConflict], naming the path, before anything changes. The one
//     exception is adoption: a folder with exactly the content it would
//     install, or a link to its canonical copy, is recorded as its own
//     ([ActionAdopted]), so that what it installed before a lock file was
//     lost (or deleted because it was corrupt) is taken back by add or
//     sync. The canonical copy is checked like every other place. A
//     folder is never an agent's place and a skill's source at once: an
//     agent whose place for a skill (outside the canonical folder) is
//     that skill's source folder (a
//     project's own skills folder, which OpenClaw reads; compared as one
//     file, so on macOS and Windows whatever the letter case) reads the
//     skill there already, and Add makes nothing for it, reporting a Change
//     with [ActionSkipped], the agent and the reason; List shows a
//     recorded source folder in an agent's folder as [StateSource], not
//     as someone else's skill.
//  2. Atomic changes: a new or updated folder is staged beside its place
//     (under a hidden name) and swapped in with one rename (on Linux an
//     atomic exchange), so a failure or a crash leaves the old state or the
//     new, never half; a link is replaced by renaming a new link over it;
//     a folder is removed by renaming it aside first, then deleting it.
//     What a crash leaves under those hidden names is swept by the next
//     run. A file lock, held for the whole of an add, remove or sync and
//     kept under the user's cache folder (WithLockDir), never in the
//     project, keeps two processes from interleaving; waiting for it ends
//     with the operation's context (an error wrapping the context's). The
//     lock file itself is replaced whole: written beside, flushed to the
//     disk, renamed over, and its folder flushed (on Windows the folder
//     is not), so after a power loss it records the old state or the new.
//  3. Sources: a folder; a SKILL.md file, which stands for its folder's
//     skill alone (not the skills below it); an archive file (zip, tar,
//     tar.gz, recognised by content); an http(s) URL of such an archive, with an optional
//     expected SHA-256 as URL#sha256=HEX that must match ([source.ErrIntegrity]
//     if not). The skills of a source are found as rule 12 says. Every
//     source is held to the archive rules of package skill and the
//     limits of the skill cache ([WithCache]; names, file types, sizes,
//     entry count), local folders too, and a download stops at the
//     cache's archive size (a GitHub tarball is also bounded by package
//     source/github's own limits, before the skills' part of it is held
//     to the cache's).
//     An entry that breaks those rules fails its whole source: a hostile
//     source is never partly installed. Links are the exception, as
//     repositories share files between skills with them: in a folder
//     source, a link (a SKILL.md too, and a chain of links) whose target
//     is a file inside the source is read, and installed, as that file,
//     through an os.Root on the source that never leaves it; a skill
//     holding a link that leads out of the source, to nothing or to a
//     folder is skipped (rule 4) with the link and the reason, never
//     read, and the others install. In an archive (a repository
//     snapshot, a GitHub tarball, a git archive, a URL's archive) a link
//     to a regular file of the archive is written as a copy of it; a
//     link out of the archive, to nothing, to a folder or to another
//     link is never written or followed, and the skill whose folder held
//     it (its SKILL.md too) is skipped the same way, while such a link
//     outside every skill (in docs/, say) is just left out. The same holds on macOS and Windows (where a folder
//     holds links only when they could be made; a directory junction is
//     not a link and fails the source). An archive is extracted once,
//     whatever number of skills it holds, and a sync reads each recorded
//     source once. A pinned source's archive (a published source, a
//     URL#sha256=HEX) is extracted into a staging area of the skill
//     cache (WithCache; any other archive, or when the cache cannot be
//     opened, into the system's temporary folder), and of a tar, a zip
//     or a tar.gz, whose entries are listed first (a tar.gz of at most
//     64 MiB once decompressed through the tar it decompresses to, in a
//     temporary file), only what discovery reads is
//     written there: the folders that hold a SKILL.md, the archive
//     root's entries and the plugin manifests (.claude-plugin folders);
//     every entry is still checked against the cache's rules and limits.
//     A skill an Add keeps in the cache (rule 13) is then moved from
//     there into the cache, not copied, unless another skill installed
//     with it lies in its folder or holds it.
//  4. Every skill is read with the checker (lenient SKILL.md rules, as
//     agents read them). A skill without a usable name and description,
//     whose name cannot be a folder name, holding a link that cannot be
//     read (rule 3), or whose name another skill found has too, with
//     other content (the problem names both folders; a mirror is not
//     another skill, rule 12) cannot be installed:
//     Add skips it, reporting a Change with [ActionSkipped], its folder
//     in the source and the reason, and installs the others; it fails
//     with [ErrInvalidSource], changing nothing, only when no skill is
//     left, or, with AddRequest.Strict, when any was skipped. With
//     AddRequest.Skills only the skills selected count. Sync and
//     [Installer.Find] skip nothing: a skill they would use that cannot
//     be installed fails them. A skill that breaks only the Agent Skills
//     specification's strictness, which agents load anyway, is skipped
//     the same way unless AddRequest.Lenient is set: a description over
//     1,024 characters, and a compatibility field over 500 characters
//     or not text (Anthropic's own claude-api skill has such a
//     description). With AddRequest.Lenient it is installed, the canonical
//     copy's Change naming what it breaks (Change.Spec), and the lock
//     file records it ("lenient": true), so that Sync installs it again
//     without being asked; without it, the skipped Change names it
//     (Change.Spec) and an Add left with nothing, or strict, fails
//     wrapping [ErrSpecification] too. A missing or unusable name or
//     description, a name that cannot be a folder name, and every other
//     problem are never let through: the name becomes a folder and an
//     identifier agents match on, and the name rules (lowercase, no
//     "--") keep two names from meaning one folder on macOS and Windows.
//     Validation (skillmd's strict mode,
//     `agentskills validate`) is unchanged by any of this.
//  5. Reproducibility: the lock file records each skill's source and
//     content digest, sorted, without timestamps; a local source in a
//     project is recorded relative to the project (also ../ paths), so a
//     committed lock file works in another checkout. Sync restores the
//     folders from it, reading each source once under one lock (a skill
//     whose source and canonical copy both still hold the recorded
//     content is read and checked as rule 3 says, but copied nowhere, by
//     Add too); frozen
//     (as npm ci), it restores them too but records nothing new: it
//     checks every skill first and fails without changing anything,
//     listing every source whose content no longer matches. Verify
//     re-hashes what is installed, and fails with [ErrNothingRecorded]
//     when the lock file records nothing. Without a lock file there is
//     nothing to sync: Sync changes nothing and writes nothing, not even
//     a lock file; a frozen Sync fails then with [ErrNothingRecorded]. A
//     run that changes no entry leaves the lock file as it is when it
//     holds, byte for byte, what this package writes for the entries it
//     decoded; any other (a key twice in an object, a key in another
//     case, which Go's JSON matches to "source" where jq sees another
//     key, an unknown key, another layout) is written in standard form.
//  6. Interruptions: an add, remove or sync marks the skills it is about
//     to change in the lock file (its "unfinished" list, with their entries
//     before) and changes them one by one. When its context ends (Ctrl-C)
//     it stops between two skills and records exactly what is in place,
//     failing with [ErrInterrupted], which says how many were done; the
//     lock file and the folders agree. When it is killed, the marks stay:
//     list and verify report those skills as unfinished, and the next
//     add, remove or sync settles each before anything else, reporting
//     [ActionFinished] (the new content is in place: its links and copies
//     are made from it; a removal is completed) or [ActionRolledBack] (the
//     entry from before is restored).
//  7. Edits are kept: a canonical copy or a copy whose content differs
//     from what was recorded was changed by someone, and add, sync and
//     remove fail with [ErrModified], naming the files that differ,
//     before changing anything. AddRequest.Force (SyncRequest.Force, and
//     RemoveRequest.Force) replaces or removes it after moving it to a new
//     folder under <root>/.agents/backups, which the change names
//     (Change.Backup).
//  8. Errors wrap one of the package's sentinels ([ErrConflict],
//     [ErrModified], [ErrNotInstalled], [ErrDrift], [ErrSourceUnavailable],
//     [ErrInvalidSource], [ErrInvalidLock], [ErrNothingRecorded],
//     [ErrUnsafeFolder], [ErrInterrupted], [ErrRequirements],
//     trust.ErrRefused, and
//     [ErrSpecification] beside [ErrInvalidSource]) or, for content that
//     does not match its digest, [source.ErrIntegrity], for callers to
//     classify with errors.Is; a request stopped by several problems
//     lists every one. source.ErrIntegrity, the one sentinel of every
//     package for it, is every integrity failure: content that does not
//     match the digest that names it, downloaded or kept (a URL's
//     #sha256=, a web index's digest, an OCI blob's). A skill skipped
//     for it (rule 4) still fails the request: Add installs the others
//     and returns the changes with an error wrapping
//     source.ErrIntegrity; with AddRequest.Strict, or when it is the
//     only skill, nothing changes and the error wraps both
//     [ErrInvalidSource] and source.ErrIntegrity. Messages read
//     SUBJECT: SENTINEL: DETAIL, the source, skill or folder first, and
//     speak of this package (its options and fields), never of a
//     command's flags: a command adds those.
//     Every change is reported with its [Action]: installed, updated,
//     repaired, adopted, unchanged, removed, finished, rolled back, or
//     skipped (rule 4).
//  9. Folders are checked before anything is made ([ErrUnsafeFolder]): a
//     canonical folder (or .agents) that is a link or a file; an agent
//     folder that is not an absolute path (a relative CLAUDE_CONFIG_DIR);
//     in a project, any folder on the way from the project to an agent's
//     folder that is a file, or a link leading out of the project (a
//     committed .claude linked to the user's ~/.claude). A lock file in a
//     project cannot name a place other than where the installer puts
//     each skill.
//  10. Downloads: a download that receives nothing (no connection, no
//     response headers, no bytes of the body) for WithDownloadTimeout
//     fails with [ErrSourceUnavailable] and [source.ErrStalled]. This
//     holds for every source that downloads: URLs; GitHub and OCI
//     sources, whose every request (resolving the reference, the
//     archive, manifests, layers, a registry's token) goes through a
//     client whose responses restart the timer when their headers arrive
//     and at every read of their body; and git sources, whose fetch git
//     runs under the same timeout (package source/git, rule 11). Each download is also bounded in size: a URL's and an
//     OCI layer by the cache's MaxArchiveSize, a GitHub tarball by
//     package github's limits (rule 3), and what a git fetch brings
//     into its temporary repository by the cache's MaxArchiveSize
//     (package source/git, rule 12). Credentials in a URL are used for that
//     download and never recorded or shown: the lock file and every
//     message (errors, progress) show an http(s) URL without its user
//     information (https://user:secret@host/... and https://TOKEN@host/...
//     become https://host/..., and a sync of it then needs a URL that does
//     not require them), and an ssh URL with its user but without a
//     password: git+ssh://git@host/... keeps git@, which names the
//     account on the server, so that a sync connects as the same user.
//  11. User folders that move: in the user's scope an agent's folder may
//     depend on the environment (CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME). A
//     skill recorded where the agent's folder was is listed as moved
//     ([StateMoved]); add and sync install it in today's folder and remove
//     it from the old one while it is still this tool's; remove removes
//     it wherever it is recorded.
//  12. Discovery: the skills of a source are its folders that hold a
//     regular SKILL.md, found: at its root; in every folder at most five
//     levels below the root, never entering .git, .hg, .svn, .jj,
//     node_modules, __pycache__, .venv, venv, dist or build; by the same
//     search from skills, skills/.curated, skills/.system,
//     skills/.experimental, .agents/skills, .claude/skills,
//     .github/skills and every known agent's project folder; and by the
//     same search from the folders the Claude plugin manifests list
//     (.claude-plugin/plugin.json at the root, and for each plugin of
//     .claude-plugin/marketplace.json whose source is a folder of this
//     source, with metadata.pluginRoot: its skills folder and the paths
//     under "skills" in its entry or its own .claude-plugin/plugin.json).
//     Links to folders are not followed (a SKILL.md that is a link makes
//     a skill, read as rule 3 says), manifest paths that leave the
//     source are ignored, and so are manifests that are not JSON or are
//     larger than 1 MiB.
//     Marketplaces: a source whose root holds a
//     .claude-plugin/marketplace.json that is read is a marketplace, and
//     installs the plugins it lists, as the npm skills tool (1.7.4) and
//     Claude Code do: its root is searched one level down only (its own
//     SKILL.md and its sub-folders'), the known folders and the listed
//     plugins' folders as above, and a folder holding a
//     .claude-plugin/plugin.json that the marketplace does not list is
//     never entered (anthropics/claude-plugins-official leaves its
//     example-plugin out so), also inside skills/, where the npm tool,
//     which leaves such plugins out only as its search does not reach
//     them, would find one's skills three levels down. Skills of the known folders (skills/ and
//     the agents' folders) are installed beside the plugins' as the npm
//     tool installs them; a skill elsewhere, deeper and in no listed
//     plugin, is left out. A marketplace where that finds nothing is
//     searched as any other source. A plugin's skills
//     (SourceSkill.Plugins, which AddRequest.Plugins selects by) are those
//     at or below the paths its entry and its plugin.json list, or, when
//     they list none, those in its skills folder; the root's own
//     plugin.json makes a plugin of its "name". Plugins published
//     elsewhere (a GitHub repository, a URL) are not read.
//     Plugin dependencies, as Claude Code reads them: a plugin's
//     "dependencies", in its marketplace entry and its plugin.json (both
//     are read), is a list of at most 64 entries, each a plugin name or
//     an object {"name", "version" (a version range, as package
//     source/version reads one), "marketplace" (another marketplace, by
//     name)}; a name holds letters, digits, "-", "_" and "." (starting
//     with a letter or digit, at most 128 bytes). Add of a skill of a
//     plugin of a marketplace installs, with it, the skills (not nested
//     ones) of the plugins of the same marketplace its plugins depend
//     on, and theirs, each as a requirement of it (rule 17: installed as
//     a dependency, recorded in its "requires", removed with it, rule
//     18), written as the source Add takes that skill from: the
//     marketplace's source with the skill's folder at the same reference
//     (git+URL#ref=REF&path=PATH, github:OWNER/REPO/PATH@REF, or, of a
//     folder, the path from the requiring skill's folder,
//     ../b/skills/x); a marketplace read otherwise (an archive, OCI) is
//     refused with [ErrInvalidSource]. The skills of a dependency are
//     read with the marketplace, at its pin, not again. A dependency on
//     a plugin of another marketplace (its "marketplace" names one other
//     than this marketplace's "name"), or of a plugin.json that no
//     marketplace read here lists, is not followed: Add reports it as a
//     Change with ActionSkipped whose Skill is the plugin's name, Source
//     the marketplace read, and Reason the chain of plugins and that
//     marketplace's source is to be added; the rest is installed. What
//     fails the request with [ErrRequirements], naming the chain of
//     plugins ("plugin a -> b -> c: ..."), before anything changes: a
//     dependencies list that is not one as above, a plugin the
//     marketplace does not list, a cycle ("a -> b -> a", a plugin
//     depending on itself too), a chain longer than [MaxRequireDepth],
//     and a version range that does not admit the version the
//     dependency's marketplace entry, else its plugin.json, gives (none
//     given, or one that is no JSON string: not checked). Claude Code
//     resolves a range against the marketplace repository's tags
//     {name}--v{version}; Add does not look them up, as it reads the
//     marketplace at one reference. With AddRequest.NoRequires none of
//     this is read: only the skills selected are installed.
//     A skill's plugin requirements are those its lock entry records
//     written as above (naming another installed skill of the same
//     source, and not declared by the installed SKILL.md).
//     [Installer.Update] of a skill that has any reads its marketplace
//     again, whole, at the pin (or, of a folder, the content) it moves
//     to, and links it as Add does: its plugin requirements, and those of
//     the skills they bring in, are the marketplace's now (a dependency
//     gained is installed as a requirement, one dropped is no longer
//     recorded, its skills left installed as rule 17 leaves a
//     requirement a new version drops, a problem above fails the
//     update, changing nothing; a dependency on another marketplace's
//     plugin is not reported), and an installed skill whose plugin
//     requirements changed is read again though its content did not.
//     A skill read without its marketplace
//     (by a requirement naming its folder, or of a source not read at a
//     pin) keeps the plugin requirements recorded, written again at the
//     source it is read from, and each is read again there, as its other
//     requirements are; they are never dropped unread. A skill that had
//     none is not linked by Update (Add of its plugin again links it).
//     Nested skills: a folder holding a SKILL.md inside another skill's
//     folder (up to five levels below it) is a file of that skill, which
//     installs it with the rest of its folder, not a skill of its own:
//     Add leaves it out, and [Installer.Contents] lists it with the
//     folder of the skill that holds it (SourceSkill.Within), unless
//     AddRequest.Skills names it, by name or by folder, which installs it
//     alone as well. A name that a skill of its own has too stands for
//     that one. (Before, such folders were skills of their own; the npm
//     tool never enters a skill's folder either.) Marketplaces and
//     nested skills are read the same on macOS and Windows: manifest
//     paths are slash-separated, and one holding a backslash is
//     ignored. Mirrors are
//     one skill: of the usable skills of one name in one source, when
//     one holds every file of each other (same path, bytes and
//     executable bit), as a copy or a folder for another agent whose
//     SKILL.md links to the skill's does, only that one is listed and
//     installed; of several with the same content, the one with no path
//     element starting with "." first, then the one with the fewest
//     elements, the shortest, the first in byte order. A mirror selected
//     by its folder is installed from there. Skills of one name with
//     other content clash (rule 4). An archive whose entries all sit
//     in one top folder (a repository snapshot) is searched from that
//     folder; the lock file records each skill's folder relative to the
//     archive's root. A source with more than 100,000 folders to search
//     is refused ([ErrInvalidSource]); so is one where nothing is found.
//     [Installer.Contents] lists what a source holds. AddRequest.Skills
//     selects skills by name, or by folder inside the source (which tells
//     two skills of one name apart); a name that no source holds fails
//     with a [MissingSkillsError], which lists what they hold.
//  13. Published sources: which kind of source a text names is
//     [source.Parse]'s to say (package source, rules 16 to 21: oci://,
//     git+..., github:, a GitHub or other git host's https address, a
//     web index, an archive's URL, a path); the syntax, credentials and
//     hosts of each kind are its package's (source/github, source/git,
//     source/oci). An address of a repository's form that its package
//     cannot read fails with [ErrInvalidSource], saying why; it is never
//     downloaded. The host is never asked what it is, so the policy
//     (# Trust) is checked before any request; it sees a repository on
//     another host, a GitHub Enterprise one too, as kind "git" at
//     HOST/PATH (gitlab.com/group/sub/repo), so that a github: pattern,
//     which means github.com, never matches it. A sync reads a recorded
//     source by the same rules (GH_HOST must then still name the host of
//     an https://HOST/OWNER/REPO). A bare OWNER/REPO (source.Spec.Bare)
//     is a GitHub source only when no file or folder of that name exists;
//     and, as typed (not as a lock file records it), only when no file or
//     folder OWNER exists here either: then it is taken for a mistyped
//     path (skills/good-onee beside skills/good-one) and refused with
//     [ErrInvalidSource], naming the nearest name and both ways to say
//     what was meant: ./OWNER/REPO for a folder,
//     github:OWNER/REPO[/PATH][@REF] for the repository. When a GitHub
//     lookup of a bare OWNER/REPO fails, the error says it was read as
//     one. A typed path that does not exist is [ErrInvalidSource] saying
//     so, with the nearest name when one is close. The same holds on
//     macOS and Windows, where a folder OWNER is found whatever its case
//     (as the file system finds it). Add resolves the reference to a pin (a commit,
//     a manifest digest) once and reads the content at that pin; the lock
//     file records per skill the source as typed (without secrets, and
//     with an ssh user: rule 10), the pin ("pin") and the
//     content digest, and no token. Sync reads a recorded skill at
//     its pin, never at the moving reference; only Add moves a pin, and
//     reports the old and the new one (Change.PreviousPin, Change.Pin).
//     A reference may be a version range (OWNER/REPO@^1.2,
//     git+URL#ref=~1.2, oci://HOST/REPO:^1.2; package source/version
//     says which text is one): Add picks the highest tag the range
//     admits and pins it, the lock file records the source as typed,
//     with its range, the pin, and the tag picked ("version"; kept while
//     the pin is, and moved with it by Add and Update), Sync reads the
//     pin, and a later Add
//     moves the pin within the range, never past it. The policy sees a
//     typed range as not pinned, and a recorded one as pinned by its
//     pin (Trust rule 1). A bare OWNER/REPO@RANGE whose range is not one
//     fails with [ErrInvalidSource] saying why.
//     The content at a pin never changes: when a pinned source (a
//     published one read at the pin the lock file records, or a
//     URL#sha256=HEX) gives content other than the lock file records,
//     Add and Sync, frozen or not and whatever Force says (Force is for
//     edits on disk), fail with [ErrDrift], naming the skill, the source,
//     the pin and both digests, and change nothing. Other content is
//     recorded only by an explicit step: Add at another pin, or Remove
//     and then Add. `agentskills run` does not read the lock file: it
//     reads its sources as given ([Installer.Find]).
//     The skills of a pinned source (and of a URL#sha256=HEX) are kept in
//     the skill cache (WithCache) as they are installed: while it
//     holds their content, a sync of them needs no network. With the
//     skills, the cache remembers what reading the source at that pin
//     found (its skills' names, folders, plugins and digests; a small
//     file under its .pins folder, written unflushed and sealed with a
//     SHA-256 of its body, as a verdict is: Trust rule 3) when every
//     one of them was kept, so
//     that an Add of the same source that resolves to the same pin looks
//     the reference up, verifies the pin as # Trust says, and takes the
//     skills from the cache without downloading the content (each is
//     checked, audited and compared with the lock file as a downloaded
//     one is); a memo that is missing, unreadable, not whole (its sum
//     does not match its body: a crash left it cut short or mixed with
//     the memo it replaced) or names a tree the
//     cache no longer holds costs a download, nothing more (the same
//     on macOS and Windows). One skill
//     installed from a repository may be added again from the same
//     repository at another reference; any other source for an installed
//     name is [ErrConflict].
//  14. Keeping current: [Installer.Outdated] checks every recorded
//     skill against its source, changing nothing (no lock file write, no
//     folder touched, no file lock), and [Installer.Update] moves pins
//     and installs the new content. Each source is read once, whatever
//     the number of its skills: a GitHub, git or OCI source's reference
//     is looked up once, and its content read at the new pin only when
//     the pin moved (for a version range, source.Versioned, the tag the
//     range picks is reported); a URL pinned with #sha256= is never
//     outdated; another URL is asked, with the ETag and Last-Modified
//     the lock file records from its last download (each only when at
//     most 256 bytes of printable ASCII), whether it changed
//     (If-None-Match, If-Modified-Since: 304 is current, without a
//     download; skills of one URL recorded from different downloads are
//     downloaded and compared); a folder or archive file is read again. The new
//     content of a skill is materialized into the skill cache and its
//     digest compared with the recorded one; for a published source it
//     is remembered there with its pin (a small file under the cache's
//     .pins folder), so that an Update that follows takes it from the
//     cache, looking the reference up once and downloading nothing (a
//     memo whose tree the cache no longer holds costs a download). A
//     source that cannot be
//     read is reported per skill by Outdated, the others still
//     checked; it fails an Update, which changes nothing. A kind of
//     source this version cannot check is reported as
//     [OutdatedUnknown]. Update checks every skill first (trust as Add
//     checks it, with a changed signer refused as a
//     [*SignerChangedError]; a skill the audit refuses fails the
//     update; rule 7: an edited canonical copy or copy is
//     [ErrModified] unless UpdateRequest.Force), then makes the
//     changes as Add does (rules 2 and 6), and reports per skill the
//     pin move and the files added, removed and changed against the
//     recorded content (the skill cache's tree of the recorded digest,
//     else the installed canonical copy). A version range moves within
//     its range; with UpdateRequest.Latest it moves to the highest
//     version tag, and the lock file records the source with the range
//     ^MAJOR.MINOR.PATCH of that tag (source.Versioned.WithRange), never
//     back: a range naming a pre-release that picks one above every
//     release stays within its range.
//     UpdateRequest.DryRun reports the same and changes nothing. A
//     skill its source no longer holds where the lock file says (its
//     folder removed, or its SKILL.md naming another skill) is reported
//     changed by Outdated, with the reason, and fails Update
//     ([ErrDrift]); new content that breaks only the specification
//     fails it ([ErrSpecification]) unless UpdateRequest.Lenient, and
//     the lock file then records the skill as lenient (rule 4).
//     UpdateRequest.Digests makes an Update install exactly the content
//     a dry run reported, failing with [ErrDrift] when a source moved
//     since; [Installer.Pinned] returns the recorded content of a skill
//     (or the new content a dry run left in the skill cache) without
//     changing anything, so that both can be compared first. The
//     same holds on macOS and Windows.
//  15. Web indexes: a site's Agent Skills discovery index (package
//     source, rule 20, names one; package source/webindex, rules 1 to 4,
//     says what it holds; a query, a fragment or user information in one
//     is refused with [ErrInvalidSource]). Add reads the index (at most
//     webindex.MaxIndexSize bytes: the download stops one byte past the
//     limit and fails with [ErrInvalidSource]) and every usable skill it lists
//     (AddRequest.Skills chooses among them by name; [Installer.Contents]
//     lists them): each artifact is downloaded, bounded as rule 10 says,
//     and its SHA-256 compared with the index's digest before anything
//     is read from it. A skill-md artifact is its SKILL.md (at most the
//     cache's MaxFileSize); an archive is extracted under rule 3's
//     rules and limits (one that breaks them fails the whole source)
//     and must hold the skill at its root, where the format puts it (a
//     SKILL.md below is one of the skill's files). An entry the index
//     writes wrongly, a download whose digest differs (the reason names
//     both), an archive without a root SKILL.md, and a skill whose
//     SKILL.md names another skill than the index does are skipped as
//     rule 4 says; a digest that differs is an integrity failure, so Add
//     then fails with [source.ErrIntegrity] after installing the others (rule
//     8), and a sync or an update of a recorded skill fails with it,
//     changing nothing. The lock file records per skill the index's URL as
//     its source, its name as its subpath and the index's digest as its
//     pin, and the skill is kept in the skill cache: a sync needs no
//     network while the cache holds it. Otherwise a sync reads the index
//     again, once for each pin, and a skill the index no longer lists,
//     or lists with another digest, fails it with [ErrDrift] naming
//     both digests; Add moves the pin to what the index names. For the
//     policy (Trust rule 1) a web index is a URL source at the index's
//     URL, pinned as recorded, and each artifact's URL, which may be on
//     another host, is checked as a pinned URL source before it is
//     downloaded (one whose path has a '..' segment, even
//     percent-encoded, is refused), as are the redirects of every download. With
//     AddRequest.Skills, Add downloads only the skills it names; Contents
//     downloads every one, so that what Add would skip shows. Outdated and Update (rule 14) read the index
//     once per source: a skill whose digest it still names is current;
//     one it names with another digest is downloaded and compared, and
//     Update moves its pin there; one it no longer lists is reported
//     changed by Outdated and fails Update ([ErrInvalidSource]). The
//     same holds on macOS and Windows.
//  16. Folders are not read again when their stats say they have not
//     changed. The content digest of a canonical copy, a copy, or a
//     skill's folder in a folder source (as List, Sync, Add, Update,
//     Remove and [Installer.CheckTrust] without Rehash compare it with
//     the lock file) comes from a stat record of the scope kept in the
//     skill cache ([WithCache]), beside the cache's records of source
//     folders (rule 11 of package skill) and collected with them: for
//     each folder the digest a read found and, taken before that read,
//     the type and permissions, size, modification time, change time,
//     device and inode of the folder, of every folder in it and of every
//     regular file (each file opened without following a link and
//     checked to be the file stamped). A folder whose every stamp is
//     what a stat finds now is not read; one whose stamp differs, or
//     whose recorded change time lies within 50 ms (2 s for whole-second
//     times) of when its stamps were taken, or later (racy), is read and
//     hashed whole, and recorded again. What the record trusts is the
//     change time as the kernel keeps it: a write(2), a truncation, a
//     chmod or a rename into a folder sets it, and no user can set it
//     back, so a file edited to the same size with its times restored is
//     read again, and a file replaced by a rename has a new inode. Its
//     limit, which git's index shares: a write through a shared memory
//     mapping (mmap) to a page already dirty moves no time, so a file
//     changed that way keeps its stats until the page is written back.
//     That is why [Installer.Verify], the explicit integrity check, and
//     CheckTrust with Rehash trust no record and read every canonical
//     copy; Verify records what it read, so the CheckTrust that
//     agentskills verify runs after it, without Rehash, judges the
//     digests Verify found and reads no copy again. The record is
//     trusted only on local file systems the kernel keeps change times
//     on: on Linux ext2/3/4, XFS, Btrfs, F2FS, ZFS, tmpfs and overlayfs
//     (the root of most containers, whose stats are its layers'), on
//     macOS APFS and HFS+; on a network or FUSE file system (NFS, CIFS,
//     sshfs), whose change times a server gives and a user may set, on
//     another system, and for an entry on another device than its
//     folder, every folder is read. A folder
//     holding a link or more entries than the cache's
//     MaxArchiveEntries is not recorded (read every time); so is a
//     source skill holding a link, which is read as the file it points
//     to. When the record vouches for a source skill with the content
//     the lock file records, within the cache's limits, a Sync neither
//     hashes nor stages it; a skill that a Sync found usable as it is,
//     with nothing of the specification broken, is not checked again
//     (rule 4) while its folder is unchanged and within the cache's
//     limits; and when the record so
//     vouches for every skill the lock file records from a folder
//     source, and the folders above each in the source are folders,
//     not links, a Sync does not search the source (rule 12) either:
//     nothing of it is read. A verdict of usable holds for the checks
//     that made it: the record is kept under a version of those checks
//     (skillmd's reading of SKILL.md and this package's checks of its
//     name), which a test holds to a digest of their code, so a release
//     that changes them starts a new record and checks every skill
//     again; a version, not the build, so that a release that leaves
//     the checks alone keeps the record. The record is
//     best effort: one that cannot be read, was cut short or damaged (a
//     SHA-256 of its lines ends it), is malformed, was written on another
//     boot (it holds the boot's id: a crash may keep a file's size and
//     inode but not its bytes, package bootid's rule 1), or lists an entry
//     the folder does not hold is ignored, and the folders are read and
//     recorded again. On Windows, which gives no change time users
//     cannot set back, no record is kept and every folder is read.
//  17. Requirements between skills: a skill declares the skills it needs
//     in its SKILL.md's metadata.requires (sources as Add takes them,
//     with a version range where they name one, separated by white
//     space: "github:acme/skills/changelog@^1
//     oci://ghcr.io/acme/semver:^2"; skillmd's rules for the list), and
//     an OCI artifact also in ToolHive's dev.toolhive.skills.requires
//     annotation (package source/oci, rule 11), each HOST/REPO:TAG read
//     as oci://HOST/REPO:TAG, after the SKILL.md's and each once. Add
//     installs the closure: breadth first from the skills named, every
//     requirement is resolved and pinned as a source given to Add is
//     (rule 13), each checked by the policy before it is read (# Trust,
//     rule 1), its signatures verified and its skill audited as any
//     (# Trust, rules 2 to 5); a refusal of a requirement fails the
//     request naming the chain that asked for it ("app -> release ->
//     github:evil/x: ..."), and with requirements in it the audit's
//     refusal of any skill fails the request, changing nothing, as
//     AddRequest.Strict does: a skill is never installed without what it
//     requires. All of it is resolved before anything changes. How a
//     requirement is read: a bare OWNER/REPO is a GitHub repository
//     (never a folder of the working folder); a path (./x, ../x, /x) is
//     relative to the folder of the requiring skill when that skill is
//     read from a folder on this machine, and refused with
//     [ErrInvalidSource] when it comes from anything else (a published
//     source, a URL or an archive), as it would name a folder of
//     whoever installs it, and so is a git+file:// repository (the
//     scheme in any case) and a URL whose host is a loopback address
//     (localhost, 127.0.0.0/8, ::1) unless the requiring skill comes
//     from a folder or such a repository here; a requirement whose URL
//     holds credentials (user information a lock file would not record)
//     is refused with [ErrInvalidSource], as a requirement is published
//     text (credentials come from git's helpers, an SSH key or the
//     environment), and recorded without them with
//     AddRequest.NoRequires; its source must hold exactly one skill that
//     can be installed (rule 4; AddRequest.Lenient holds for it), else
//     [ErrInvalidSource] lists what it holds. One version of a skill per
//     name: two requirements (or a requirement and a source named) that
//     give a skill of one name are answered by one skill when they read
//     the same source at the same pin; when both name a version range of
//     one repository, by the highest version both admit, as the SDK's
//     merge of requirements picks (the source read with both ranges as
//     one, "^1,~1.4", recorded so; with an alternative, ||, in either,
//     the lower of the two versions each picks when the other range
//     admits it), the closure then resolved again with it; anything
//     else (two sources, or ranges no version answers) fails with
//     [ErrRequirements], naming
//     both chains and what each picks ("app -> release -> changelog
//     (github:acme/skills/changelog@^1, which picks v1.9.0) and app ->
//     notes -> changelog (...@^2, which picks v2.0.0)"). A requirement
//     that gives a skill installed from another source fails with
//     [ErrConflict], naming the chain and the recorded source. A cycle
//     (a -> b -> c -> a, a skill requiring itself too) fails with
//     [ErrRequirements] naming it. A requirement whose source, as the
//     lock file records sources, is the recorded source of exactly one
//     installed skill, the source's own (not a folder in it), is
//     answered by it without reading the source; its own requirements
//     are those its entry records. A requirement read that gives a skill
//     installed from the same source at a pin it names, or at a version
//     its range admits, is answered by it unchanged. Otherwise a skill
//     installed from the same source moves only when it is a
//     dependency and the new version answers what every installed skill
//     that stays records it requires (a range admits it); else the
//     request fails with [ErrRequirements] naming the installed chain
//     ("z -> changelog (...#ref=^1, installed v1.9.0)"): a requirement
//     never moves a skill the user named. The closure holds at
//     most [MaxRequired] (256) skills, the named ones among them, and a
//     chain from a named skill at most [MaxRequireDepth] (32)
//     requirements; past either the request fails with
//     [ErrInvalidSource], naming the chain. The lock file records per
//     skill its requirements as written, each with the name of the
//     installed skill that answers it ("requires"), the installed
//     skills whose requirements it answers ("required_by", derived from
//     the others' "requires"), and, for a skill installed only because
//     others require it, "dependency": true; a skill an Add names loses
//     the mark. The canonical copy's Change of a skill others of the
//     request require names them (Change.RequiredBy). With
//     AddRequest.NoRequires only the skills named are installed, each
//     requirement recorded with the installed skill that answers it as
//     above, or none; a cycle among them is refused all the same. The
//     skills are installed each after those it requires, so a run
//     stopped between two leaves none without what it requires.
//     [Installer.Update] re-resolves the requirements of
//     every skill it moves: a new version's requirements are installed
//     as an Add's (and recorded), those answered by installed skills
//     are kept as they are, and requirements are updated as any skill
//     when Update names them. The same holds on macOS and Windows (a
//     requirement's path is slash-separated or the system's).
//  18. Requirements once installed (rule 17) are between the skills of a
//     scope, not per agent.
//     Remove refuses, before changing anything, a skill that goes (from
//     its last agent) while installed skills that stay require it, with
//     [ErrRequired] naming them; RemoveRequest.Required removes it
//     anyway, its canonical copy's change naming them
//     (Change.RequiredBy), and their requirements are then not
//     answered. A removal
//     also takes every dependency that the skills it removes needed and
//     nothing left needs: a dependency stays exactly while a skill not
//     marked as one still needs it through a chain of requirements, so
//     a chain of dependencies goes whole, one two skills share stays
//     with the one that stays, and dependencies that only require each
//     other go too; each is removed for every agent it is installed
//     for, held to rule 7 like the skills named, and reported with the
//     Reason "no longer required"; they go first, each before the
//     dependencies that require it, and the skills named last, so a run
//     stopped between two is finished by naming them again. A
//     dependency that nothing needed
//     before the removal is left as it is. [Installer.Verify] reports,
//     after what differs from the lock file, each requirement that no
//     installed skill answers (none was installed for it, or the one
//     that was is gone) as a [Status] in [StateUnmet] naming the
//     requirement; [Installer.List] reports for each skill installed
//     which skills require it and whether it is a dependency.
//     [Installer.Outdated] checks a dependency as it checks every other
//     skill the lock file records.
//
// # Trust
//
// With [WithTrust], Add, Sync and [Installer.CheckTrust] check who
// published a skill and what it does, with the trust engine the SDK uses
// too (a trust.Checker, whose rules package trust's doc states, with the
// policy, the audit rules it lets through, trust.AllowRisks, and the
// signers the user requires of OCI sources, trust.RequireSigners; the
// policy, signatures and audit are packages policy, signature and
// audit). What this package adds is the lock file's ([Trust]): the
// signers it records and trusts on first use (rule 4), and the risks it
// records as accepted (rule 5). Without it nothing of this is checked,
// and the signers a lock file records are kept as they are. Errors wrap
// trust.ErrRefused (and the
// error of the package that refused: policy.ErrDenied,
// source.ErrUnsigned, source.ErrUntrusted or source.ErrInvalidSignature,
// source.ErrCommitSignature). A refusal by the trust checker (a source
// the policy refuses, a signature a rule of the policy or
// trust.RequireSigners requires, a commit the policy requires signed) is its
// *trust.RefusedError, which matches policy.ErrDenied too, its
// refusal's Reason naming the source, the pin and the signers required.
// Every other refusal is a *trust.RefusedError too, whose Reason alone
// says why (it matches trust.ErrRefused and not policy.ErrDenied): a
// source whose location cannot be made canonical or that a GitHub host
// other than the recorded one serves (rule 1), signers required of a
// source that is not OCI (rule 2), content that the signer the lock file
// records did not sign (rule 4), a skill a Sync or Update refuses by its
// audit (rule 5); except a changed signer, the lock file's trust on
// first use, which is a [*SignerChangedError] (rule 4).
// Per source, in this order:
//
//  1. Policy first: the source, as [Installer.Origin] sees it
//     (kind, canonical location, pinned), is checked with policy.Check
//     before anything is read or downloaded. Add checks every source of
//     the request first: one refused source fails the request and
//     nothing changes; Sync checks each recorded source at its pin. The
//     location is the canonical one of package source (its rules 9 to
//     13: host in lower case and IDNA's ASCII, the default port
//     dropped, a port read as a number, a git path cleaned, file://localhost
//     as file://), so every rule of the policy applies to every spelling
//     of its sources; a source whose location cannot be made canonical
//     (a port out of range or not decimal, a host that is no host name)
//     is refused with trust.ErrRefused whatever the policy says, never
//     matched as written. A git or URL source whose path has a "." or
//     ".." segment (also percent-encoded, as %2e%2e or ..%2f) is refused
//     with [ErrInvalidSource], so a pattern such as host/allowed/**
//     cannot be escaped by host/allowed/../evil; a local path is cleaned
//     first. A local folder, and a git file URL's repository, is at its
//     real path, links resolved (package source, rule 15), as a local or
//     git:/... pattern is: git+file:///proc/self/root/srv/repos/x, or
//     a path through any link to the folder, is /srv/repos/x, which a
//     rule for git:/srv/repos/* matches. A GitHub source named without a host (github:OWNER/REPO,
//     OWNER/REPO) read through another API than github.com's
//     ($GITHUB_API_URL) is that host's repository, kind "git" at
//     HOST/OWNER/REPO (package github, rule 16): github:OWNER/* does not
//     allow it, github:HOST/OWNER/* does; the lock file records the host
//     ("host"), and Sync and CheckTrust refuse it, asking nothing, where
//     GITHUB_API_URL names another.
//     Each redirect of a URL download is checked the same way, as a URL
//     source (pinned when the download is), before it is followed; a
//     refusal names the hop. A git source over http(s) follows a
//     redirect only within its host (package source/git, rule 6): one to
//     another host is refused, with or without a policy, before anything
//     is asked there, and one within the host is checked as a git source
//     at its new address before git asks it (a new address that a
//     signers or commits rule names, and the source's own does not, is
//     refused: that rule would go unchecked); either refusal wraps
//     trust.ErrRefused and source.ErrRedirected and names where the server
//     pointed.
//  2. Signatures before content: an OCI source is verified
//     (oci.Verify, against the manifest digest of the resolved pin)
//     after its reference is resolved and before its layer is
//     downloaded, when trust.RequireSigners (one list: a signature by any
//     of them) or the policy's signers rules (every rule satisfied)
//     require a signer,
//     or when the lock file records one (rule 4): the trust checker
//     verifies them all (trust.Checker.CheckSource and
//     trust.SourceCheck.VerifySignatures, the policy's rules with
//     trust.RequireSigners, and the recorded signer as a rule of this
//     package's own), and this package records the signer of the first and
//     compares it with the recorded one. Requirements for a
//     source that is not OCI are refused, as nothing could satisfy
//     them: trust.RequireSigners given to Add for a GitHub, git, URL or local
//     source (a policy names signers for oci sources only: rule 6 of
//     package policy); a Sync applies trust.RequireSigners to its OCI sources
//     only.
//  3. Signed commits: when a commits rule of the policy requires it for a git
//     or GitHub source, its pinned commit is checked
//     (source.CommitVerifier) with the allowed-signers file or keyring
//     the policy names, after the pin is resolved and before the skills
//     are extracted; the lock file records who signed ("commit_signer").
//     The skill cache then keeps this machine's verdict on each skill
//     read there: its content digest, read from that source (its kind
//     and canonical location) at that pin, verified with the policy's
//     allowed-signers files and keyrings as they read then (their
//     digest), and who signed (a small file under the cache's .pins
//     folder, written unflushed: it names its own source, pin, digest
//     and keys, and is sealed with a SHA-256 of its body, so after a
//     crash (which may leave it cut short, with zeros or with blocks of
//     the file it replaced) it is whole, missing, or not used, and the
//     last two cost a check with the network; no add flushes a verdict
//     per skill). A sync takes a skill from the skill cache,
//     without the network, only when the cache holds such a verdict for exactly the
//     recorded source, pin and digest under the policy's keys as they
//     read now; otherwise it checks the commit again, with the
//     repository. A lock file's pin, digest and "commit_signer" are
//     never trusted alone: a cloned lock file may name any of them.
//  4. Trust on first use: the lock file records, per skill, the signer
//     of the first list verified ("signer": the key ID and the public
//     key's PEM, or the certificate identity and issuer, and for a
//     keyless signer verified against a trusted root other than
//     Sigstore's public-good one, that root: "trusted_root": {"digest":
//     its SHA-256, "path": its file, signature.Requirement.TrustedRootFile,
//     relative to the scope's root when inside it (a root a project's
//     policy names in .agents is .agents/FILE), else absolute}). Recording
//     the public key lets a later Sync or CheckTrust verify again without
//     the user naming the key, offline from the bundle oci.Verify keeps
//     in the skill cache; a keyless signer is verified again, when no
//     requirement is given, against the trusted root recorded, read from
//     its file (a relative path that leads out of the scope's root is
//     [ErrInvalidLock]; a file that is gone or whose digest changed is
//     refused, naming it and what to do), else against Sigstore's
//     public-good root, which needs the network once a day. A Sync,
//     and an Add of a source already recorded, refuse content signed by
//     anyone other than the recorded signer with a [*SignerChangedError]
//     naming both, unless Trust.AcceptSigners names the new one exactly
//     (its key ID, or its String); the new signer is then recorded, and
//     the canonical copy's Change names both (Change.Signer and
//     Change.PreviousSigner), also when the content is unchanged (the
//     same pin signed again), so that accepting a signer is never
//     reported as no change. To verify a new key its public key must be
//     given (trust.RequireSigners). The signature verified is the pin's: a
//     sync takes a skill of a source with a signer from the skill cache
//     only when the cache holds this machine's verdict (rule 3) that
//     the recorded digest is what it read from that source at that pin,
//     else it reads the source again at the pin.
//  5. The audit: every skill's tree is audited (audit.Tree); a skill
//     read from an archive (a file, a URL, a published source) is
//     audited as the extraction writes its files (audit.Scanner, the
//     same report), and its extracted tree is not read again. A
//     finding at or above policy.FailOn (default high) that the policy
//     does not accept (policy.Accepted) and whose rule
//     trust.AllowRisks does not name refuses the skill; the reason
//     names each finding's rule, severity, file and line, as the audit
//     keeps them (within its caps: at most 100 of a rule and 1,000 of a
//     skill), and counts the rest ("and 31,204 more", trust.Refusal's
//     Omitted). A tree's report is kept in the skill cache
//     (package trust (# Kept reports), rules 1 to 5; an operation ends
//     by saving the checker's index of the empty ones, rule 7), by the content
//     digest this package computes of the very tree it audits (a
//     folder source's skill as Add stages it: staging hashes the copy it
//     makes, the report kept for that digest is read, and without one
//     the staged copy is audited, before anything is put in place, so
//     that the skill is read once; for an archive's skill, as its
//     extraction hashed the files it wrote; a skill a Sync or Update
//     reads, hashed before the audit or vouched for by the stat record
//     (rule 16); the skill cache's own tree of a recorded digest, which
//     the cache checked; an installed canonical copy as Verify hashed it)
//     and the audit rules' version, so that an Add,
//     Sync or Update of content audited before, and CheckTrust, read the
//     report instead of auditing again; the digest a lock file names
//     never selects a report, as the lock file may come from elsewhere.
//     What is installed is what was audited: staging hashes the copy it
//     makes, and a source audited before it was staged whose copy's
//     digest is not the digest audited (a local folder that a Sync or
//     Update hashed, changed between the hash and the copy) fails with
//     [ErrDrift], naming the skill and both digests, and changes
//     nothing; the command run again audits what the source holds then.
//     The threshold, the accepted findings, trust.AllowRisks and the
//     lock file's record below apply to a kept report on every call.
//     The refusals of one request list at most 1,000 findings in all;
//     past that, each lists its first and counts the others. The lock
//     file records the rules of trust.AllowRisks a skill needed (those
//     with findings that would refuse it) with the content digest audited
//     ("allowed_risks": {"rules": [...], "digest": ...}, [RiskAllowance]),
//     and a later Add, Sync, Update or CheckTrust allows them again,
//     without trust.AllowRisks, for that content only: other content with
//     the same findings is refused, and content that no longer needs
//     them drops the record. [Status] (List) and
//     [Installer.RecordedRisks] show the record. A lock file without it
//     allows nothing. The record is the project's word, not the user's
//     (policy rule 16): it lifts what only the default threshold or a
//     project's policy refuses, for that content, whoever wrote it, but
//     not a finding the user's own policy file refuses; that takes the
//     file's audit.accept, or trust.AllowRisks. Review the
//     "allowed_risks" of a lock file you did not write (`agentskills
//     verify` lists them, and `agentskills sync` names each skill it puts
//     in place under one) as you would the flag.
//  6. Refusals: Add skips a refused skill, reporting a Change with
//     [ActionSkipped] and the reason, installs the others, and then
//     fails with the one refusal error of package trust, a
//     *trust.RefusedError whose Refusals list the refusals (it matches
//     trust.ErrRefused, and not policy.ErrDenied, as its refusals say why in
//     words alone); it changes
//     nothing when every skill is refused or, with AddRequest.Strict, any
//     is. Sync refuses the whole sync, changing nothing (it skips
//     nothing, rule 4). A refused source or skill is never written
//     anywhere: not in the canonical folder, not in an agent's folder,
//     not in the lock file, not in the skill cache.
//  7. [Installer.CheckTrust] (`agentskills verify`) checks what is
//     recorded, changing nothing: each source against today's policy,
//     each recorded signer again, and each installed canonical copy
//     against the audit threshold. It takes each canonical copy's
//     content digest as rule 16 says (a copy that a Verify just read
//     and that has not changed since is not read again; one changed in
//     between is, and is judged by its content now), and reads the
//     report kept for that digest (rule 5).
//  8. The same holds on macOS and Windows: nothing here depends on the
//     operating system (a signed commit needs git on the PATH, as every
//     git source does).
//
// # Policies that extend others
//
// A policy file may extend a file its team publishes (package policy,
// rules 18 to 22). [Installer.LoadPolicy] reads the user's and the
// project's policy with what each extends:
//
//  1. The file an extends key names is fetched as a source of Add is
//     (rule 13): a git source at the commit its ref names (path= may
//     name the file), a GitHub one, an oci:// artifact at its manifest
//     digest (the file agentskills.policy.yaml at its root), an https://
//     URL that names its content's #sha256= (one without is refused: the
//     file could change under every policy that extends it).
//  2. Its pin (the commit, digest or #sha256=) and the file's own digest
//     are recorded under "policy": {"extends": [...]} in the lock file
//     beside the policy that extends it: the project's agentskills.lock
//     for the project's chain, the user's ~/.agents/agentskills.lock
//     for the user's, written under the scope's file lock. The source is
//     recorded, and entries matched, without a URL's credentials
//     (its user information). A recorded pin must have the form of
//     the source's pins (a commit in hex, a manifest digest, the URL's
//     own #sha256=) and the digest sha256:HEX; an entry that does not
//     is refused with [ErrInvalidLock], to be removed. A recorded
//     pin is used from then on, never the moving reference; to move it,
//     change the extends text or remove the entry. The pin of a file the
//     chain no longer extends is removed when the policy is next read
//     (not by a frozen, offline or read-only run). The file is kept in
//     the skill cache's policies folder by its digest, so a later load
//     reads it offline; a kept copy whose content is not its digest is
//     fetched again. Content fetched at a recorded pin whose digest is
//     not the one recorded is refused with source.ErrIntegrity, as is a
//     URL whose content is not its #sha256=. With
//     PolicyRequest.Frozen (sync --frozen) a file the lock file does not
//     pin is refused with [ErrDrift]: a frozen run records nothing; a
//     pinned file the cache lacks is fetched at its pin, as a frozen
//     sync fetches a skill. PolicyRequest.Offline (verify) is Frozen
//     reading no network: a pinned file the cache lacks is refused with
//     [ErrSourceUnavailable]. PolicyRequest.ReadOnly (the commands that
//     only read the policy: policy check and export, run) writes no lock
//     file: a file not pinned is fetched at what its source names now,
//     its pin not recorded. A URL's download stops at policy.MaxFileSize.
//  3. Before it is fetched the source is checked as a source of Add is
//     (# Trust, rules 1 to 3), against the user's word (package policy,
//     rule 19): for a file of the user's chain, the user's file and the
//     files of its chain loaded before it; for a file of the project's
//     chain, the user's whole chain, loaded first. So a project cloned
//     makes the program fetch only what the user's chain allows. Each
//     redirect of the fetch (of a download, of a git repository) is
//     checked against the same rules, as an add's are. Checked: its
//     sources rules, the signatures its signers rules require
//     of an oci source (verified before the content is read), the
//     signed commit its commits rules require of a git or GitHub one. A
//     refusal is a *trust.RefusedError naming the extends line. A kept
//     copy is used without verifying again: a signers rule added later
//     applies when the pin changes or the cache entry is removed.
//
// # Required skills
//
// A policy file's required entries (package policy, rules 23 to 26)
// name skills every project under it must have. The policy is the trust
// engine's ([WithTrust]); without one nothing is required. They are
// required of a project (the Project scope), whichever file names them:
// the user's scope (User), which every project's agents read beside the
// project's own folders, is not a project, and nothing is required
// there.
//
//  1. A requirement is met when the lock file records a skill from its
//     source: the same repository (source.Remote.Repository, whatever
//     reference either names), at the folder the requirement's source
//     names or below (a skill's folder is counted from the repository's
//     root, whatever folder the installed source named), each such
//     skill at a version the requirement admits (policy.Requirement.Admits),
//     and recorded for every agent the requirement names. The version is
//     the tag a version range picked, which the lock file records
//     ("version") when Add, Update or Sync reads the source; else the
//     version the installed source names as its reference
//     (github:acme/x@v1.2.3); else it is not known (a branch, a commit,
//     a skill recorded before versions were), and only a requirement
//     without a reference is met. A requirement without agents is met
//     by the skill installed for any agent (package policy, rule 25). [Installer.PolicyRequired] reports each
//     requirement ([PolicyRequirement]: met, missing or out-of-range, with
//     what to run), changing nothing; `agentskills verify` fails naming
//     each one not met.
//  2. Sync first resolves each requirement the lock file does not meet,
//     together with every entry for the same repository and folder (a
//     version all their references admit: ^1 and <1.1 pick v1.0.0);
//     one that admits no version fails the sync with a
//     [*PolicyRequiredError] naming the entries, before anything
//     changes, so a failing sync changes nothing and fails alike each
//     time. It then does what the lock file records, then adds the source of
//     each requirement not met, one at a time and in the files' order
//     (the user's first), as Add adds it: every skill there, checked
//     against the trust rules, recorded in the lock file with the
//     requirement's source as written (an installed skill at another
//     reference of the same repository moves there, as rule 13 allows).
//     It adds for the agents the requirement names; else those the
//     skill is recorded for; else every agent the lock file records;
//     else those Add chooses. A requirement still not met after each
//     was added once (an entry's add met another's range but not its
//     own, or failed) fails the sync with a [*PolicyRequiredError], which wraps
//     [ErrPolicyRequired]. A scope without a lock file gets one. A frozen
//     sync installs only what the lock file records: it fails with a
//     [*PolicyRequiredError], before anything changes, when a requirement is
//     not met. The canonical copy's change of each skill a sync adds for
//     the policy says why (Change.Reason: "required by the policy:
//     required[N] (FILE:LINE)", and ", the project's file" when the
//     project's policy asks): a project's file is part of what was
//     cloned, and the command line prints it.
//  3. Remove refuses, with [ErrPolicyRequired] and before anything changes, to
//     take from the lock file a skill installed from a required source,
//     or to take it from an agent the requirement names; RemoveRequest.Force
//     does not lift it (force is for edits on disk): only a change of
//     the policy file does. The error names the entry, its file and
//     line, and its reason.
//  4. [Installer.List] marks each installed skill from a required source
//     with the entry that requires it (Status.RequiredByPolicy).
//  5. A version the lock file records that the entry's own source
//     refuses (outside the range it names, or not the version it names)
//     was written by hand, not picked when the skill was read: rule 1
//     ignores it, and Sync, reading the skill again at its pin, drops it
//     rather than recording it again.
//  6. Removing a skill keeps a dependency of it (rule 18) the policy
//     requires, when no one named it: it stays, for its agents, no
//     longer marked a dependency (installed directly from then on), and
//     so does every dependency it needs in turn; the removal goes ahead.
//  7. A project's policy file (and a file it extends) may not require a
//     skill from this machine or next to it: a file URL (git+file:, in
//     any case), or a git or oci host that is loopback (localhost,
//     127.0.0.0/8, ::1) or link-local (169.254.0.0/16, fe80::/10). The
//     file is part of what was cloned, and a sync would copy what it
//     names into the project. [Installer.PolicyRequired], Sync, Remove
//     and List fail with policy.ErrInvalid naming the entry's line. The
//     user's own policy file may name one: it is the user's word about
//     the user's machine (a mirror on a shared drive).
//  8. Update with UpdateRequest.Latest may move a required skill past
//     its range (to the newest tag): the update is the user's explicit
//     request and goes ahead; the command line warns, verify then fails
//     naming the entry, and the next sync moves the skill back within
//     its range.
//  9. Under sources.pinned: true (package policy, rule 4) Sync adds a
//     required skill at the pin its reference resolves to (the source's
//     reference replaced by the commit or digest) and records the tag
//     that pin is as its version: the highest the range admits, the
//     version the entry names, or, when it names none, the newest
//     version tag if that is the pin. A skill added by hand at a commit
//     has no recorded version (the pin names no tag, and looking the tags
//     up on each verify would need the network), so it meets only a
//     requirement without a reference; the next sync adds the required
//     one at its pin, with its version. A version recorded beside a
//     commit cannot be checked against the source (rule 5 checks what a
//     range or version names).
//  10. A requirement between skills (rule 17) never takes a skill from a
//     required source out of the entry's range: an Add, Sync or Update
//     whose closure would install or move a dependency (a skill no one
//     named) from that source to a version the entry does not admit
//     fails with [ErrRequirements], naming the entry (FILE:LINE), and
//     changes nothing. A skill the user names is the user's word (rule 8).
//
// # Importing from other installers
//
// [Installer.Import] carries over the skills that two other installers
// recorded, so that a project (or a user's home) moves to this package's
// lock file with one call. What they write, as their sources say (the npm
// package skills 1.7.4, dist/cli.mjs; cli/cli, internal/skills/frontmatter,
// internal/skills/installer and internal/skills/lockfile):
//
//  1. The npm skills tool's project lock, skills-lock.json at the
//     project's root: {"version": 1, "skills": {NAME: ENTRY}}, names
//     sorted. ENTRY has "source" (OWNER/REPO for GitHub, the clone URL
//     for git and GitLab, a folder relative to the project, ./x or ../x,
//     for a local source, an npm package name, or a web index's host),
//     "sourceType" (github, gitlab, git, local, well-known,
//     node_modules), "sourceUrl" (git and GitLab: the clone URL;
//     well-known: the index's URL), "ref" (the branch or tag typed, if
//     any: the tool records no commit), "skillPath" (the SKILL.md inside
//     the repository, skills/x/SKILL.md; absent for local sources) and
//     "computedHash" (SHA-256 over the installed files' paths and bytes).
//     The tool reads it only when "version" is a number of at least 1.
//  2. Its global lock, $XDG_STATE_HOME/skills/.skill-lock.json, else
//     ~/.agents/.skill-lock.json: {"version": 3, "skills": {...},
//     "dismissed": {...}}; ENTRY has "source", "sourceType", "sourceUrl"
//     (https://github.com/OWNER/REPO.git for GitHub, the folder for a
//     local source, each skill's own URL for well-known, whose index is
//     "sourceBaseUrl"), "ref", "skillPath", "skillFolderHash" (for
//     GitHub the skill folder's git tree SHA), "installedAt",
//     "updatedAt" and "pluginName". The tool ignores a lock whose
//     version is below 3. The GitHub CLI's `gh skill install` writes
//     entries of the same form into the same file (~/.agents only, with
//     sourceType "github", sourceUrl https://HOST/OWNER/REPO.git, and
//     "pinnedRef", the ref given to --pin).
//  3. `gh skill install` also rewrites every SKILL.md it installs: its
//     front matter's "metadata" map gets "github-repo"
//     (https://HOST/OWNER/REPO), "github-ref" (refs/heads/BRANCH or
//     refs/tags/TAG), "github-tree-sha", "github-path" (the skill's
//     folder in the repository) and, with --pin, "github-pinned"; a skill
//     installed from a local folder gets "local-path" (the folder,
//     absolute) instead. The rest of the front matter is written again
//     by a YAML encoder, keys sorted.
//
// How they are read:
//
//  1. With [ImportNPM] the scope's npm lock is read (the project lock in
//     a project, the global lock in the user's scope), with [ImportGH]
//     the SKILL.md files in every known agent's folders of the scope (at
//     most 10,000 entries each), with [ImportAuto] (the default) both; in
//     the user's scope the global lock's entries are read by either, as
//     both tools write it. A file is read only when it is a regular file
//     of at most 16 MiB (a SKILL.md: 1 MiB); a lock that is not JSON of
//     that form fails the import with [ErrInvalidLock], naming it. A
//     skill of one name recorded twice is taken from the first record in
//     that order; the others are listed as left out.
//  2. Each record becomes one of this package's sources (rule 13):
//     GitHub github:OWNER/REPO[/FOLDER][@REF], where FOLDER is the
//     folder of skillPath (or github-path) and REF is pinnedRef,
//     github-pinned, else ref (github-ref without refs/heads/ or
//     refs/tags/); a GitHub host other than github.com, GitLab and git
//     become git+URL#ref=REF&path=FOLDER (an scp-like git@HOST:PATH as
//     git+ssh://git@HOST/PATH); a local source the folder it names (the
//     project lock's relative to the project); node_modules the folder
//     node_modules/PACKAGE/FOLDER of the project; well-known the index's
//     URL. Anything else is left out with why: an unknown source type, a
//     name that is not one folder name, a path with a ".." element or
//     that is absolute, a URL of another scheme. In a project, a record
//     is part of what was cloned, so a folder it names (a local source
//     of skills-lock.json, relative or absolute; a node_modules package;
//     gh's local-path; the repository of a git, GitLab or GitHub entry
//     whose URL is file:///PATH) must be inside the project once every
//     link in its path is followed: one that is outside
//     (../../.claude/skills, an absolute path elsewhere, a link inside
//     the project leading out) is left out with a reason naming it, and
//     the folder is added as the path it really is. The user's global
//     lock may name any absolute folder or file: URL.
//  3. The skills are then added as [Installer.Add] adds them, by name,
//     from their source, for the agents whose folder in the scope already
//     holds an entry of that name (none found: the agents Add chooses),
//     one Add per source and set of agents; when that Add fails, each of
//     its skills is added alone, so one skill cannot hold back the
//     others. Every rule of Add holds: the reference is resolved to a pin
//     by the source, the content is read and hashed, and a folder or link
//     already there is adopted only when it holds exactly that content
//     (rule 1). A skill whose installed content differs from its source
//     at the pin (edited, or from another commit) is left out with Add's
//     reason ([ErrConflict], naming the folder), unless rule 5 takes it
//     over, and nothing of it is changed. A skill that breaks only the
//     Agent Skills specification (a description over 1,024 characters,
//     which the other tools install) is added as AddRequest.Lenient adds
//     it, and recorded so (rule 4). The other tools' lock files are
//     never changed.
//  4. With ImportRequest.DryRun nothing is written: each source's
//     reference is resolved to a pin (a local folder checked to exist),
//     a copy gh installed is compared with its source as rule 5 says,
//     and the plan is reported. The trust policy (# Trust, rule 1) is
//     checked before any source is asked, by the dry run and by rule
//     5's comparison too: a source it refuses is left out with why.
//  5. Copies the other tools changed: gh rewrites the SKILL.md of every
//     skill it installs, and the npm tool leaves out files named
//     metadata.json and what is under .git, __pycache__ and
//     __pypackages__ (its copyDirectory), so their copies are not what
//     Add makes and are never adopted as they are. A skill gh installed,
//     and one whose Add fails with [ErrConflict], is compared with its
//     source at the pin its reference resolves to: when each of its
//     folders in place (not links; the canonical folder, the folders of
//     the agents it is added for, gh's folder) holds the same files with
//     the same bytes, except that files the npm tool leaves out may be
//     missing, links of the source are not compared (gh leaves them
//     out), and a SKILL.md may have gh's form (the same front matter as
//     YAML values once gh's keys are taken out of its metadata, and the
//     same body), each is moved to a new folder under
//     <root>/.agents/backups (Imported.Backups, as AddRequest.Force does
//     with an edited copy) and the skill is added in its place; when the
//     add fails, the copies are moved back. Any other difference leaves
//     the skill out, unchanged, naming the files that differ.
//
// The same holds on macOS and Windows: the records name folders with "/"
// (the npm tool writes them so), read as local paths of the system.
//
// # Agents
//
// The agent table ([Agents], and `agentskills agents`) holds every agent
// the npm skills tool knows (version 1.4.9: the agents table in its
// dist/cli.mjs), under the same IDs and with the folders that table
// gives, except where an agent's own documentation says more: for Claude
// Code, Codex, Cursor, GitHub Copilot, Gemini CLI, OpenCode, Goose and
// Windsurf it follows that documentation, which often lists several
// folders, and for Claude Code and Codex what their CLIs read, checked by
// a test against the real CLIs. The table is the one the drivers' shadow
// checks use (internal/agents). [Agent.Dir] is the folder skills are
// installed into for an agent, [Agent.Reads] every folder it reads them
// from; [Installer.List] reports a skill once for each agent that reads
// it.
//
//  1. An agent that reads the canonical folder (.agents/skills in a
//     project, ~/.agents/skills for the user) is installed there, with no
//     link, which would make it load the skill twice. By this rule alone
//     the table's folders differ from the npm tool's. Codex's user folder is
//     ~/.agents/skills, which Codex's documentation lists, whatever
//     CODEX_HOME says; Codex also reads $CODEX_HOME/skills (default
//     ~/.codex/skills), the npm table's, and .codex/skills in a project
//     besides .agents/skills. Goose's project folder is
//     .agents/skills: Goose's documentation lists .agents/skills,
//     .goose/skills (the npm table's) and .claude/skills. The user folder
//     of Cursor, Gemini CLI, GitHub Copilot, OpenCode and Goose is
//     ~/.agents/skills, which each one's documentation lists beside the
//     npm table's (~/.cursor/skills, ~/.gemini/skills, ~/.copilot/skills,
//     $XDG_CONFIG_HOME/opencode/skills, $XDG_CONFIG_HOME/goose/skills);
//     the npm tool itself installs their user skills into
//     ~/.agents/skills only. The user folder of "universal" (the
//     cross-agent folders themselves) is ~/.agents/skills, where the npm
//     tool installs it, though its table says ~/.config/agents/skills.
//  2. An agent that reads .agents/skills in a project but, by the npm
//     table, another folder for the user (Amp, Antigravity, Deep Agents,
//     Firebender, Kimi Code CLI, Replit) gets a link in that folder. The
//     npm tool puts user skills for them only in ~/.agents/skills.
//  3. Environment: CLAUDE_CONFIG_DIR moves Claude Code's user folder to
//     $CLAUDE_CONFIG_DIR/skills; XDG_CONFIG_HOME (default ~/.config) moves
//     Amp's and Replit's and the other folders Goose and OpenCode read;
//     CODEX_HOME moves the other folder Codex reads. Other folders are
//     fixed under the home folder: GitHub Copilot and OpenCode read
//     ~/.claude/skills, not Claude Code's moved folder.
//  4. Only folders inside the scope count: Codex also reads
//     /etc/codex/skills ([Agent.System]), and Claude Code and Codex their
//     project folders in the folders above the project up to the
//     repository root, which no scope installs into.
//  5. Agents that share a folder (Trae and Trae CN in a project; Amp,
//     Replit and Kimi Code CLI for the user while XDG_CONFIG_HOME is
//     unset) share one place in it, kept while any of them has the skill.
//  6. The agents an Add installs for when the request names none
//     ([Installer.ChooseAgents], which also says why): those the scope's
//     lock file records for its skills; when it records none, the agents
//     detected, by each agent's configuration folder as the npm tool
//     looks for it (for OpenClaw, also under its former names ~/.clawdbot
//     and ~/.moltbot, whose skills folder it then reads; for Codex, not
//     /etc/codex); when none is found, claude-code and codex.
//  7. IDs are exact. "*" stands for every agent ([LookupAgents]); unknown
//     IDs are refused all at once, each with the nearest known ID when
//     one is close.
//
// An Installer is safe for concurrent use; processes coordinate through
// the file lock.
package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source"
)

// checker reads a skill folder leniently, as agents do, and returns the
// skill's name, or the problems that make it unusable.
type checker func(dir string) (name string, problems []string, err error)

// Installer installs skills into one scope.
type Installer struct {
	config    // the options, with their defaults
	env       Env
	maxSearch int               // folders discovery may read in one source; 0: defaultMaxSearch
	clock     clock             // of progress reports; tests set a fake one
	staging   func(name string) // when set, called as staging opens each file of a skill; only tests set it
	viewed    *viewedLock       // the lock file as the read-only operations last read it
	stamps    *folderStamps     // the stat record of the folders it hashes (rule 16)
	auditing  func(name string) // when set, called as the audit opens each file of a tree; only tests set it
	// localRequired lets a project's policy require a skill from this
	// machine (git+file:, loopback); only tests set it, whose
	// repositories are local.
	localRequired bool
	hashing       func(name string)     // when set, called as the audit's digest (checkTree) opens each file of a tree; only tests set it
	stampable     func(dir string) bool // when set, stands for stampableFS; only tests set it
	// rereadAudit has an archive's skills audited by reading their
	// extracted trees, not as they are extracted: the way before
	// audit.Scanner, for benchmarks to compare; only they set it.
	rereadAudit bool
}

// New returns an Installer working in env.
func New(env Env, opts ...Option) *Installer {
	return &Installer{config: newConfig(opts), env: env, clock: realClock(), viewed: &viewedLock{}, stamps: &folderStamps{}}
}

// Root returns the scope's root folder.
func (in *Installer) Root() string { return in.env.Root(in.scope) }

func (in *Installer) canonicalRoot() string {
	return filepath.Join(in.Root(), filepath.FromSlash(CanonicalDir))
}

func (in *Installer) lockPath() string {
	return filepath.Join(in.Root(), ".agents", lockName)
}

// download fetches a URL source into a temporary file, checking the
// SHA-256 given as #sha256=HEX. It gives up when the server sends nothing
// for the download timeout: no connection, no response headers, or no
// bytes of the body (rule 10).
func (in *Installer) download(ctx context.Context, source string) (string, func(), error) {
	file, remove, _, err := in.downloadIf(ctx, source, validators{})
	return file, remove, err
}

// downloadIf is download that also returns the validators the server
// gave (ETag, Last-Modified) and, given those of an earlier download,
// asks the server whether the content changed since (If-None-Match,
// If-Modified-Since): an answer 304 Not Modified is errNotModified.
func (in *Installer) downloadIf(ctx context.Context, source string, since validators) (string, func(), validators, error) {
	return in.downloadAtMost(ctx, source, since, 0)
}

// downloadAtMost is downloadIf reading at most max bytes of the body,
// and one more to tell that it is larger, which fails the download with
// [ErrInvalidSource]; a max of 0 is the cache's MaxArchiveSize. A file
// with a smaller limit of its own (a web index) is read only that far:
// the server is not read to the archive limit for a refusal known at
// the first byte past it.
func (in *Installer) downloadAtMost(ctx context.Context, rawURL string, since validators, max int64) (string, func(), validators, error) {
	var got validators
	u, want, err := parseDownload(rawURL)
	if err != nil {
		return "", nil, got, err
	}
	shown := redact.URL(rawURL)
	ctx, w := startWatchdog(ctx, in.timeout)
	defer w.stop()
	unavailable := func(err error) error {
		if context.Cause(ctx) == w.stalled {
			return fmt.Errorf("%s: %w: download: %w", shown, ErrSourceUnavailable, w.stalled)
		}
		return fmt.Errorf("%s: %w: %s", shown, ErrSourceUnavailable, redactErr(err, rawURL))
	}
	client := in.http
	var refused error
	if in.trust != nil {
		client = in.policyRedirects(client, shown, want != "", &refused)
	}
	notModified := false
	client = recordValidators(client, &got, &notModified)
	rc, err := skill.ArchiveURL(u.String(), append(since.headers(), skill.WithArchiveHTTPClient(client))...)(ctx)
	if err != nil {
		if refused != nil {
			return "", nil, got, refused
		}
		if notModified {
			return "", nil, since, errNotModified
		}
		return "", nil, got, unavailable(err)
	}
	defer rc.Close()
	f, remove, err := createDownload(downloadName(u))
	if err != nil {
		return "", nil, got, err
	}
	var body io.Reader = w.reader(rc)
	if in.progress != nil {
		p := in.startDownload(ctx, shown)
		defer p.done()
		body = io.TeeReader(body, p)
	}
	archive := max == 0
	if archive {
		max = in.cache.Limits().MaxArchiveSize
	}
	n, sum, err := writeHashed(f, body, max)
	switch {
	case err != nil:
		remove()
		return "", nil, got, unavailable(err)
	case n > max && archive:
		remove()
		return "", nil, got, fmt.Errorf("%s: %w: download: %w", shown, ErrInvalidSource, skillcache.NewLimitError("MaxArchiveSize", max, "larger than %d bytes", max))
	case n > max:
		remove()
		return "", nil, got, fmt.Errorf("%s: %w: download: larger than %d bytes", shown, ErrInvalidSource, max)
	case want != "" && sum != want:
		remove()
		return "", nil, got, fmt.Errorf("%s: %w: download: the downloaded content's SHA-256 is %s, not the %s that the source's #sha256= names; "+
			"refusing it (the #sha256= is wrong, something altered the download on the way, or the URL serves other content now)", shown, source.ErrIntegrity, sum, want)
	}
	return f.Name(), remove, got, nil
}

// policyRedirects returns a copy of c that checks each redirect of the
// download shown against the policy, as a URL source of its own, pinned
// when the download is (Trust rule 1): an allowed URL must not lead to
// content from one the policy does not allow. A refused hop is not
// requested; *refused is set to the error, which names the hop.
func (in *Installer) policyRedirects(c *http.Client, shown string, pinned bool, refused *error) *http.Client {
	p := in.trust.effectivePolicy()
	next := c.CheckRedirect
	cc := *c
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		hop := *req.URL
		hop.User = nil
		hop.Fragment, hop.RawFragment = "", ""
		hopShown := redact.URL(req.URL.String())
		var err error
		if sourceloc.HasDotSegment(hop.Path) {
			err = errors.New("the hop's path has a '..' segment")
		} else {
			err = p.Check(source.Origin{Kind: source.URL, Location: hop.String(), Pinned: pinned, Display: hopShown})
		}
		if err != nil {
			*refused = refusedBy(shown, "download: redirected to "+hopShown, err)
			return *refused
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}

// parseDownload parses a URL source, and returns it without its
// fragment and the SHA-256 the fragment pins (#sha256=HEX), in lower
// case, or "": source.Parse reads the fragment ([source.Spec.SHA256]),
// and a fragment it does not take as a SHA-256 is refused.
func parseDownload(text string) (*url.URL, string, error) {
	u, err := url.Parse(text)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w: %w", redact.URL(text), ErrInvalidSource, errors.Unwrap(err))
	}
	spec, err := source.Parse(text)
	if u.Fragment != "" && (err != nil || spec.SHA256 == "") {
		return nil, "", fmt.Errorf("%s: %w: the fragment must be #sha256= and 64 hex digits", redact.URL(text), ErrInvalidSource)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, spec.SHA256, nil
}

// createDownload creates the file a download is written to, named name
// in a new temporary folder; remove closes it and removes the folder.
//
// The file takes the URL's last path element for its name, as the
// runtime name of an archive's skill comes from its file name: a random
// name would give every download a tree of its own in the cache.
func createDownload(name string) (f *os.File, remove func(), err error) {
	tmp, err := os.MkdirTemp("", "agentskills-download-*")
	if err != nil {
		return nil, nil, err
	}
	f, err = os.OpenFile(filepath.Join(tmp, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	return f, func() { f.Close(); os.RemoveAll(tmp) }, nil
}

// writeHashed copies body to f, at most max+1 bytes, and closes f when
// all of body fit in max bytes. It returns the bytes copied and their
// SHA-256 in hex.
func writeHashed(f *os.File, body io.Reader, max int64) (int64, string, error) {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(body, max+1))
	if err == nil && n <= max {
		err = f.Close()
	}
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// watchdog ends a download's context when nothing arrives for its
// timeout: the timer is started when the download is, and restarted at
// every read that returns bytes.
type watchdog struct {
	timer   *time.Timer
	d       time.Duration
	stalled error // the context's cause when the timer ended it
	cancel  context.CancelCauseFunc
}

// startWatchdog starts a watchdog of timeout d on a context derived from
// ctx, which it returns; stop must be called once the download ends.
func startWatchdog(ctx context.Context, d time.Duration) (context.Context, *watchdog) {
	return newWatchdog(ctx, d, true)
}

// newWatchdog returns a watchdog of timeout d on a context derived from
// ctx, and the context; its timer runs from now when start is true, else
// from its first Reset.
func newWatchdog(ctx context.Context, d time.Duration, start bool) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{d: d, cancel: cancel,
		stalled: fmt.Errorf("download: %w: nothing received for %v", source.ErrStalled, d)}
	first := d
	if !start {
		first = math.MaxInt64
	}
	w.timer = time.AfterFunc(first, func() { cancel(w.stalled) })
	return ctx, w
}

// stop stops the timer and ends the context.
func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel(nil)
}

// reader returns r restarting the timer at every read that returns bytes.
func (w *watchdog) reader(r io.Reader) io.Reader {
	return &kickReader{r: r, t: w.timer, d: w.d}
}

// downloadName is the file name for a download of u: its last path
// element with characters outside A-Z, a-z, 0-9, ".", "_" and "-" made
// "-", or "archive" when that leaves no name.
func downloadName(u *url.URL) string {
	base := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	name := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, base)
	if name = strings.TrimLeft(name, "."); name == "" || len(name) > 128 {
		return "archive"
	}
	return name
}

// kickReader restarts a watchdog timer at every read that returns bytes.
type kickReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (k *kickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.t.Reset(k.d)
	}
	return n, err
}

// redactErr returns err's text with the secrets of source removed.
func redactErr(err error, source string) string {
	msg := err.Error()
	u, perr := url.Parse(source)
	if perr != nil || u.User == nil {
		return msg
	}
	if p, ok := u.User.Password(); ok && p != "" {
		msg = strings.ReplaceAll(msg, u.User.String()+"@", url.User(u.User.Username()).String()+"@")
		msg = strings.ReplaceAll(msg, p, "xxxxx")
	}
	if redact.KeepsUser(u) {
		return msg
	}
	return strings.ReplaceAll(msg, url.User(u.User.Username()).String()+"@", "")
}

// defaultChecker reads a skill as agents do (skillmd's lenient mode): its
// errors make it unusable, its warnings do not.
func defaultChecker(dir string) (string, []string, error) {
	name, problems, spec, err := specChecker(dir)
	return name, append(problems, spec...), err
}

// specChecker is defaultChecker that tells apart, in spec, the problems
// only the Agent Skills specification holds to (rule 4): a description
// too long, and a compatibility field too long or not text. Agents load
// a skill with those.
func specChecker(dir string) (name string, problems, spec []string, _ error) {
	s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		return "", nil, nil, err
	}
	for _, p := range s.Problems {
		switch {
		case p.Warning:
		case p.Field == "description" && s.Description != "", p.Field == "compatibility":
			spec = append(spec, p.String())
		default:
			problems = append(problems, p.String())
		}
	}
	return s.Name, problems, spec, nil
}

// checkSkill checks the skill in dir with the Installer's checker:
// the default one tells the problems only the specification holds to
// apart (spec); one given with withChecker never does.
func (in *Installer) checkSkill(dir string) (name string, problems, spec []string, _ error) {
	if in.custom {
		name, problems, err := in.check(dir)
		return name, problems, nil, err
	}
	return specChecker(dir)
}

// clock is the time source of progress reports: the current time, and
// a ticker of period d with the function that stops it.
type clock struct {
	now    func() time.Time
	ticker func(d time.Duration) (<-chan time.Time, func())
}

// realClock is the wall clock.
func realClock() clock {
	return clock{now: time.Now, ticker: func(d time.Duration) (<-chan time.Time, func()) {
		t := time.NewTicker(d)
		return t.C, t.Stop
	}}
}

// progress reports the bytes of a download once it has taken a second,
// on one line that it rewrites every 200 ms: a download that receives
// nothing for a while (git fetching before it streams the archive) still
// shows that it is under way. Write counts bytes and is safe to call from
// any goroutine; done must be called once the download ends. An Add's
// report of its work (work) is a progress too, with a line of its own.
type progress struct {
	w     io.Writer
	line  func() string // the line to show now, after a carriage return; "" shows nothing
	start time.Time
	n     atomic.Int64
	after func() // called by done, when not nil

	mu      sync.Mutex // held while printing
	printed bool       // a line was printed
	shown   bool       // a line is shown, not yet ended or cleared
	stop    chan struct{}
	stopped chan struct{}
}

// startProgress starts reporting the download of what to w, timed by c.
func startProgress(w io.Writer, what string, c clock) *progress {
	p := &progress{w: w}
	p.line = func() string { return fmt.Sprintf("downloading %s: %.1f MiB", what, float64(p.n.Load())/(1<<20)) }
	return p.run(c)
}

// run starts the reports of p, timed by c.
func (p *progress) run(c clock) *progress {
	p.start, p.stop, p.stopped = c.now(), make(chan struct{}), make(chan struct{})
	ticks, stop := c.ticker(200 * time.Millisecond)
	go func() {
		defer close(p.stopped)
		defer stop()
		for {
			select {
			case <-p.stop:
				return
			case now := <-ticks:
				if now.Sub(p.start) > time.Second {
					p.print()
				}
			}
		}
	}()
	return p
}

// print shows p's line, when it has one, over the one shown.
func (p *progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if line := p.line(); line != "" {
		fmt.Fprint(p.w, "\r"+line)
		p.printed, p.shown = true, true
	}
}

// clear removes the line shown, if any.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// halt stops the reports.
func (p *progress) halt() {
	close(p.stop)
	<-p.stopped
}

func (p *progress) Write(b []byte) (int, error) {
	p.n.Add(int64(len(b)))
	return len(b), nil
}

// done stops the reports of a download and ends the line when one was
// printed.
func (p *progress) done() {
	p.halt()
	if p.printed {
		fmt.Fprintf(p.w, "\r%s, done\n", p.line())
	}
	if p.after != nil {
		p.after()
	}
}
