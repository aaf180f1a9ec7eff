// Package policy reads the trust policy that add, sync, run, verify and
// the SDK (through package trust) enforce: which sources are allowed,
// whether they must be pinned, who must have signed them, the audit
// threshold and the findings accepted. A user-level policy
// (~/.agents/agentskills.policy.yaml) and a project's
// (<project>/.agents/agentskills.policy.yaml, beside the lock) both
// apply; the project's can only tighten the user's.
//
// A policy file is written by hand, by a person or a security team, and
// read strictly: a mistake is an error naming the file and line, never a
// rule quietly ignored.
//
// # An example
//
//	version: 1
//	sources:
//	  allow:                      # a source must match one (absent: all allowed)
//	    - github:anthropics/*
//	    - github:acme/**
//	    - git:git.acme.corp/skills/*
//	    - oci:ghcr.io/acme/*
//	    - url:https://skills.acme.corp/*
//	    - local:~/work/skills/**
//	  pinned: true                # published sources must name their version
//	signers:
//	  - sources: [oci:ghcr.io/acme/*]
//	    keys: [keys/acme-release.pub]   # relative to this file's folder
//	  - sources: [oci:ghcr.io/acme/*]
//	    identity_regexp: ^https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/.*
//	    issuer: https://token.actions.githubusercontent.com
//	  - sources: [git:git.acme.corp/**, github:acme/*]
//	    commits: {allowed_signers: allowed_signers}
//	audit:
//	  fail_on: high
//	  accept:
//	    - rule: download-exec
//	      skill: setup-helper
//	      source: github:acme/tools
//	      reason: installs our own CLI
//
// # The file
//
//  1. A policy file is YAML, at most [MaxFileSize] bytes, one document. It
//     says version: 1; a file without it, or with another version, is
//     refused. Keys are those below, and only those: an unknown key (a
//     typo such as "pinnd") is an error naming the file and line. YAML
//     anchors and aliases are refused (a policy needs none, and an alias
//     can multiply a small file into a huge one). A string holds no
//     control character but a line break, and no invisible formatting
//     character (a bidirectional override, a zero-width space): a policy's
//     words are shown on terminals. Every error wraps
//     [ErrInvalid] and reads FILE:LINE: WHAT, saying what to write instead.
//  2. sources.allow is a list of patterns (rule 3). A source is allowed by
//     the file when it matches one of them. Without sources.allow every
//     source is allowed; an empty list (allow: []) allows none.
//  3. A pattern is KIND:LOCATION, KIND one of github, git, oci, url,
//     local, and matches a [source.Origin] of that kind whose Location it
//     matches. LOCATION is split at "/" into elements, and so is the
//     source's Location; each element is matched with [path.Match] (*
//     matches any run of characters within one element, ? one character,
//     [a-z] a class), except that an element ** matches any number of
//     elements, none included. So github:acme/* and github:acme/** both
//     match every repository of acme (a github location is OWNER/REPO
//     only: a folder in a repository is not part of it);
//     oci:ghcr.io/acme/* matches ghcr.io/acme/skills but not
//     ghcr.io/acme/team/skills. ** must be a whole element. A github
//     pattern (after its host, if it names one) names OWNER/REPO: at
//     least two elements unless one is ** (github:acme/*, not
//     github:acme), and at most two besides ** (github:acme/tools/**, not
//     github:acme/tools/skills/*, which could match no location and is
//     an error naming its line). A git pattern's last element loses a
//     .git suffix as a location's does, wildcard or not:
//     git:git.acme.corp/team/*.git is git:git.acme.corp/team/*. A
//     pattern's location is
//     made canonical as a source's is (rule 15) when the file is read:
//     oci:GHCR.IO:443/acme/* is oci:ghcr.io/acme/*, and one that cannot
//     be (oci:ghcr.io:0/acme/*) is an error naming its line. github:
//     means github.com; a pattern for another GitHub host names it
//     first, github:HOST/OWNER/REPO (a first element that holds a "." or
//     a ":", or is localhost, is a host), and stands for
//     git:HOST/OWNER/REPO, the location such a repository has (rule 15).
//     Conversely a git pattern on github.com is a github pattern:
//     git:github.com/acme/* is github:acme/*, as a git location on
//     github.com is a github one (rule 15); and a git pattern whose host
//     is a wildcard (git:*.com/**, git:**) matches a github source at its
//     git location, github.com/OWNER/REPO. GitHub names, hosts and URL schemes match whatever their case, as
//     GitHub and DNS treat them; sources.allow and audit.accept match
//     the rest of a location case for case, and a signers rule applies
//     whatever the case of the rest, so that no spelling in another case
//     escapes a signer or commit requirement. A url pattern is the
//     URL, scheme included (url:https://skills.acme.corp/*), matched
//     against the canonical URL, which always has a path (at least "/")
//     before its query and writes the query's slashes as %2F (rule 15),
//     so no query text is a host or path element: url:https://*.acme.corp/*
//     does not match https://evil.example?.acme.corp/x.tgz, which is
//     https://evil.example/?.acme.corp%2Fx.tgz. A local
//     pattern is an absolute path, a path starting with ~/ (the home the
//     policy is loaded for), or a path relative to the policy file's
//     folder; it is cleaned and compared with slashes, also on Windows.
//     A local pattern, and a git pattern for the local disk (git:/...),
//     is resolved through links when the file is read, as the sources
//     are (rule 15): the longest leading run of elements without a
//     wildcard that exists is replaced by its real path, and the rest is
//     kept as written. So git:/srv/repos/acme/* where /srv is a link to
//     /data/srv is git:/data/srv/repos/acme/*, and matches the
//     repository file:///srv/repos/acme/tools, whose location is
//     /data/srv/repos/acme/tools, as it matches one named through any
//     other link to it; on macOS a pattern under /tmp or /var is one
//     under /private. A wildcard character in the real path matches
//     itself alone. A folder created or a link changed after the file is
//     read is not seen until it is read again.
//  4. sources.pinned: true requires every published source (github, git,
//     oci, url) to name an immutable version: a commit, a manifest
//     digest, a URL's #sha256=. Local and inline sources are not
//     published and need no pin.
//  5. An inline source (an SDK skill with no location: embedded, inline,
//     from a catalogue) is part of the program that carries it; no
//     pattern names it and sources.allow does not refuse it. A source
//     that comes from somewhere but does not say where (kind "unknown":
//     an SDK archive skill without an origin, or a source whose location
//     cannot be made canonical, rule 15) is not inline: no pattern
//     matches it and no rule can be known not to apply to it, so it is
//     refused by a file with sources.allow, sources.pinned: true or any
//     signers rule, with a reason saying how to give it an origin;
//     without such rules it is allowed and needs no pin or signer.
//  6. signers is a list of rules, each with sources (a list of patterns,
//     required) and who must have signed what they match. Every rule
//     whose sources match a source applies to it, and every rule that
//     applies must be satisfied; a rule is satisfied by a signature of
//     any one of the signers it names. A signer is a key (keys: a list of
//     PEM public keys, as cosign writes cosign.pub: each a file or the PEM
//     text itself), or a certificate identity and issuer checked as
//     cosign checks them (identity or identity_regexp, and issuer or
//     issuer_regexp, both required; regular expressions in Go's syntax,
//     which must compile) against trusted_root (a trusted_root.json;
//     absent: Sigstore's public-good root). An identity_regexp or
//     issuer_regexp must match the whole value, as if written
//     ^(?:EXPR)$ (package signature's rule 4): alice@example\.com
//     matches alice@example.com and not evil-alice@example.com.attacker.
//     That is stricter than cosign, which matches an expression anywhere
//     in the value; a prefix needs .* at its end. Keys and identities are
//     signatures of OCI artifacts, so such a rule names oci sources only.
//  7. A signers rule with commits (allowed_signers: an SSH allowed-signers
//     file as git's gpg.ssh.allowedSignersFile reads it, and/or
//     gpg_keyring: a GPG keyring) requires the pinned commit of a git or
//     GitHub source to be signed by one of their keys, and names git and
//     github sources only. A rule has commits, or keys and identities,
//     not both.
//  8. A file a rule names (a key, a trusted root, an allowed-signers file,
//     a keyring) is an absolute path, a path starting with ~/, or a path
//     relative to the policy file's folder (never to the working folder):
//     keys/release.pub in ~/.agents/agentskills.policy.yaml is
//     ~/.agents/keys/release.pub. It must be a regular file; keys and
//     trusted roots are read when the policy is loaded (at most
//     [MaxFileSize] bytes each), so a missing or unreadable one is an
//     error naming the policy's line, and a key package signature would
//     not verify with (not ECDSA P-256, P-384 or P-521, nor Ed25519) is
//     refused there, in package signature's words. A trusted root's
//     signer names its file ([Signer].TrustedRootFile), which package
//     install's lock file records.
//  9. audit.fail_on is a severity (info, low, medium, high, critical): a
//     skill with an audit finding at or above it is refused, unless the
//     finding is accepted. A file that does not say refuses at high.
//  10. audit.accept is a list of accepted findings: rule (the id of one of
//     [audit.Rules], required; another is an error, so a typo never
//     accepts nothing quietly), skill (a skill's name, or a pattern of [path.Match];
//     absent: any skill), source (a pattern as in rule 3; absent: any
//     source) and reason (required: why it is accepted, for the next
//     reader). A finding is accepted by the file when an entry matches
//     its rule, its skill and its source.
//
// # Two files
//
// [Load] reads the user's file (~/.agents/agentskills.policy.yaml under
// the home it is given) and the project's (.agents/agentskills.policy.yaml
// under the project root). There is no environment variable that moves
// or disables them: whoever could set one could as well change HOME, and
// a policy that a variable switches off is no policy. A missing file has
// no rules; with neither file every source is allowed, none needs a
// signer, and the audit refuses at high. A missing user's file stands
// for the default policy (fail_on high, accepts nothing), so a project's
// file alone is combined with the default as with a user's file. The
// project's can only tighten the user's:
//
//  11. A source must be allowed by both files' sources.allow.
//  12. It must be pinned if either file says sources.pinned: true.
//  13. The signers rules of both files apply (rule 6), and so do their
//     commits rules: a project can add a signer requirement, never remove
//     or widen one of the user's.
//  14. [Policy.FailOn] is the stricter (lower) of the two thresholds. A
//     finding refuses a skill when some file refuses it: its severity
//     reaches that file's fail_on (high when the file does not say) and
//     that file does not accept it. So a finding is accepted only if
//     every file whose threshold it reaches accepts it: a project cannot
//     accept what the user's policy refuses, and the user's acceptance
//     does not lift a project's stricter threshold. With no user's file
//     the default refuses every finding at high or above, which no
//     project can accept: a cloned repository's policy accepting
//     reverse-shell lets nothing through. A project's acceptance counts
//     only below the user's threshold (or the default's), or where the
//     user's file accepts the finding too.
//  16. What a project records is the project's word, not the user's: a
//     finding that the user's own file refuses ([Policy.UserRefusal]:
//     its threshold reached, not accepted there) is lifted only by that
//     file's audit.accept or by the user naming the rule on the command
//     line (--allow-risk), never by a project's lock file recording it as
//     allowed (package install, Trust rule 5). Without a user's file the
//     default is not the user's word, and a recorded allowance stands.
//
// # Files that extend others
//
// A team publishes a policy once and every project and user builds on it:
//
//	version: 1
//	extends: "git+https://git.example.com/acme/agent-policy#ref=v3&path=agentskills.policy.yaml"
//	sources:
//	  allow: [github:acme/tools]   # narrower than the team's
//
// What extends names, how it is read and how the files combine:
//
//  18. extends names one source: a git source (git+URL, whose path= may
//     name the file itself), a GitHub one (github:OWNER/REPO/PATH@REF, PATH the file or its folder),
//     an oci:// artifact (the file agentskills.policy.yaml at its root)
//     or an https:// URL of the file with #sha256=. The file extended
//     may extend another: a chain, of at most [MaxExtends] files besides
//     the first; a source the chain holds already (a cycle) is an error
//     naming the extends line, and so is a chain longer. [Load] and
//     [Parse] refuse a file that extends (they fetch nothing: this
//     package opens no connection); [LoadWith] is given the fetcher
//     ([LoadOptions].Extends), package install's LoadPolicy for the
//     program. An error fetching or reading a file extended names the
//     extends line that led to it.
//  19. The fetcher pins what it fetches, verifies it and keeps it (package
//     install, # Policies that extend others): the file a source names is
//     checked against the user's word ([ExtendsRequest].Trust: its
//     sources.allow and sources.pinned, its signers rules for an oci
//     source, its commits rules for a git or GitHub one), which is, for a
//     file of the user's chain, the part of that chain loaded so far (the
//     user's file, then each file it extends in turn), and for a file of
//     the project's chain, the user's whole chain: a user whose file
//     extends a company file that limits sources limits what a cloned
//     project's extends may fetch, as it limits what add installs. The
//     user's chain is loaded first. A source's credentials (a URL's user
//     information) are shown nowhere: not in SOURCE@PIN, a message, a
//     [Layer] or an [Entry]. It is pinned in the
//     lock file beside the policy (the project's agentskills.lock for the
//     project's chain, the user's ~/.agents/agentskills.lock for the
//     user's), and read from the cache by its digest afterwards, offline.
//  20. A file fetched has no folder: a key, trusted root or
//     allowed-signers file it names, and a local pattern, is absolute or
//     under ~/ (a key may be written inline as PEM); a relative one is an
//     error naming its line. Its rules are located SOURCE@PIN:LINE.
//  21. A file can only tighten what it extends: the rules of every file of
//     a chain apply as the user's and the project's do (rules 11 to 14),
//     the file extended taking the user's place. So a rule that would
//     loosen has no effect: sources.pinned: false under a file that says
//     true, a higher audit.fail_on, a sources.allow pattern the extended
//     file's patterns do not cover, an audit.accept entry for a rule the
//     extended file refuses and does not accept. Such a rule is not an
//     error (the extended file may tighten later, and a project must not
//     stop working when it does), but [Policy.Loosenings] lists it, with
//     the rule that holds instead, and `agentskills policy show` and
//     `policy check` print it as a warning. Whether a pattern covers
//     another is told by matching its text, each wildcard of the narrower
//     one matched only by * or **: it errs towards a warning. The files
//     of the user's chain are the user's word (rule 16), those of the
//     project's chain the project's. A file that extends another and
//     does not say audit.fail_on sets no threshold of its own (not the
//     default of rule 9): the file its chain extends last keeps the
//     default when it does not say either, and an audit.accept of a file
//     extended, for a finding under a threshold said nowhere else, takes
//     effect.
//  22. [Policy.Layers] lists the files, each with its chain (the file
//     loaded, then each file extended) and, for a fetched one, its source,
//     pin and digest; [Policy.Entries] lists every rule of every file
//     (its required entries too) with its file, line and chain: what
//     `agentskills policy show` prints. An entry's value is on one line:
//     one holding a control character (a newline, a terminal escape) is
//     quoted with Go's escapes, so that it cannot pass for another line.
//
// A refusal is a [*DeniedError] (wrapping [ErrDenied]) that names the
// rule, the file and line that said it, and what the user can do.
//
// # Sources
//
// A caller turns what it installs or mounts into a [source.Origin]: package
// install maps every source syntax it reads, the SDK each skill's origin
// (source.OriginOf). source.ParseOrigin reads the policy's own notation
// (KIND:LOCATION), which `agentskills policy check` takes beside every
// source add takes. This package only matches origins; it parses none.
//
//  15. Every rule (sources.allow, sources.pinned, signers with keys or
//     identities, signers with commits, audit.accept) is matched against
//     the source's canonical location, made by the functions of package
//     source (its rules 9 to 15) for the installer, the SDK's origins and
//     this package alike; [Policy.Check], [Policy.SignerRules],
//     [Policy.CommitRules] and [Policy.Accepted] make a [source.Origin]'s
//     location canonical again, whoever built it. Every rule kind fails
//     closed on a location it cannot make canonical: such a source is of
//     kind "unknown" (rule 5), which sources.allow, sources.pinned and
//     any signers rule refuse with a reason saying why, and for which
//     [Policy.SignerRules] returns an error; package install refuses it
//     whatever the policy says.
//  17. The signers a rule accepts ([SignerRule], [Signer]) are plain data:
//     the caller that verifies turns them into package signature's terms
//     (package trust's Checker does), so reading a policy links no
//     Sigstore code. [Policy.Signers] lists every signers rule with its
//     patterns, canonical, for a caller that writes the rules in another
//     form (package policy/admission: an admission policy for a cluster).
//
// The canonical location of each kind of source, and the spellings that
// map to it (package source (# Canonical locations), rules 9 to 15, says
// every step):
//
//	kind    canonical location          spellings that map to it
//	oci     HOST/REPO                   oci://GHCR.IO:443/acme/x:1, oci://ghcr.io:0443/acme/x@sha256:...,
//	        (ghcr.io/acme/x)            oci://ghcr.io./acme/x:1; on loopback :80 is the default
//	                                    (localhost:80/x is localhost/x); a non-ASCII host in punycode
//	git     HOST/PATH                   git+https://Git.Acme.Corp:443/team/x.git/, git+ssh://git@git.acme.corp:022/team//x,
//	        (git.acme.corp/team/x)      git://git.acme.corp:9418/team/x, https://git.acme.corp/team/x.git;
//	                                    the path in lower case on github.com, gitlab.com, codeberg.org,
//	                                    bitbucket.org, gitea.com
//	git     /PATH (a file URL), its     git+file:///srv/repos//acme/x/, git+file://localhost/srv/repos/acme/x.git,
//	        real path, links resolved   git+file:///proc/self/root/srv/repos/acme/x, a path through any
//	        (/srv/repos/acme/x)         link to the folder; a git:/... pattern is resolved too (rule 3)
//	git     HOST/OWNER/REPO, another    https://GHE.acme.corp/Acme/X/tree/main, github:acme/x with
//	        GitHub host                 GITHUB_API_URL=https://ghe.acme.corp/api/v3 (and the pattern
//	        (ghe.acme.corp/acme/x)      github:ghe.acme.corp/acme/x)
//	github  OWNER/REPO, github.com      acme/x, github:Acme/X@v1, https://github.com/acme/x/tree/main/skills,
//	        (acme/x)                    github:github.com/acme/x (a pattern); every git address on
//	                                    github.com or www.github.com: git+https://github.com/acme/x,
//	                                    git+ssh://git@github.com/Acme/X.GIT, https://GitHub.com:443/acme/x.git/,
//	                                    and git:github.com/acme/x (a source or pattern)
//	url     SCHEME://HOST/PATH?QUERY    HTTPS://Skills.Acme.Corp:443/kit.tgz#sha256=...,
//	        (https://skills.acme.corp/kit.tgz)  https://user@skills.acme.corp/kit.tgz;
//	        (https://a.example/?x=a%2Fb)        https://a.example?x=a/b: a path, at least "/",
//	                                    before the query, whose slashes are %2F
//	local   an absolute, cleaned path,  ./skills/x, skills/../skills/x, local:skills/x, a path through a
//	        its real path, links        link to the folder (on macOS /tmp/x is /private/tmp/x); a local
//	        resolved                    pattern is resolved too (rule 3)
//
// A location cannot be made canonical, and every rule kind refuses it
// (rule 15), when it has a port that is empty, signed, not decimal or not
// from 1 to 65535 (ghcr.io:65536, ghcr.io:+1, ghcr.io:), user
// information in an oci host, an IPv6 zone, a host IDNA refuses or that
// ends in a number but is no IPv4 address (127.1, 0x7f.1), a path with a
// "." or ".." element (also percent-encoded: %2e%2e), a backslash or an
// encoded slash, or is a file URL with another host than localhost; and
// when it is a GitHub repository (of kind github, or of kind git on
// github.com) whose path is not OWNER/REPO (github:acme/tools/skills,
// https://github.com/acme).
//
// # Required skills
//
// A team's policy can name skills every project under it must have:
//
//	required:
//	  - source: github:acme/skills/changelog@^1
//	    agents: [claude-code, codex]        # absent: the agents the project installs for
//	    reason: every project keeps a changelog
//	  - source: git+https://git.acme.corp/skills.git#ref=~2.1&path=review
//
// [Policy.Required] returns them; package install enforces them (its
// # Required skills): verify fails naming each one missing or out of
// range, sync installs them, remove refuses to remove one, list marks
// them.
//
//  18. required is a list of entries, each with source (required), agents
//     and reason (both optional: a reason is for the next reader, and a
//     requirement is enforced whether it says why or not). source is a
//     published source as add takes it, named by its repository:
//     github:OWNER/REPO[/PATH][@REF] (with the prefix: a bare
//     OWNER/REPO could be a folder), git+URL[#ref=REF&path=PATH] or
//     oci://HOST/REPO[:REF]. A folder, an archive file or a URL is
//     refused: it is not the same on every machine, and names no version.
//     Its kind, its form (OWNER/REPO, a URL, HOST/REPO) and its
//     reference (rule 19) are checked when the file is read, and an error
//     names the line; the rest is read by the kind's package where the
//     source is used (package install), whose error names the line too.
//     One file names a
//     source once (two entries with the same text are an error); the
//     policy's other rules (sources.allow, signers, the audit) apply to a
//     required source as to any other when it is installed.
//  19. The reference of a required source says which versions meet it:
//     none, any version; a version range (package source/version, rules
//     1 and 2: ^1, ~1.2, >=1.0 <2), a version the range admits; a
//     version (v1.2.3), that version. A branch, a commit or a digest is
//     refused: a requirement names the versions it accepts, and what a
//     branch holds changes. [Requirement.Admits] reports whether a
//     version meets it.
//  20. agents is a list of agent IDs as add takes them (an unknown one is
//     an error naming its line): the skill must be installed for each.
//     Without agents the skill must be installed, for the agents the
//     project installs for.
//  21. The entries of both files apply (a project adds requirements to
//     the user's, and removes none): when both files name one source,
//     both entries must be met, each with its own reference and agents.
//     They are required of projects: the user's own skills folders are
//     not a project, and nothing is required there.
//
// # Platforms
//
// What holds on Linux holds on macOS and Windows: paths in local patterns
// and sources are compared in slash form after cleaning and resolving
// links (rule 3), and the home
// (~) is the one [Load] is given. Matching of local paths is case for
// case everywhere, also where the file system ignores case (macOS,
// Windows): a pattern that differs from the path only in case refuses it,
// which errs on the side of refusing. A [Policy] is not changed after it
// is built and is safe for concurrent use.
package policy
