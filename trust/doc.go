// Package trust is the one trust engine of the module: it checks where a
// skill comes from against a policy (package policy), who signed it
// (package signature: Sigstore bundles of OCI sources; signed commits of
// git and GitHub sources), and what it does (package audit), and refuses
// it with one error, [*RefusedError]. The SDK and package install use
// the same [Checker]; install adds only what its lock file records (the
// signers it saw first, the risks a project accepted).
//
// The root package links none of this: a program that wants trust gives
// its Agent a materializer that checks,
//
//	checker := trust.NewChecker(p, trust.AllowRisks("download-exec"))
//	agent := adaptor.New(claude.Driver(claude.Config{}),
//		adaptor.WithSkillMaterializer(trust.NewMaterializer(nil, checker)),
//		adaptor.WithSkills(skill.Dir("./skills/review")))
//
// and a program that does not links no policy, signature, audit or
// Sigstore code.
//
// # Rules
//
// A [Materializer] enforces the checker's policy on every skill an Agent's
// run or Inspect selects, before any driver starts:
//
//  1. Every skill has an origin ([source.OriginOf], a [source.Origin]): its
//     source's own, when the source is a [source.OriginSource] (the
//     skills of oci.Artifact.Skill are: kind "oci", pinned to the
//     manifest digest; and those of git's and github's Client.Skill:
//     kind "git" or "github", pinned to the commit); else kind "local"
//     for a folder (skill.Dir), by its absolute path with links resolved
//     (its real path, as a local pattern's is: package source, rule 15);
//     a git skill from a file URL is at its repository's real path too;
//     else kind "inline" for a skill with no location (skill.Inline,
//     skill.FS); else kind "unknown": an archive without an origin
//     (skill.Archive), or a source of another type. No pattern matches an
//     unknown source, so a policy with sources.allow, sources.pinned or
//     a signers rule refuses it, saying how to give it an origin (rule 5
//     of package policy). An origin's location is canonical (rule 15 of
//     package policy: oci://ghcr.io:0443/acme/x is ghcr.io/acme/x), and
//     the policy makes it canonical again whoever built it, so every
//     rule applies to every spelling of its sources; one that cannot be
//     made canonical is refused as an unknown source is.
//  2. Policy first: the policy checks the origin ([Checker.Check]:
//     the sources it allows, whether they must be pinned) before the
//     skill is materialized or a source is read, so nothing is fetched
//     or written for a refused one. [Materializer.CheckOrigin] is this
//     check alone: an Agent that resolves requirements hands it to its
//     resolver (skill.Requirement.CheckOrigin), which checks where a
//     requirement leads before it contacts that source.
//  3. Signatures: when the policy names signers for the origin
//     (policy.Policy.SignerRules), or the checker requires signers of an
//     OCI source ([RequireSigners], checked first, as a rule of the
//     policy's is), the source must carry signatures
//     (a [SignatureVerifier], or a [source.Signed] such as the skills of
//     package source/oci, whose bundles package signature verifies:
//     [SignatureVerifierOf]) and
//     a signature of its pin must satisfy every one of the rules; a source that carries no signature is
//     refused with source.ErrUnsigned. When the policy names signed
//     commits for the origin (policy.Policy.CommitRules, a git or github
//     source), the source must implement source.CommitVerifier and its
//     pinned commit must be signed by a key of every such rule; a source
//     with no commit to check is refused with source.ErrCommitSignature.
//     Both verifiers take the pin (a [source.PinnedSource] gives a skill
//     source's), and verify it before the skill is materialized, so
//     nothing of a refused one is fetched or written.
//  4. The audit: the materialized tree is audited (audit.Tree; a
//     program that audited it as it wrote it, with an audit.Scanner,
//     hands that report over by the tree's content digest instead,
//     [Checker.Remember], and the tree is not read again). A
//     [Materializer] over the skill cache (a *skill.Cache) does so
//     itself: a tree the cache stages for the call is audited from the
//     bytes the cache writes (an audit.Scanner fed as each file is
//     written, used only when the cache published that tree, whole,
//     with the content digest it returns), and only a tree the cache
//     already held, or a folder used in place, is read from disk. A
//     finding at or above the policy's threshold (policy.Policy.FailOn,
//     high by default) refuses the skill, unless the policy accepts it
//     (policy.Policy.Accepted) or its rule is allowed with [AllowRisks]
//     ([Checker.Refusing] is that filter).
//  5. A refusal is a *[RefusedError] (errors.Is [ErrRefused], and
//     policy.ErrDenied, as every refusal is by a rule of the policy; it
//     wraps the *policy.DeniedError when the policy refused the source)
//     that names the skill, its source, the
//     rule, the policy files and, for the audit, every refusing finding
//     with its file and line as the audit keeps them (at most 100 of a
//     rule and 1,000 in all), counting the rest (Refusal.Omitted:
//     "and 31,204 more"). An Agent's run fails with it as it is, and no
//     driver starts.
//  6. Audit findings are remembered by the tree's content digest, and
//     verified signers of a pinned source by its origin and pin, so a
//     warm run neither audits nor verifies again; the reports are kept
//     on disk too, under the skill cache's root (# Kept reports), so a
//     new process does not audit again either. An Agent hands its run's
//     whole selection to [Materializer.MaterializeSet]: rules 1 to 3 for
//     every skill first (a set with a refused skill writes nothing), then
//     the set to the skill cache at once (a warm one is vouched for by
//     the record of the set, package skill's rule 12: a stat of each
//     file, which returns the folder and content digest a full
//     materialization would), then rule 4 for each by its digest, or,
//     for a set whose every tree was audited clean before, for none
//     (# Kept reports, rule 8: an empty report refuses under no policy).
//     The checks themselves, and the policy's verdict on each report
//     with a finding, are made again on every run: only what depends on
//     content alone (the reports, the sets found clean) and a pin's
//     verified signers are remembered.
//  7. Without a checker nothing of this is done: no audit, no check.
//
// A program that reads sources itself checks each with
// [Checker.CheckSource] before it reads it, and verifies the pin it
// reads with the [SourceCheck] that returns, before it downloads the
// content; it audits each skill's tree with [Checker.AuditContent]
// ([Checker.AuditTree] when it has no digest of the tree) and
// words a refusal by the audit with [Checker.AuditRefusal]. Package install does:
// it applies rules 1 to 5 to the sources it adds and syncs, and adds the
// lock file's rules (trust on first use of a signer, the risks a lock
// file records as accepted, which [Checker.LiftRecorded] lets through;
// see # Trust in its doc). The signers its user names are the checker's
// ([RequireSigners]), and the one its lock file records a rule of the
// caller's own of CheckSource, so that signatures are verified in one
// place.
//
// # Kept reports
//
// The audit depends on nothing but a tree's content and the audit's
// rules, so its report is made once per content and rules' version, and
// kept ([RememberReports]; a [Materializer] and package install keep
// them under their skill cache's root, beside its trees,
// [Checker.RememberReportsIn]):
//
//  1. Where: one small JSON file a report, in the folder .audit under
//     the skill cache's root, named by a SHA-256 of audit.RulesVersion
//     and the content digest. The file holds its format, the rules'
//     version, the digest and the raw report (every finding audit.Tree
//     kept, and the counts of those past its caps), and is written whole
//     (internal/atomicfile: a new file renamed over the old), so two
//     processes that keep the same content's report at once leave one
//     whole file. It is not flushed to the disk: a file a crash left
//     damaged is no report (rule 5), and costs an audit.
//  2. The key is the content digest (the cache's and the lock file's, as
//     skill.ContentDigest defines it) and audit.RulesVersion: a change of
//     the rules, or of one byte of the tree, is another key, and the tree
//     is audited again. What the digest leaves out of a tree (its
//     version-control metadata, package skill, rule 10, and special
//     files, which skill.ContentDigest ignores) is left out of the key
//     too, as it is out of every copy of the skill.
//  3. Who writes: only the checker, after a whole audit of a tree whose
//     digest the caller computed from that tree (a [Materializer]'s from
//     the skill cache, [Checker.AuditContent]'s caller from the tree it
//     hands in: install hashes the folder, or takes the digest of the
//     cache's tree it checked), or with a report [Checker.Remember] is
//     handed, made by a caller that audited the tree as it wrote it and
//     computed its digest from the bytes it wrote; never by a digest a
//     record names (a lock file may come from another machine). A report
//     found for a digest is used without opening the tree. The folder is
//     trusted as the skill cache is, and only where the cache would use
//     it (rule 8 of package skill): the root, and its .audit folder when
//     there is one, are folders (not links) of this user that neither
//     its group nor other users may write, under ancestors no other user
//     could replace (internal/cache's checks of a root). Under any other
//     root no report is read or kept, and every tree is audited: a root
//     another user may write would let them plant a clean report for a
//     malicious tree's digest. A root that is there is checked once per
//     checker (no other user can change what the check finds); one that
//     is missing is made, 0700, when the first report is kept.
//  4. What is kept is the raw report; what refuses is decided per call:
//     the policy's threshold, its accepted findings, [AllowRisks] and
//     install's recorded risks filter a kept report as a new one, so a
//     kept report with findings refuses the skill again under a policy
//     that refuses them.
//  5. A file that is missing, not a regular file, larger than 4 MiB,
//     truncated or not JSON, of another format, rules' version or digest,
//     or that names a rule the audit does not have or gives a finding
//     another severity than its rule's, is no report: the tree is audited
//     again, and nothing is said to the user. A report that cannot be
//     written (a read-only cache) costs an audit later, nothing more.
//     The skill cache's GC (agentskills cache gc and cache clear)
//     removes the reports written before its cut-off, as it removes its
//     memos.
//  6. In one process, reports are also remembered in memory (rule 6);
//     [Checker.AuditTree], which is given no digest, neither recalls nor
//     keeps one.
//  7. An index of the reports found empty, the most common by far, saves
//     reading each: for each, the stamp (type and permissions, size,
//     modification and change time, device, inode) its file had when it
//     was read, not racy then (internal/cache's window, as its stat
//     records). A report whose file has that stamp still is empty without
//     being read; one removed, replaced or changed since has another
//     stamp, or none, and is read as rule 5 says, so a finding planted
//     in it refuses, and a report with findings is never indexed. What
//     refuses is still decided per call (rule 4): an empty report refuses
//     under no policy. The index is one record of the skill cache
//     (<root>/.memo, collected by its GC as its memos), keyed by the
//     reports' format and audit.RulesVersion, holding the boot's id (an index of another boot
//     is none, as the reports are written without a flush) and a SHA-256
//     of itself (one cut short or damaged is none). It is kept only where
//     the kept reports lie on a file system whose change times a stamp
//     may stand for, as for package install's stat record (a local one;
//     not NFS, SMB or FUSE, whose stats the server gives and a client
//     may cache): elsewhere every report is read; [Checker.Flush]
//     writes what a checker learnt, and package install calls it at the
//     end of each operation, a [Materializer] at the end of each set it
//     recalled reports of.
//  8. A set of trees whose every report is empty (no finding, none past
//     the caps) is a clean set, remembered, and kept under the skill
//     cache's root, so that a warm run of a set, in this process or a
//     new one, recalls no report of it. Its record (<root>/.memo, one
//     file a set, collected by the cache's GC as its memos) lists the
//     reports' format, audit.RulesVersion and the content digests of
//     the set's trees in its order, with their count last, and is named
//     by its own SHA-256: a [Materializer] that is handed a set's
//     digests by the skill cache (rule 6) builds the record the set
//     would have and uses one found under its name only when it is that
//     record byte for byte, so a record cut short, damaged, of another
//     set, of other rules or of another format is none, and the set's
//     reports are recalled one by one. The record depends on content and
//     the rules alone, not on the policy: an empty report refuses under
//     no policy, threshold, accepted finding or allowed risk (rule 4),
//     and everything else (rules 1 to 3) is checked on every run. So a
//     tree changed by a byte (another digest), a set with a skill more
//     or less, or new rules is another record, and its trees are
//     recalled or audited; a set with a finding, even one the policy
//     accepts or [AllowRisks] lets through, is never recorded clean, and
//     a refused set never is. The record is trusted as the reports are
//     (rule 3): only under a root the skill cache would use, where a
//     writer could plant a clean report as well; under any other it is
//     neither read nor kept. It is written only after every skill of the
//     set was allowed with its reports in hand (rule 3's writers), and a
//     record that cannot be written costs a recall of each report later.
//     The skill cache's store that keeps the index and the clean sets is
//     opened once a checker, on first use, and held for its life.
//
// What holds on Linux holds on macOS and Windows: the audit reads the
// tree through an os.Root, and nothing here depends on the system but
// the check of a kept reports' root (# Kept reports, rule 3), which on
// Windows, where access lists govern and are not checked, accepts every
// folder, as the skill cache does.
package trust
