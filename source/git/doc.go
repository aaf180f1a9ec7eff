// Package git fetches skills from any git host through the system git
// command, pinned to a commit.
//
// A [Source] names a folder of a repository at a ref; [Parse] reads it from
// a URL. A [Client] resolves the ref to a commit with [Client.Resolve],
// which gives a [Pin]: that call is the only one that looks a ref up, so a
// program (or a lock file) decides when a pin moves. [Client.Skill] turns a
// pin into a [skill.Skill] whose source, a [SkillSource], is an archive
// source that carries the commit as its Fingerprint; its opener streams
// `git archive` of the pinned folder, so the default materializer's
// archive rules and limits apply to it. The source also says where it
// comes from and at which commit, and checks the commit's signature, for
// a trust policy (package trust).
//
//	c, err := git.New()
//	src, err := git.Parse("git+https://git.example.com/team/skills.git#ref=v1&path=skills/review")
//	pin, err := c.Resolve(ctx, src)
//	s := c.Skill("review", pin) // a SkillSource: skill.Archive(..., WithFingerprint(pin.Commit), WithSubpath("skills/review"))
//
// # Source syntax
//
// A source is written
//
//	git+SCHEME://[USER@]HOST[:PORT]/REPOSITORY[#ref=REF&path=PATH]
//
// where:
//
//  1. SCHEME is https, ssh or file (file:///absolute/path, with no host or
//     "localhost"); http is read only for a loopback address. Everything
//     after "git+" and before "#" is the URL git is given.
//  2. The ref and the folder go in the fragment as ref= and path=, in any
//     order, each at most once, percent-encoded where needed ("&" as %26,
//     "+" as %2B, since "+" reads as a space). Without ref the remote's
//     default branch (HEAD) is used; without path the repository's root.
//     Other keys are refused, so a misspelled key is not silently ignored.
//     The fragment was chosen because nothing else can mean it: git never
//     sends a fragment to a server, so it cannot be part of the
//     repository's address, whereas "@REF" collides with the user in
//     git+ssh://git@host/... and with "@" in paths, and "//PATH" with the
//     empty path elements that URL normalizers remove. It is also the form
//     pip reads (#subdirectory=), and names each part.
//  3. REF is a branch, a tag, a full commit id (or a version range, rule
//     17), following git
//     check-ref-format: no control characters, spaces, "~", "^", ":", "?",
//     "*", "[", "\\", "..", "@{" or "//", no leading "-", "/" or "+", no trailing
//     "/", "." or ".lock". PATH is relative and slash-separated, without
//     empty, "." or ".." elements, backslashes, colons or control
//     characters.
//  4. A password in the URL is refused: it would be shown in errors and
//     recorded in lock files. A user in an http(s) URL (where a token is
//     often put) is passed to git but never shown (rule 13).
//     Credentials come from git's own helpers, SSH keys and agents, or
//     [WithHeader]. scp-like addresses (git@host:repo) are not read;
//     write git+ssh://git@host/repo. A repository name with "@" in its
//     last element (repo.git@v1) is refused as a misplaced ref.
//
// # Running git
//
//  5. The system git is run (found on PATH, or [WithGit]), so the user's
//     credential helpers, SSH configuration, proxies and url.insteadOf
//     rewrites apply. It runs with GIT_TERMINAL_PROMPT=0 and
//     GCM_INTERACTIVE=never (a missing credential fails instead of waiting
//     for a prompt), GIT_LITERAL_PATHSPECS=1, LC_ALL=C, with no standard
//     input, in a fresh bare repository (made without a template, so no
//     hook of the user's template runs) in a private temporary folder that
//     is removed when the call (or the opener's reader) is done. GIT_DIR,
//     GIT_WORK_TREE and the like from the environment are not passed on.
//     ssh's own questions (a key's passphrase, an unknown host key) are
//     ssh's to ask; for unattended use set BatchMode yes in the SSH
//     configuration, or GIT_SSH_COMMAND. On Unix (Linux, macOS) git runs
//     in a process group of its own, and stopping it (a cancelled
//     context, rules 11 and 12) kills the group: the helpers it started
//     (git-remote-https, ssh) go with it. Windows has no process groups:
//     git alone is killed, and its helpers end with their connection
//     (git-remote-https by the low-speed limit of rule 11).
//  6. Nothing a user may consider secret is put on git's command line: the
//     repository URL and every [WithHeader] value reach git as
//     configuration through the environment (GIT_CONFIG_COUNT,
//     GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n, after any the caller's
//     environment already holds), as remote.origin.url and
//     http.extraHeader, with http.lowSpeedLimit and http.lowSpeedTime
//     (rule 11), fetch.negotiationAlgorithm=noop (rule 8),
//     fetch.unpackLimit=1 (a pack is kept as it arrives, rule 12) and
//     maintenance.auto=false (a fetch starts no git maintenance run in a
//     repository removed when the call is done). Header
//     values never appear in errors. Options never reach git as options:
//     refs cannot start with "-" and arguments follow --end-of-options.
//     Redirects: git runs with http.followRedirects=false, so it never
//     follows one (git's default, "initial", has curl follow the first
//     request's redirects anywhere, and curl keeps sending every
//     http.extraHeader but Authorization to the new host; scoping a
//     header as http.<url>.extraHeader does not help, as git matches it
//     against the configured URL, not the redirected one: both tried
//     with git 2.39). When git fails on a redirect, the package asks the
//     same URL (as the user's url.<base>.insteadOf rewrites it) once
//     itself (GET REPOSITORY/info/refs?service=git-upload-pack,
//     with the [WithHeader] headers, to the host they were given for, not
//     following the answer) and reads where it points. A redirect to
//     another repository address on the same host (the same scheme, host
//     and port: a renamed repository, an address without .git) is
//     followed: the check of [WithRedirectCheck], if any, is given the
//     new URL first, and git is run again there, for this call's later
//     runs too; at most 5 redirects. Anything else fails with
//     [source.ErrRedirected], naming where the server pointed, before
//     any request goes there: a redirect to another host (or scheme, or
//     port), one to an address that is not a repository's, one the check
//     refused. So a header, a credential or the repository's name never
//     reaches a host other than the one the source names. Write the
//     repository's new address as the source to read it there.
//  7. Resolve runs git init, git fetch --depth 1 --filter=blob:none
//     origin REF (HEAD without a ref), and takes FETCH_HEAD's commit (a
//     tag is peeled); with a PATH, that commit must hold it as a folder.
//     A server that allows filters (uploadpack.allowFilter, as GitHub and
//     GitLab do) then sends the commit and its folders without any file;
//     one that does not sends the whole commit, within rule 12.
//     [Remote.LookUp] fetches nothing: it reads the commit from the
//     remote's advertisement of its refs, with one git ls-remote origin
//     REF REF^{} (watched as a fetch is, rule 11; its output bounded to
//     1 MiB), which git matches as git fetch does (REF, refs/REF,
//     refs/tags/REF, refs/heads/REF, refs/remotes/REF,
//     refs/remotes/REF/HEAD: the first listed, a tag by its peeled
//     line); a range by rule 17's git ls-remote --tags; a full commit id
//     is its own answer, without asking the remote. Over smart HTTP that
//     is the advertisement and, in git's protocol version 2, its ls-refs
//     command: no pack is asked for. The folder is looked for only when
//     the commit is fetched (rule 8).
//  8. The opener fetches only the pinned commit (git fetch --depth 1
//     --filter=blob:none origin COMMIT). A server that does not give
//     commits by id is asked for the pin's ref instead, which must still
//     point at the pinned commit; otherwise the error says to resolve
//     again. The files of PATH that a filtered fetch left out are then
//     fetched by id in one more fetch, with the .gitattributes of the
//     folders above PATH (git rev-list --missing=print lists them;
//     without negotiation, so the server does not leave them out again),
//     and nothing else: origin then stops being a promisor remote, so
//     that git archive, which would fetch blobs it only looks at, fetches
//     nothing, and the other files of the commit are never downloaded.
//     It then streams git archive --format=tar COMMIT PATH: names as in
//     the repository,
//     executable bits kept, links as links (the materializer copies those
//     that point at a file of the skill and refuses the others), and the
//     repository's export-ignore and export-subst attributes applied, as
//     on GitHub. A git failure while streaming is an error of the read, never
//     a short archive.
//     [Client.Fetch] resolves and opens in one fetch: the archive is of
//     the commit the ref named when it was fetched. Without a PATH every
//     file of the commit is read, so Fetch and the opener fetch without
//     --filter=blob:none: one fetch brings the commit, its folders and
//     its files (within rule 12), and git archive runs on it at once,
//     without the second fetch or the listing of missing files.
//  9. A failed or refused fetch leaves nothing in the skill cache: the
//     materializer publishes only a tree that passed every check.
//
// # Errors
//
//  10. Errors use the sentinels of package source, as its prefix rule
//     says: a repository, ref, commit or folder that does not exist
//     wraps [source.ErrNotFound]; a missing or refused credential wraps
//     [source.ErrAuthRequired]; text that is not a source, or an unusable
//     option, wraps [source.ErrInvalid]; a stalled fetch wraps
//     [source.ErrStalled]; a redirect not followed wraps
//     [source.ErrRedirected] (rule 6); a fetch over the limit wraps
//     [skill.ErrArchiveLimit]. Other failures
//     carry the end of git's error output, without its progress reports.
//     Every error names the repository (and the ref or commit) it was
//     about.
//
// # Bounds
//
//  11. Stalls: a fetch that receives nothing for [WithStallTimeout]
//     (default 30 s) is stopped and fails with [source.ErrStalled]. Receiving is
//     git's progress output (fetches run with --progress, which the
//     server's own reports also reach) or growth of the temporary
//     repository's objects, measured every 50 ms. Over http(s), curl
//     also gives up a transfer slower than 1 byte a second for that long
//     (http.lowSpeedLimit=1, http.lowSpeedTime in whole seconds, rounded
//     up). git archive, which reads only the local repository, is not
//     timed.
//  12. Size: a fetch is stopped when the temporary repository's objects
//     (packs and loose objects, not the indexes git derives from them)
//     grow by more than the MaxArchiveSize of [WithCache] (default 256
//     MiB), measured every 50 ms while git runs and once more after it
//     ends. The error wraps [skill.ErrArchiveLimit], names the limit
//     (MaxArchiveSize, which the materializer's error says how to raise)
//     and says what helps: a server that filters blobs sends only the
//     folder's files. So at most the limit and 50 ms of transfer land on
//     the disk.
//  13. Messages never show credentials: an http(s) URL is shown without
//     its user information, an ssh URL with its user (it names the
//     account on the server, as in git@github.com, and is no secret) but
//     without a password; git's own messages, which name the URL too,
//     are cleaned the same way (the user of an http(s) URL is also
//     removed where it appears alone, from 6 characters on).
//
// # Signed commits
//
//  14. [Client.VerifyCommit] (and [Remote.VerifyCommit], the
//     [source.CommitVerifier] package install calls when a policy requires
//     signed commits) fetches the pinned commit as rule 8 does, without
//     its files, and runs git verify-commit --raw on it.
//     [Client.VerifyCommitObject] checks a commit given as text (package
//     github's, rebuilt from its API) after git hash-object has written
//     it and found the pinned commit's id. The keys are a
//     [source.CommitKeys]; its files are read from the current folder
//     when relative, and must exist.
//     An SSH signature (git 2.34 or later) is checked by ssh-keygen,
//     found on PATH, against
//     the CommitKeys' AllowedSigners file (git's gpg.ssh.allowedSignersFile
//     format) or, when that is empty, the file the user's own git
//     configuration names in gpg.ssh.allowedSignersFile (as git
//     verify-commit would use it). A GPG signature is checked by gpg,
//     found on PATH, in a GnuPG home of its own, made in the temporary
//     repository, into which the CommitKeys' GPGKeyring (an OpenPGP public
//     key file, armored or binary, as gpg --export writes it) is imported:
//     the user's GNUPGHOME or ~/.gnupg is never read or written, and
//     without a GPGKeyring no GPG signature is accepted. That home's
//     gpg.conf starts no gpg-agent and asks no key server. The user's
//     gpg.program and gpg.ssh.program are replaced by the gpg and
//     ssh-keygen on PATH (a program that only signs, such as
//     op-ssh-sign, cannot check), and gpg.minTrustLevel by "undefined":
//     a key is trusted because the keys name it. Other signatures (X.509,
//     gpgsm) are refused.
//  15. The signer returned is, for an SSH key, the principal the allowed
//     signers file gives it and the key, "alice@example.com (SSH ED25519
//     key SHA256:...)"; for a GPG key, its primary user id and the
//     primary key's fingerprint, "Alice <alice@example.com> (GPG key
//     C2AE...2E40)". Characters that do not print are quoted.
//  16. A refusal wraps [source.ErrCommitSignature], names the commit and
//     the repository, and says what was found and what to do: the commit
//     is not signed; it is signed by a key (named by its fingerprint) that
//     the allowed signers file or the keyring does not name; its
//     signature does not verify (the commit or the signature was changed
//     after signing); its key is expired or revoked; no allowed signers
//     file or keyring was named; a file named cannot be read; or gpg or
//     ssh-keygen, which the signature needs, is not installed ("install
//     GnuPG", "install OpenSSH's client"). A tag's signature is not
//     checked: a pin is a commit, and what is checked is the commit's own
//     signature.
//
// On macOS, ssh-keygen comes with the system and gpg with GnuPG (brew
// install gnupg); on Windows, Git for Windows brings both, in its
// usr\bin folder, which must then be on PATH (or install Gpg4win and
// Windows' OpenSSH client). Verification has been tested on Linux.
//
// # Versions
//
//  17. A ref written as a version range (package source/version, rule 1:
//     it holds "^", "~", "*", "<", ">", "=", "|", "," or a space, as in
//     #ref=^1.2, #ref=~1.2&path=skills/review or #ref=>=1.0%20<2; a
//     space may be written as %20 or as itself in a quoted argument, not
//     as "+") is checked as a range instead of by rule 3. Resolve then
//     runs one git ls-remote --tags origin (watched as a fetch is, rule
//     11; its output bounded to 16 MiB and version.MaxTags tags), takes
//     an annotated tag's commit from its peeled line (NAME^{}), picks
//     the highest tag the range admits and fetches refs/tags/TAG as rule
//     7 does; [Pin.Version] is that tag. A ref that is no range means
//     the branch, tag or commit of that name as before: #ref=v1.2.3 is
//     the tag and #ref=1.x a branch (write ^1 for the versions 1.x.y). No
//     tag admitted fails with [source.ErrNotFound], naming the range and
//     the highest tags. [Source.String] writes "^", "<", ">", "=" and "|"
//     as they are. [Client.Tags] lists the tags; [Remote] implements
//     [source.Versioned].
//
// # Web addresses
//
// [ParseWeb] reads the address of a repository's web page, as people
// copy it from GitLab, Codeberg, Gitea or Bitbucket, as a source: the
// same [Source] that git+https://HOST/REPOSITORY.git#ref=REF&path=PATH
// gives, so every rule above applies to it. Only https is read.
//
//  18. https://HOST/PATH.git, on any host, is git's own address of a
//     repository, read as git+https://HOST/PATH.git (rules 1 to 4, with
//     the #ref=REF&path=PATH fragment). In the other forms the
//     repository's path elements are ASCII letters, digits, ".", "-"
//     and "_", start with a letter or a digit, and are neither "." nor
//     ".."; the repository's URL is https://HOST/REPOSITORY.git (what
//     these hosts give to clone), with the user of the address, if
//     any, kept for git and never shown (rule 13).
//  19. GitLab, on any host: https://HOST/GROUP/.../REPO/-/tree/REF[/PATH]
//     (subgroups included), optionally with the ?ref_type=heads or
//     ?ref_type=tags its pages add. Every other page under "/-/" (blob,
//     raw, archive) is not a repository's.
//  20. Gitea and Forgejo (Codeberg), on any host:
//     https://HOST/OWNER/REPO/src/branch/REF[/PATH], /src/tag/REF[/PATH]
//     and /src/commit/COMMIT[/PATH].
//  21. Bitbucket Cloud: https://bitbucket.org/OWNER/REPO/src/REF[/PATH].
//     Bitbucket Server's pages (/projects/P/repos/R/browse) are not
//     read: write its git+https address.
//  22. A repository's own page, without a ref (the default branch), on
//     the known public hosts only ([KnownHost]): gitlab.com/GROUP/.../REPO,
//     and codeberg.org, gitea.com and bitbucket.org/OWNER/REPO. On any
//     other host such an address cannot be told from a file's, and
//     ParseWeb refuses it.
//
// In forms 19 to 21 the ref is the one path element after tree/, branch/
// or src/: a ref holding "/" (feature/x) cannot be told from the folder
// that follows in a web address, and is written
// git+https://HOST/REPOSITORY.git#ref=feature/x&path=PATH instead.
// Credentials for private repositories are git's own (credential
// helpers, a user in the address), as rules 4 and 5 say: nothing is
// written anywhere. The same holds on macOS and Windows.
//
// [NewRemote] gives a source the shape of [source.Remote], in which
// package install uses every published source: its Resolve fetches once
// and keeps the archive for the Open that follows. Its LookUp resolves
// the ref alone, from the remote's refs (rule 7), for a caller that may
// hold the content at that commit already; an Open that follows fetches
// anew.
//
// A [Client] is safe for concurrent use; each call has its own temporary
// repository. A [Remote] is for one caller at a time.
package git
