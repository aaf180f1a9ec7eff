// Package extract turns untrusted skill content (a zip, tar or tar.gz
// archive, or an [io/fs.FS] tree) into regular files under an [os.Root],
// within limits, and describes what it wrote as [File] values, the
// records a tree digest is made of. It imports no package of this module,
// so it sits at the bottom of the import graph: package skill maps its own
// Format, Limits and cache records onto Options and File, and exports
// [LimitError] as its own.
//
// # What an archive may hold
//
// Every entry is checked, and a single violation fails the archive and
// leaves nothing written. A zip is checked whole before its first file is
// created. A tar or tar.gz is read once, and each entry is checked as it
// arrives and written as it is checked (into the private staging folder
// of a caller that publishes it only after success); on the first
// violated rule or limit, or cancellation, extraction stops reading and
// removes every file and folder it created, so the root is left as it was
// found. What needs the whole archive is checked at its end, before
// success is returned: links (rule 8), the end marker and gzip trailer
// (rule 11) and SKILL.md (rule 13). With Options.Scratch, a tar.gz is
// checked whole, through a scratch file, before its first file is
// created.
//
//  1. Names are slash-separated relative paths that pass [io/fs.ValidPath]
//     once a leading "./" and a folder's trailing "/" are removed: no
//     absolute paths, no empty, "." or ".." elements. The root entry
//     ("." or "./") is skipped.
//  2. No control characters (0x00-0x1F, 0x7F), backslashes or colons.
//  3. Each element uses the portable set: ASCII letters and digits, the
//     marks ! # $ % & ( ) + , - . = @ [ ] ^ _ { } ~ and space, and letters
//     of any script (no combining marks, so a decomposed twin of a name
//     cannot be spelled). No element starts with a space or ends in a dot
//     or space.
//  4. No Windows device names (CON, PRN, AUX, NUL, COM0-9, LPT0-9 with their
//     superscript forms, CONIN$, CONOUT$, with or without an extension) and
//     no 8.3 short names such as GIT~1.
//  5. Elements are at most [MaxNameLen] bytes, paths at most [MaxPathLen]
//     bytes and [MaxDepth] elements.
//  6. No two entries share a name, or a name that folds to the same key
//     (Unicode NFKC and case folding), and no name is both a file and a
//     folder.
//  7. Entries are regular files, folders and links only. Devices, FIFOs,
//     sockets, sparse files and other tar types fail; PAX global headers
//     are ignored. Modes, owners, times and extended attributes are ignored
//     except the executable bit: files are written 0444, or 0555 when any
//     executable bit is set (with Options.Writable 0644 and 0755), folders
//     0755.
//  8. A link (symbolic or hard) is written as a copy of its target, and
//     only when that target, resolved inside the skill, is a regular file
//     of the skill; a link to a folder, to another link, or out of the
//     skill fails. Archive links are never followed while writing: links
//     are resolved once every entry is known (a link may name a later
//     entry) and written last, as copies of files already written, read
//     back without following a symbolic link: a link put in place of a
//     written file fails the copy (on Windows, the root's own rules
//     apply instead).
//  9. Limits: the entry count (checked as entries arrive, and
//     counting each folder the names imply that no entry lists, so deep
//     names cannot make more folders than the limit allows), each
//     file's declared and actual size, and the total bytes that come out
//     of the decompressor (tar headers and padding included) plus the
//     bytes copied for links. Declared sizes are never trusted: every copy
//     is bounded and fails when the data runs over. Limits are enforced
//     as bytes arrive: the decompressor stops once it has produced more
//     than the total limit, so a bomb costs no more than the limit.
//  10. Zip: the central directory is counted, by walking its records,
//     before it is read (its end record's count is not trusted: zip
//     readers compare it modulo 65,536; [CountZip] is that count, for a
//     caller that reads a directory itself); entries must not overlap or run
//     past the end, must not be encrypted, must use store or deflate,
//     must start at offset 0, and their CRC-32 and size must match what
//     was read (also when the recorded CRC is zero).
//  11. Tar and tar.gz: only zero bytes may follow the end marker, and the
//     gzip stream is read to its end so its checksum is verified.
//  12. With a subpath, entries outside it are checked and counted but not
//     written; the prefix is matched element by element.
//  13. The skill must have a regular file SKILL.md at its root. With
//     Options.Wrapped set and no subpath, an archive whose root holds no
//     SKILL.md but is one folder that holds one (rule 17, as `tar -czf
//     kit.tgz kit` makes) is that folder's skill: the archive's entries
//     are checked and written as they are named, under the folder, and
//     the files returned are relative to it. Two entries at the root (a
//     file and a folder, two folders), a link in place of the folder, or
//     a folder without a SKILL.md still fail.
//  14. Version-control metadata is left out of every skill: an entry
//     named .git, .hg, .svn, .jj, .bzr, _darcs, .pijul, .fslckout or
//     _FOSSIL_ (in any ASCII case), file or folder, at any depth, and
//     everything under it ([LeftOut]). In an archive such entries are
//     checked and counted like entries outside the subpath (rule 12),
//     but not written, and a link to a file under them fails as a link
//     out of the skill; in an fs.FS tree they are not walked, so they
//     count against no limit.
//  15. With Options.DropLink set (default off), a link that rule 8
//     refuses (its target absolute, not portable, out of the skill, a
//     folder, another link or nothing) does not fail the archive: it is
//     checked and counted like the other entries (rules 1-7 and 9 still
//     fail the archive), never written and never followed, and reported
//     to DropLink as a [DroppedLink], so that a repository holding many
//     skills can be read without the few that hold such a link.
//  16. With Options.Leave set (default nil), an archive's files and links
//     it names are left out: checked and counted like the other entries
//     (rules 1-9; a file's declared size counts against the total), but
//     not written, shown to Options.Content or returned, so that a caller
//     that knows which folders it needs writes only those. A link left
//     out is not reported to DropLink; a link that is written and points
//     to a file left out fails the archive.
//  17. A tree's sole folder ([SoleFolder]) is the one entry at its root
//     when that entry is a folder, not a link, version-control metadata
//     (rule 14) left out of the count. Rule 13 takes it as the skill of
//     an archive without a SKILL.md at its root, and the module's
//     installer searches a repository's archive from it: one rule for
//     both.
//
// Checking keeps each element of the names once, with its fold key, so
// its memory is bounded by the entry limit times the name limits, however
// long and deep the names are.
//
// An error caused by the content wraps exactly one of [ErrFormat],
// [ErrUnsafe] and [ErrLimit]; an ErrLimit error is a *[LimitError] naming
// the limit and its value, and its message says nothing of how to raise
// it (the caller knows); cancellation wraps the context's error; an
// error of the file systems involved (writing the destination, reading a
// spooled archive or an fs.FS) is returned as it is, as an *fs.PathError
// or the file system's own error. Extraction writes only under the
// given root and never replaces a file. After an error of the content or
// a cancellation, an archive's extraction has removed what it created;
// after an error of the file system, and for an fs.FS tree, cleaning up
// is left to the owner of the root, who knows more of its state. On
// Windows, removing a read-only file it wrote may fail, leaving it to the
// owner too.
package extract
