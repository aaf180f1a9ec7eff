// Package requirement resolves the requirements of skills that name
// published skills, for an agent that selects a skill with the skills it
// requires (adaptor.WithRequires, skill.WithRequires):
//
//	resolver, err := requirement.New(requirement.WithCache(cache))
//	if err != nil { ... }
//	agent := adaptor.New(drv,
//		adaptor.WithSkillMaterializer(cache),
//		adaptor.WithRequirementResolver(resolver),
//		adaptor.WithSkills(skill.WithRequires(skill.Dir("./skills/release"))),
//	)
//
// A skill lists its requirements in its SKILL.md (metadata.requires,
// package skillmd), each a source as agentskills add takes it. The
// agent resolves those relative to a folder or an fs.FS tree itself
// (package adaptor, "Requirements"); the rest it asks a
// skill.RequirementResolver, such as the [Resolver] of this package. It
// lives apart from package adaptor so that a program that requires no
// published skill links no client of GitHub, git or OCI.
//
// # Rules
//
//  1. A requirement is read by source.Parse (package source, rules 16 to
//     21). github: (or OWNER/REPO[/PATH][@REF] alone, which in a
//     requirement is always GitHub: a path is written ./ or ../), git+
//     URLs and git hosts' web addresses, and oci:// references are
//     resolved; any other kind (an archive URL, a web index, a path that
//     is not relative) fails with source.ErrInvalid, and so does a path
//     relative to a published skill's folder: a published skill names
//     what it requires by published source. The source's kind package
//     reads the rest (oci.ParseReference, git.Parse or git.ParseWeb,
//     github.Parse), and a git URL or GitHub path with a "." or ".."
//     segment (or, for GitHub, an escaped character) fails with
//     source.ErrInvalid, as package install refuses them: the policy is
//     checked against the path as written. Errors show the text without
//     the credentials a URL may hold.
//  2. The reference is resolved to a pin once, when the requirement is
//     resolved: a version range (^1.2, ~1.2, >=1.0 <2; package
//     source/version) to the highest tag it admits, a branch or tag to
//     its commit or manifest digest. The skill's source carries the pin
//     (its Fingerprint), its origin and what checks its signatures, so
//     a trust policy (package trust) checks a required skill as it
//     checks one named by the program.
//  3. A git or GitHub skill's key is the base name of the folder the
//     source names, or the repository's name when it names none; its
//     content is fetched when the agent materializes it.
//  4. An OCI skill is fetched (into the cache of [WithCache]) when it is
//     resolved, and its key is the name the artifact gives it
//     (oci.Artifact.Name).
//  5. A github: source on a GitHub Enterprise Server (a host in the
//     source, as its web address gives) is read by a client of that host
//     (github.New with github.WithHost); every other one by the client
//     of [WithGitHubClient], and its origin is the repository on the
//     GitHub that client reads.
//  6. Errors are those of the source packages (SUBJECT: SENTINEL:
//     DETAIL, with package source's sentinels); the agent adds the chain
//     of skills that asked for the requirement
//     (skill.RequirementError).
//  7. [Resolver.MergeRequirements] (a skill.RequirementMerger) joins
//     requirements of one skill that pick different versions: when each
//     names the same repository and folder (git, GitHub) or repository
//     (OCI) by a version range, the ranges are joined so that a version
//     must satisfy every one (^1 and ~1.2 become "^1, ~1.2"; groups
//     joined by "||" are joined each with each), and the skill is
//     resolved at the highest version the joined range admits. A
//     joined range is held to package source/version's limits. When no
//     version is admitted the error wraps source.ErrNotFound; when one
//     of them names no range (a branch, a tag, a commit, a digest) or
//     another skill, they are not joined and the agent reports a
//     conflict. A range given twice is joined once, and joining stops,
//     failing with source.ErrInvalid, as soon as the joined range would
//     have more than 32 groups or 512 bytes: its work is bounded
//     whatever the ranges.
//  8. A requirement of a git+file:// repository (one of this machine)
//     is resolved only for a skill of this machine: a folder, an inline
//     skill or fs.FS tree, or a skill of a git+file:// repository (its
//     origin, source.OriginOf), or for the program itself (a requirement
//     whose By has no source). A published skill's fails with
//     source.ErrInvalid, as package install's rule 17 refuses it: it
//     would name a repository of whoever runs it.
//  9. Before anything is asked of the network, where a requirement leads
//     (its origin, from the parsed source, pinned as what is returned
//     is) is given to the requirement's CheckOrigin, when it has one (an
//     agent whose materializer is package trust's sets it), with a skill
//     keyed as rule 3 says (an OCI skill by its repository's last
//     element); its error, a refusal, is returned as it is, so a source
//     the policy denies is never contacted. [Resolver.MergeRequirements]
//     checks each requirement so, and the default git client checks the
//     repository a redirect leads to in the same way before it follows
//     it. A client of [WithGitClient] keeps its own redirect check.
package requirement
