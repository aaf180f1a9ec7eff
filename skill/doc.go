// Package skill is the consumer-facing vocabulary for agent skills.
//
// A skill is a directory containing SKILL.md (plus optional reference
// files) that teaches an agent a repeatable workflow. This package provides
// constructors that produce Ref values accepted by adaptor.WithSkills:
//
//	adaptor.WithSkills(
//	    skill.Dir("./skills/write-proof"),                    // local directory
//	    skill.Key("code-review"),                             // provider-side catalogue key
//	    skill.Inline("greet", "# Greeting\n..."),             // literal SKILL.md content
//	    skill.Archive("kit", skill.ArchiveFile("./kit.tgz")), // zip / tar / tar.gz bundle
//	)
//
// Dir, FS, Inline, and Archive build self-contained skill definitions; Key
// references a skill resolved at run time by the host-installed Provider.
// Provider and Materializer are the two host extension points: a Provider
// translates catalogue keys into concrete skill definitions (and may inject
// tenant-mandatory required skills), while a Materializer controls how
// skill sources are written to disk before a driver consumes them.
//
// This package also owns the host extension contracts, source values,
// default materializer, and skill-specific error identities used by
// errors.Is and errors.As.
//
// # First steps
//
// The Inline line above abbreviates its SKILL.md. A SKILL.md that an agent
// loads starts with front matter that names the skill and says when to use
// it; an agent's run refuses one without it before the agent starts
// (adaptor.ErrInvalidSkill). A complete program that writes a skill into
// the cache and prints where it is:
//
//	package main
//
//	import (
//		"context"
//		"fmt"
//		"log"
//
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		greet := skill.Inline("greet", "---\nname: greet\ndescription: Greet the user by name.\n---\nSay hello, then the user's name.\n")
//		dir, err := skill.NewDefaultSkillMaterializer().Materialize(context.Background(), greet)
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(dir) // <cache root>/<digest>/greet, holding SKILL.md
//	}
//
// A program that runs an agent hands the same values to adaptor.WithSkills
// (see package adaptor), which materializes them before every run.
// Runnable examples are in example_test.go (go doc does not print them;
// pkg.go.dev does): ExampleDir, ExampleInline, ExampleArchive,
// ExampleArchive_oneFolder and ExampleLocalSkillsFromDir.
//
// # Keys and runtime names
//
// Dir takes the folder's base name as the key (trailing slashes ignored),
// FS the root's base name ("skill" for "" or "."); Inline and Archive take
// the key they are given. The folder name an agent sees, the runtime name,
// is [RuntimeName]: Metadata[MetadataRuntimeName] when set, else derived
// from the key.
//
// # Requirements
//
// A skill may need other skills: its SKILL.md lists them in
// metadata.requires (package skillmd, "Requirements"), each a source as
// agentskills add takes it. An agent selects a skill with the skills it
// requires, and theirs, when asked, by the rules of package adaptor's
// "Requirements":
//
//	adaptor.WithSkills(skill.WithRequires(skill.Dir("./skills/release")))
//
// [WithRequires] marks one skill (as context.WithValue derives a
// context, it returns a marked copy; the mark is
// Metadata[MetadataRequires], and drivers never see it);
// adaptor.WithRequires marks every skill of an agent or of a run.
// Requirements relative to a folder or an fs.FS tree ("./x", "../x")
// the agent resolves itself; the rest it asks a [RequirementResolver]
// (package source/requirement has one for github:, git+ and oci://
// sources), given with adaptor.WithRequirementResolver. A requirement
// that cannot be met fails with [ErrRequirement], and anything that
// fails for a required skill comes back in a *[RequirementError] that
// names the chain of skills that asked for it ("release -> changelog").
//
// # The default materializer
//
// [NewDefaultSkillMaterializer] returns a materializer that is safe for
// concurrent use by goroutines and by processes sharing a cache root:
//
//  1. A PathSource (from Dir) is used in place: its absolute path is
//     returned once it is checked to hold a regular SKILL.md. Nothing is
//     copied.
//  2. Every other source is written once into
//     <root>/<digest>/<runtime-name>/, which holds the skill's files and
//     nothing else. The digest is a SHA-256 over a framed encoding of the
//     runtime name and every file's path, executable bit, size and
//     contents, so equal content shares one tree on every machine.
//     Trees are read-only: files 0444 (0555 when executable), folders
//     0555, so a script run from a tree cannot write beside itself. To
//     remove a cache by hand, run chmod -R u+w on it first, or use
//     [Cache.GC].
//  3. A tree is staged in <root>/.tmp on the same file system and published
//     by one rename, so a tree that can be seen is complete; when two
//     writers race, both get the one tree. Within one materializer,
//     materializations of one tree at the same time stage it once: the
//     first stages it, the others wait for its tree (as long as their
//     context allows), and stage anew only when it fails. A crash leaves only staging,
//     which the next materializer to use the cache (a warm run too) and
//     [Cache.GC] sweep.
//  4. A published tree is checked on every use: it must hold exactly the
//     files it was published with, with their bytes and permissions, and
//     nothing else. A tree edited in place (even to the same size, with
//     its times set back), with a file added or removed, or made writable
//     is thrown away and rebuilt from the source by the next
//     materialization, and a lookup by digest (an installer's reinstall
//     from its lock file), which has no source, refuses it. The check costs a stat per file and folder, compared with a
//     record written when the tree was published (as git's index does:
//     size, times, inode, and the change time no user can set back); a
//     file or folder whose stat changed is hashed or listed again, and a
//     tree published by an older version, without the record, is hashed
//     once, which writes it. On Windows, where a program can set a
//     file's change time, every use hashes the tree instead (and no
//     permissions are compared). macOS behaves as Linux. Whoever can
//     write the cache can also rewrite that record; the check stops a
//     process that changes a tree, such as an agent's shell in an earlier
//     run, from reaching every later run through it.
//  5. An archive is read once per call and hashed. A memo from that hash
//     (with the format, subpath, runtime name and limits) to the content
//     digest makes a repeat cost a hash and a lookup, not an extraction.
//     [WithFingerprint] is never a cache key.
//  6. Archives and FS trees are checked in full before anything is
//     written (an archive of one folder, with no SKILL.md at its root, is
//     that folder's skill: see [Archive]): only regular files and folders with portable, non-colliding
//     names land in the cache; a link is stored as a copy of its target
//     when that target is a regular file inside the skill, and fails the
//     skill otherwise. Zip entries must not overlap or be encrypted; CRCs,
//     sizes and the gzip trailer are verified.
//  7. Limits: [WithMaxArchiveSize] (256 MiB of compressed input, read
//     before extraction begins), [WithMaxFileSize] (64 MiB per file),
//     [WithMaxTotalSize] (1 GiB counted on bytes that actually come out of
//     the decompressor, plus link copies) and [WithMaxArchiveEntries]
//     (10,000 entries, folders the names imply included, checked before
//     anything is written). A failed
//     extraction leaves nothing behind.
//  8. The cache root must be safe from other users: it, and every folder
//     above it, must belong to the current user (or root) and be writable
//     by no one else (a sticky folder such as /tmp aside); folders the
//     materializer creates are private (0700). The root is held open from
//     the first materialization on, so a folder swapped above it later
//     cannot redirect it.
//  9. Every failure is a *[SkillMaterializationError] naming the skill and
//     its runtime name; its Cause wraps [ErrSkillSourceMissing],
//     [ErrArchiveFormat], [ErrArchiveUnsafe], [ErrArchiveLimit], the
//     context's error, or the underlying I/O error.
//  10. Version-control metadata is not part of a skill: an entry named
//     .git, .hg, .svn, .jj, .bzr, _darcs, .pijul, .fslckout or _FOSSIL_
//     (in any ASCII case), file or folder, at any depth, and everything
//     under it. Archive and FS sources are materialized without it,
//     agentskills add and package install copy skills without it, and
//     [ContentDigest] leaves it out, so a digest's "every file" means
//     every file of the skill, which never includes these. Such a folder
//     is live configuration for the tool that reads it (git runs the
//     commands a repository's config names, such as core.fsmonitor, when
//     anyone runs git status inside it; Mercurial runs .hg/hgrc hooks),
//     which a skill's author must not be able to plant in the folder an
//     agent works in. In an archive these entries are still checked and
//     counted against the entry limit, like entries outside the subpath;
//     in an FS tree they are not walked. A link to a file under them
//     fails like a link out of the skill. A Dir is used in place (rule
//     1): nothing is copied, so a repository folder given to Dir stays
//     one; it is the caller's own.
//  11. Sources are not read again when they cannot have changed. The
//     digest of a PathSource (a Dir, or a folder from
//     [LocalSkillsFromDir]) comes from a stat record of the folder kept
//     in the cache, <root>/.memo/<key>.folder, keyed by the folder's
//     absolute path: every folder's, regular file's and link's type and
//     permissions, size, modification time, change time, device and
//     inode, as git's index holds them, with each file's SHA-256 and
//     each link's target. A read stats each entry once; it lists only a
//     folder whose stat differs from the record (an entry added, removed
//     or renamed changes its folder's times) and hashes only a file
//     whose stat differs, or whose recorded change time lies within 50
//     ms (2 s for whole-second times) of when the record was taken, or
//     later (racy, as rule 4 says). The change time is what is trusted:
//     a write, a rename into a folder or a chmod sets it to the current
//     time and no user can set it back, so a file edited to the same
//     size with its times restored (touch -d, os.Chtimes) is hashed
//     again; a file renamed over another has a new inode. What the record
//     misses, as git's index does: a write through a shared memory
//     mapping to a page already written since the kernel last set the
//     file's times moves no time, and a network or FUSE file system may
//     report a change time its server lets a program set; a program that
//     must see such changes hashes the folder itself (package install's
//     verify does so for installed copies). A Cache holds
//     the records it made for its life and writes one to the cache
//     atomically when it changed; the record in the cache is best effort:
//     one that cannot be read, is malformed, lost lines (each folder's
//     line says how many entries it holds), was written on another boot
//     (it holds the boot's id: a crash may keep a file's size and inode
//     but not its bytes, package bootid's rule 1), names another folder,
//     or lists an entry the folder does not hold is ignored, and the read
//     hashes every file and writes it again. A folder with more entries
//     than [WithMaxArchiveEntries] keeps no record, and [Cache.GC]
//     removes records not used since its cut-off, as it does memos.
//     macOS and the BSDs behave as Linux; on Windows, where a program can
//     set a file's change time, no record is kept and every read lists
//     and hashes the folder. The tree of an embed.FS, compiled into the
//     program, cannot change while it runs: a Cache reads it once and
//     remembers its files for its life (keyed by the FS value and root);
//     every other [FSSource] is read and hashed on every use, as an
//     fs.FS says nothing of when its files change.
//  12. A set of skills is vouched for at once. [Cache.MaterializeSet],
//     which an agent's run uses, keeps a record of each set it
//     materialized, <root>/.memo/<key>.set, keyed by the runtime name and
//     source of each skill it can cover, the root and the limits. It
//     covers only sources whose every change a stat shows: an inline
//     skill, whose content is part of the key, with its cached tree; and
//     a folder used in place, as rule 11 records it. An [FSSource] or an
//     [ArchiveSource] says nothing of when it changes (an fs.FS has no
//     change times, an archive's opener is read on every call, rule 5),
//     so such skills, and sources of kinds the Cache does not know, are
//     materialized one by one on every call. For each covered skill the
//     record holds what a full materialization returned (folder and
//     digest) and the stamps that materialization's checks vouched for:
//     the tree's stat record as its lookup found it (rule 4), or the
//     folder's stat record as its read made it (rule 11), never stamps
//     taken afterwards, which could hide a change made in between. A
//     warm call checks that the root is still the folder it opened
//     (rule 8) and stats each recorded file and folder once: a skill is
//     vouched for only when every stamp is what the stat finds and none
//     is racy (rule 4's windows, against the time its stamps were taken),
//     a folder's SKILL.md is still a regular file or a link to one (rule
//     1), and, whenever the use of its tree is recorded (at most once a
//     second, as a lookup records it), the tree's <digest> folder is the
//     folder recorded and not a link. Every other skill of the set is
//     materialized one by one, as [Cache.MaterializeContent] does it;
//     then the record is made again from what those checks vouched for,
//     and written when its stamps changed or fewer of them are racy. So
//     a warm call returns what a full materialization returns: the same
//     folders and digests, holding the files a check found intact, none
//     changed since. The record is best effort: one that cannot be read,
//     is over 16 MiB, was cut short or damaged (a SHA-256 of its lines
//     ends it), is malformed, was written on another boot (as rule 11
//     says), names another key, or does not fit the set
//     (a skill's place, kind, runtime name or folder) is ignored, and the
//     set is materialized one by one and recorded again. A Cache holds
//     the records it read or made, up to 256 sets, for its life, and
//     [Cache.GC] removes records not used since its cut-off, as it does
//     memos. On Windows, which gives no stamps, no record is kept. Only
//     MaterializeSet uses the record. A materializer that wraps a Cache
//     and checks what it returns (package trust's) runs its checks on
//     every call whichever way it is called: through its own
//     MaterializeSet it checks the whole set, hands it to the Cache's,
//     and checks each folder and digest that returns (trust's reports
//     are kept by content digest, which the record returns as a full
//     materialization would).
//
// # For drivers, installers and tools
//
// Beyond the constructors and contracts above, the package offers a few
// things, each because a Go program that is not just a host (a driver, an
// installer, a tool) needs it and would otherwise have to copy this
// package's rules:
//
//   - [Cache], from [NewCache]: the default materializer with its type, so
//     a program holds one value with the cache root and the limits, and
//     everything done for the cache obeys them: [Cache.Root] (where
//     drivers keep what they build for runs; a materializer that wraps a
//     Cache forwards it, see adaptor.WithSkillMaterializer),
//     [Cache.Limits] (for tools that download or pack for the cache), and
//     [Cache.Entries] and [Cache.GC] (for tools that list and collect it).
//   - [LimitError]: the one error for content over a limit, which the
//     materializer, the module's installers and its remote sources return,
//     so a program or a command reports every limit alike from its name
//     and value; [LimitArchiveSize] and its siblings are the names of the
//     cache's limits.
//   - [Cache.DriverFolders] and [Cache.CollectDriverFolders]: the folders
//     drivers keep under the cache root for their runs (skill mounts,
//     managed agent homes; found under the root, as the cache knows no
//     driver), for tools that list and collect the cache as a
//     whole; a tree such a folder links to is in use, so collecting the
//     folders comes before [Cache.GC].
//   - [Cache.MaterializeSet]: a whole selection at once, found through
//     the record of the set (rule 12), as an agent's run materializes
//     it, for hosts that resolve skill sets themselves.
//   - [SourceDiff]: when two sources are the same, and when one is
//     missing, the rules adaptor applies to declarations, for hosts that
//     merge skill sets themselves.
//   - [RuntimeName] and [ErrRuntimeNameConflict]: the folder name an agent
//     sees, which drivers and installers must agree on.
//   - [ContentDigest] and [ContentMaterializer]: the content digest that
//     fingerprints and lock files record, and a way for a materializer to
//     report it without a second read.
//   - [WithMaxTotalSize]: a cap on what one skill expands to in all, which
//     stops an archive bomb whose every file stays under the per-file cap.
//   - [ErrArchiveFormat], [ErrArchiveUnsafe] and [ErrArchiveLimit]: the
//     errors that classify refused content.
//
// What only the module's own packages do with a Cache is not here: a
// tree checked or copied into a folder of an installer's, a repository of
// many skills unpacked, the skills an archive holds listed, a tree looked
// up by a digest a lock file recorded, the limit error a download makes.
// Those live in the module's internal/skillcache, as functions that take
// the *Cache whose root and limits they apply, so that they hold content
// to exactly what materializing it would while this package's API stays
// the one a host needs. A host that wants one of them materializes
// instead: the result is the same tree, checked under the same rules.
//
// Peak memory does not grow with the archive: streams over 4 MiB are
// spooled to a private file beside the staging folder, and files are
// copied through fixed buffers.
package skill
