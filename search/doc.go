// Package search finds published skills: in the web indexes and OCI
// registries a user has configured and on GitHub, in one ranked list
// whose every entry says how to install it.
//
//	cfg, err := search.LoadConfig(home)            // ~/.agents/agentskills.yaml
//	backends, err := cfg.Backends()                // its indexes and registries
//	gh, err := github.New()                        // GITHUB_API_URL, GITHUB_TOKEN
//	backends = append(backends, search.GitHub(gh))
//	res, err := search.Search(ctx, "pdf", backends, search.WithLimit(20))
//	for _, r := range res.Results { fmt.Println(r.Name, r.Install) }
//	for _, w := range res.Warnings { fmt.Println("warning:", w) }
//
// # Where it looks
//
//  1. A [Backend] answers for one place: [Index] for a web index
//     (/.well-known/agent-skills/index.json), [Registry] for an OCI
//     registry (a whole registry, HOST, or one repository, HOST/REPO),
//     [GitHub] for GitHub. Each returns only entries that match the
//     query as it understands it (rule 3).
//  2. [GitHub] asks GitHub's repository search for the query with
//     topic:agent-skills, then, with a token, its code search for the
//     query with filename:SKILL.md (GitHub searches code only for a
//     signed-in user: without a token that half is left out, which
//     agentskills find says, with how to set GITHUB_TOKEN or GH_TOKEN). The API address
//     and the token are those of the github.Client given: $GITHUB_API_URL
//     and $GITHUB_TOKEN or $GH_TOKEN by default, the token sent only to
//     the API. A repository's entry is its name and description; a code
//     hit's is its folder's name (the repository's, for a SKILL.md at the
//     root) and its repository's description.
//  3. [Registry] and [Index] match locally: an entry matches when every
//     word of the query (split at spaces) is in its name, its description
//     or its source, ignoring case. [Registry] reads a registry's catalog
//     (at most 100 repositories, taken in name order whatever order the
//     registry gives), or the one repository named, picks the
//     tag "latest", else the last tag the registry lists, and reads that
//     manifest's annotations (oci.Describe); only manifests in the format
//     agentskills push writes (oci.ArtifactType) are entries, whose source
//     is oci://HOST/REPO:TAG. An index's entries are its skills (those
//     package webindex reads as usable), whose source is the address
//     configured and whose command adds --skill NAME.
//
// # Ranking
//
//  4. Entries are ranked by how the query meets their name, ignoring
//     case: first a name equal to the query, then a name that holds the
//     query, then a name that holds every word of it, then a
//     description that holds the query, then the rest (GitHub's matches
//     on text we do not see: a README, a topic). Ties keep the order of
//     the backends as given (the configured indexes, then registries,
//     then GitHub) and, within one, the backend's own order.
//  5. An entry whose install command was seen already, ranked higher, is
//     left out (GitHub sources compared ignoring case, as GitHub does),
//     so a repository found by both GitHub searches appears once.
//  6. At most [WithLimit] entries are returned (default 20, at most
//     1,000); each backend is asked for that many.
//
// # Bounds and failures
//
//  7. Each backend runs under its own timeout ([WithTimeout], default 20
//     seconds), at most 4 at a time. A backend that fails, or runs out
//     of time, is reported in [Results.Warnings] as a [*BackendError]
//     naming it, and the entries of the others are still returned (and
//     those it found before failing). A GitHub rate limit says when it
//     resets and how to pass a token (github.RateLimitError).
//  8. What backends answer is read with limits: a GitHub search page up
//     to 4 MiB, a registry's catalog and tag pages up to 1 MiB, a
//     manifest up to 4 MiB, a web index as package webindex reads it.
//     An answer over its limit, or malformed, fails that backend only.
//  9. Names and descriptions come from others: a description is cut to
//     1,024 characters, and both are returned as they are otherwise;
//     a caller that prints them on a terminal escapes control
//     characters (agentskills find does).
//  10. The query has 1 to 256 bytes and no control characters; another
//     is [ErrInvalidQuery], and nothing is sent.
//
// # What is sent, and to whom
//
//  11. No telemetry, ever: a search sends the query to GitHub (as a
//     search, to the API address configured) and nothing else about it
//     anywhere; indexes and registries are only read, and what is
//     looked for there never leaves the machine. Nothing is written but
//     the manifests oci.Describe keeps in the skill cache.
//
// # The user's configuration
//
//  12. The file is ~/.agents/agentskills.yaml ([ConfigName], beside the
//     user's policy ~/.agents/agentskills.policy.yaml), read by
//     [LoadConfig]; a missing file is an empty configuration. It holds
//     the keys indexes (a list of web index addresses: a site,
//     https://HOST, or the index file itself,
//     https://HOST/.well-known/agent-skills/index.json) and registries (a
//     list of HOST or HOST/REPO), both optional.
//  13. It is read as strictly as a policy file: at most 64 KiB, one YAML
//     document, no anchors or aliases, no unknown or repeated key, every
//     entry a string without control characters; an index address is
//     https (http only on a loopback address) without a user, query or
//     fragment; a registry entry is a valid host (with a port) and
//     repository. A file that breaks a rule is [ErrInvalidConfig], naming
//     the file and the line.
//
// A search holds no state; [Search] and the backends are safe for
// concurrent use. Nothing here depends on the system: what holds on
// Linux holds on macOS and Windows, where the home folder is the user's
// profile folder (os.UserHomeDir).
package search
