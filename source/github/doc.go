// Package github fetches skills published in GitHub repositories, pinned to
// a commit.
//
// A [Source] names a folder of a repository at a ref; [Parse] reads the
// forms people type. A [Client] resolves a source's moving ref to a commit
// with [Client.Resolve], which gives a [Pin]: that call is the only one that
// looks a ref up, so a program (or a lock file) decides when a pin moves.
// [Client.Skill] turns a pin into a [skill.Skill] whose source, a
// [SkillSource], is an archive source that carries the commit as its
// Fingerprint, so the default materializer's archive rules and limits
// apply to what is downloaded, and resolution conflicts and thread
// compatibility follow the pinned revision. The source also says where it
// comes from and at which commit, and checks the commit's signature, for
// a trust policy (package trust).
//
//	c, err := github.New()
//	src, err := github.Parse("anthropics/skills/skills/pdf@main")
//	pin, err := c.Resolve(ctx, src)
//	s := c.Skill("pdf", pin) // a SkillSource: skill.Archive(..., WithFingerprint(pin.Commit), WithSubpath("skills/pdf"))
//
// # Source forms
//
//  1. OWNER/REPO, OWNER/REPO/PATH, either followed by @REF: REF is a branch,
//     a tag, a commit id or a version range (rule 15), and runs from the
//     first "@" to the end, so it may hold "/" (owner@v1 is not a ref:
//     owners and repository names never hold "@"). Without @REF the repository's default branch is used.
//  2. https://github.com/OWNER/REPO, with an optional ".git", and
//     https://github.com/OWNER/REPO/tree/REF/PATH as GitHub's web pages
//     show it. A web address cannot tell where a ref holding "/" ends and
//     the path begins, so [Client.Resolve] tries the shortest ref first and
//     moves one element of the path into the ref each time GitHub answers
//     that no such ref exists. Other pages (blob, commits) are refused;
//     other hosts are read as rule 15 says.
//  3. OWNER and REPO are ASCII letters, digits, ".", "-" and "_", start with
//     a letter or a digit and have at most 100 bytes; PATH is a relative
//     slash-separated path without empty, "." or ".." elements, backslashes,
//     colons or control characters; REF has no control characters, spaces,
//     "~", "^", ":", "?", "*", "[", "\\", "..", "@{" or "//", does not start
//     with "-" or "/" and does not end with "/", "." or ".lock" (the rules of
//     git check-ref-format). [source.ErrInvalid] says which part is wrong.
//
// # Talking to GitHub
//
//  4. The API address is [WithAPIURL], else $GITHUB_API_URL, else
//     https://api.github.com. It must be https, or http on a loopback
//     address, without a user, query or fragment.
//  5. Resolve asks GET {api}/repos/{owner}/{repo}/commits/{ref} (HEAD
//     without a ref) with Accept: application/vnd.github.sha and accepts
//     only a 40 or 64 hex digit commit id as the answer.
//  6. The archive is GET {api}/repos/{owner}/{repo}/tarball/{commit}; its
//     redirects are followed (at most 10), to https, or http on a loopback
//     address.
//  7. The token is [WithToken], else $GITHUB_TOKEN, else $GH_TOKEN. It is
//     sent as "Authorization: Bearer TOKEN" only to the API address's
//     scheme, host and port: never to a redirect target elsewhere (the
//     archive host), whatever the HTTP client does. It never appears in an
//     error (text GitHub answers is cleaned of it), in [Source.String],
//     [Pin.String] or in a skill's source. Errors name the environment
//     variable it came from, never its value; a redirect target's query (a
//     signed download address) is left out of errors too.
//
// # The archive
//
//  8. The tarball must be a gzip-compressed tar whose entries all sit in one
//     top folder; that folder is removed, and only the entries under the
//     pinned PATH are passed on, as an uncompressed tar (format
//     [skill.FormatTar]) with the names the repository has. The default
//     materializer then applies every rule and limit of package skill to
//     it: names, file types, links, sizes, entry count. A commit without
//     the pinned folder fails with [source.ErrNotFound] (Resolve does not look for
//     the folder, which would cost another request of the rate limit).
//  9. Files keep only their executable bit (0755 or 0644), folders are
//     0755; times and owners are dropped, so the same commit always gives
//     the same bytes (and hits the materializer's memo). Files, folders and
//     links pass; any other entry type fails with [skill.ErrArchiveUnsafe].
//  10. When the archive states its commit (the pax global header GitHub
//     writes), it must be the pinned one, or the archive fails with
//     [skill.ErrArchiveFormat].
//  11. The download is bounded before the materializer sees it: at most
//     [WithMaxDownloadSize] compressed bytes and [WithMaxExpandedSize]
//     bytes out of the decompressor (entries outside PATH included); a
//     stream over either fails with [skill.ErrArchiveLimit]. A corrupt
//     stream, data after the tar end other than zeros, or a bad gzip
//     checksum fails with [skill.ErrArchiveFormat].
//  12. A failed or refused download leaves nothing in the skill cache: the
//     materializer publishes only a tree that passed every check.
//
// # Errors
//
//  13. An unknown repository, ref, commit or folder wraps [source.ErrNotFound]; a
//     rate limit is a [*RateLimitError] (wrapping [source.ErrRateLimited]) that
//     says when the limit resets and, without a token, how to pass one;
//     401 and 403 answers wrap [source.ErrAuthRequired] and say how to pass a
//     token, or that the one given was refused. Every error names the
//     repository and what was asked of it.
//
// # Signed commits
//
//  14. [Client.VerifyCommit] (and [Remote.VerifyCommit], the
//     [source.CommitVerifier] package install calls when a policy requires
//     signed commits) asks GET {api}/repos/{owner}/{repo}/git/commits/{commit}
//     (an answer of at most 16 MiB) and reads only its
//     verification.payload, the text that was signed, and
//     verification.signature: GitHub's own verified flag and reason are
//     not used. The commit object is rebuilt as git writes it, the
//     signature in a gpgsig header whose further lines are indented by
//     one space, at the end of the header (where git commit -S puts it;
//     the other places between header lines are tried too), and taken
//     only when it hashes to the pinned commit: a text or a signature
//     that is not the commit's is refused with
//     [source.ErrCommitSignature]. The system git (on PATH) then writes
//     it into a temporary repository with git hash-object, which must
//     give the same id, and checks it with git verify-commit, as package
//     git's rules 14 to 16 say: the keys, the signer returned, the
//     refusals (a commit without a signature is refused) and what gpg
//     and ssh-keygen need, on Linux, macOS and Windows.
//
// # Versions
//
//  15. A ref written as a version range (package source/version, rule 1:
//     it holds "^", "~", "*", "<", ">", "=", "|", "," or a space, as in
//     OWNER/REPO@^1.2, OWNER/REPO/PATH@~1.2, OWNER/REPO@>=1.0 <2 or
//     https://github.com/OWNER/REPO/tree/^1.2/PATH) is checked as a range
//     instead of by rule 3, and [Client.Resolve] lists the repository's
//     tags, once per call, through GET {api}/repos/{owner}/{repo}/tags
//     (100 a page, page after page until one holds fewer, with the token
//     and client of every other call; [Client.Tags]), picks the highest
//     tag the range admits and pins the commit that tag names; no other
//     request is made. [Pin.Version] is that tag. A ref that is no
//     range means the branch, tag or commit of that name as before, so
//     @v1.2.3 is the tag v1.2.3 and @1.x a branch: write ^1 for the
//     versions 1.x.y. A repository with no tag the range admits fails
//     with [source.ErrNotFound] naming the range and the highest tags; one
//     with more than version.MaxTags tags, or an answer that is not a
//     tag listing (not JSON, a page over 4 MiB, a tag without a commit
//     id), fails. [Remote] implements [source.Versioned].
//
// # GitHub Enterprise Server
//
//  16. https://HOST/OWNER/REPO/tree/REF[/PATH] on a host other than
//     github.com is read as a repository of the GitHub Enterprise Server
//     at HOST (Source.Host): /tree/ is GitHub's own page form (GitLab
//     writes /-/tree/, Gitea and Bitbucket /src/).
//     https://HOST/OWNER/REPO[.git], which any git host's page could be,
//     is read as one only when HOST is the host $GH_HOST names (the
//     GitHub CLI's variable for the user's GitHub host); otherwise Parse
//     refuses it (package git reads the .git form as a git repository,
//     over https with git's own credentials). The host is
//     never asked whether it is GitHub: Parse is a function of the text
//     and GH_HOST, so a policy is checked (package install) before any
//     request, and a host that is not GitHub is never sent a token.
//     Hosts under github.com and the public git hosts of package git
//     ([git.KnownHost]: gitlab.com, codeberg.org, gitea.com,
//     bitbucket.org) are refused. The API of HOST is https://HOST/api/v3
//     ([EnterpriseAPIURL]; https://api.HOST for a HOST under ghe.com),
//     through which the ref is resolved and the tarball downloaded, as
//     rules 5 and 6 say. [NewRemote] reads such a source with a client of
//     its host ([WithHost]); a [Client] of another host refuses it with
//     [source.ErrInvalid], and so does a client of an Enterprise host a
//     source of github.com. A trust policy sees it as kind "git" at
//     HOST/OWNER/REPO ([Source.Origin]), as its git+https address
//     gives: a github: pattern means github.com and never matches it. An
//     Enterprise repository may also be named in the first form, with
//     the API address in GITHUB_API_URL or [WithAPIURL] (as GitHub
//     Actions on an Enterprise Server sets it); rule 7 then applies, and
//     a trust policy sees it as that host's repository too, kind "git" at
//     HOST/OWNER/REPO ([Source.Origin], [SkillSource.Origin]),
//     HOST being the API's ([APIHost]: https://HOST/api/v3 and
//     https://api.HOST under ghe.com are HOST; api.github.com is
//     github.com), so that github:OWNER/*, which means github.com, does
//     not match it.
//     GH_HOST does not change what OWNER/REPO names (the npm skills tool
//     reads it so): a bare OWNER/REPO typed for github.com never reaches
//     another host because of a variable set for another tool.
//  17. The token of an Enterprise host (rule 16) is [WithToken], else,
//     when $GH_HOST names that host, $GH_ENTERPRISE_TOKEN, else
//     $GITHUB_ENTERPRISE_TOKEN, the GitHub CLI's variables in its order;
//     a /tree/ address of any other host, which a lock file or a page
//     someone else wrote may hold, is read without a token, so that the
//     user's token goes only to the host the user named; GITHUB_TOKEN and GH_TOKEN, which are
//     github.com's, are never sent to it, and an Enterprise token is
//     never sent to github.com. It is sent only to the host's API
//     address, and never written or shown, as rule 7 says. A user of
//     several Enterprise hosts gives each its client's WithToken.
//
// What holds on Linux holds on macOS and Windows: nothing here depends
// on the system.
//
// # Searching
//
//  18. [Client.SearchRepositories] and [Client.SearchCode] ask GET
//     {api}/search/repositories and {api}/search/code with q (GitHub's
//     search syntax) and per_page=100 (or the limit when smaller), with
//     the token as rule 7 says, and follow the Link header's rel="next"
//     page on the API's origin only, until the limit (at most
//     [MaxSearchResults]), a short page or the last one. A page is read
//     up to 4 MiB; a larger one, or one that is not search JSON, is
//     [source.ErrNotServer]. Entries whose owner, repository or path
//     break rule 3 are left out. A rate limit is a [*RateLimitError]
//     (its Repo empty), a 422 (a query GitHub refuses) is
//     [source.ErrInvalid], 401 and 403 [source.ErrAuthRequired]. Code
//     search needs a token on GitHub: without one SearchCode sends
//     nothing and fails with [source.ErrAuthRequired], saying to set one.
//
// [NewRemote] gives a source the shape of [source.Remote], in which
// package install uses every published source. Errors use the sentinels
// of package source ([source.ErrInvalid] and the others), as its prefix
// rule says.
//
// A [Client] is safe for concurrent use; it holds no state but its
// configuration. A [Remote] is for one caller at a time.
package github
