// Package oci publishes skills to OCI registries and installs them from
// there, pinned to a manifest digest.
//
// A reference is oci://HOST/REPO:TAG, oci://HOST/REPO@sha256:DIGEST, or
// both (oci://HOST/REPO:TAG@sha256:DIGEST, a tag and the digest it was
// pinned to). [Resolve] turns a tag into the digest of the manifest it
// names now, once and explicitly; [Fetch] and [Skill] take only pinned
// references, so what a lock file records is what is installed:
//
//	dgst, err := oci.Resolve(ctx, "oci://ghcr.io/acme/review:1.2")
//	...
//	s, err := oci.Skill(ctx, "oci://ghcr.io/acme/review:1.2@"+dgst)
//	...
//	agent := adaptor.New(drv, adaptor.WithSkills(s))
//
// The skill's source is a [SkillSource]: a [skill.ArchiveSource] over the
// layer, with the manifest digest as its Fingerprint, so the default
// materializer extracts it under every archive rule and limit, and its
// archive memo makes a second run cost a hash; it also says where the
// skill comes from and at which digest, and finds its signatures, for a
// trust policy (package trust).
//
// # The format Push writes
//
// [Push] writes a skill in one of two formats ([WithFormat]): an image,
// by default, which a container runtime pulls and mounts (a Kubernetes
// image volume, podman image mount), or an artifact, this package's
// format before images. Both hold the same layer, and [Fetch] reads both.
//
//  1. The layer is a tar archive compressed with gzip whose root is the
//     skill folder (SKILL.md at the top).
//  2. An image ([FormatImage]) is an OCI image index
//     (application/vnd.oci.image.index.v1+json) over two image manifests,
//     one for linux/amd64 and one for linux/arm64, each named by its
//     platform in the index's descriptor of it. Both manifests list the
//     same one layer, of media type
//     application/vnd.oci.image.layer.v1.tar+gzip; each has its own
//     config (application/vnd.oci.image.config.v1+json) holding its
//     platform's os and architecture, rootfs {"type": "layers",
//     "diff_ids": [D]}, D being the sha256 digest of the uncompressed
//     tar, and the metadata of rule 4 as labels. [Push] returns the
//     index's digest: the pin, and what [Sign] signs.
//  3. The image's layer carries the annotations that make oras (oras
//     pull, oras-go's file store) unpack it into the folder it pulls to:
//     org.opencontainers.image.title "." (that folder itself),
//     io.deis.oras.content.unpack "true" and io.deis.oras.content.digest
//     D. Runtimes ignore a layer's annotations.
//  4. The metadata, as annotations of the index and of every manifest:
//     org.opencontainers.image.title (the skill's name from SKILL.md),
//     org.opencontainers.image.description (its description), when given
//     org.opencontainers.image.version, .source and .revision
//     ([WithVersion], [WithSourceURL], [WithRevision]), and, in an image,
//     [AnnotationSkill] set to [ArtifactType], which tells this package's
//     images from others ([Describe]). No time is recorded.
//  5. An artifact ([FormatArtifact]) is one image-spec 1.1 manifest with
//     artifactType [ArtifactType], the empty config
//     (application/vnd.oci.empty.v1+json, "{}"), one layer of media type
//     [LayerMediaType], and the annotations of rule 4 (without
//     [AnnotationSkill]). No runtime mounts it.
//  6. The layer is packed reproducibly: entries sorted by path, element by
//     element; folders 0755, files 0644, or 0755 when any executable bit is
//     set; times the Unix epoch, owners 0 and unnamed; a gzip header with no
//     name and no time. The same folder and options therefore always give
//     the same layer, config, manifest and index digests, from any path and
//     at any time (with the same Go release, whose compressor this is).
//  7. Only regular files and folders are packed, and a link to a file
//     inside the folder as a copy of it; a link that leads outside, to a
//     folder or nowhere, and any other special file, fails the push. A
//     folder named .git is left out. The skill must load (SKILL.md in
//     skillmd's Lenient mode, without errors), and the packed layer must
//     pass the archive rules of package skill under the limits of the
//     cache given with [WithCache], checked before anything is sent. A
//     format other than the two fails with [source.ErrInvalid] before
//     anything is packed.
//  8. A runtime mounts an image read-only, and a Kubernetes image volume
//     may be mounted noexec: a skill's instructions should run its bundled
//     scripts through their interpreter (bash scripts/x.sh, python3
//     scripts/x.py), not as ./scripts/x.sh, which needs the executable
//     bit and a mount that honours it, and no script may write beside
//     itself. The executable bits are packed all the same.
//
// # What Fetch reads
//
//  1. The reference names a manifest, or an index (an OCI image index or
//     a Docker manifest list) of platform manifests. Manifests and
//     indexes are read up to 4 MiB. An index's entries that build tools
//     add beside the images are left out unread: attestations (the
//     annotation vnd.docker.reference.type, or the platform
//     unknown/unknown). Of the rest, the platform manifests, an index
//     lists at least one and at most 16; a bigger index
//     is refused before any of them is read. An entry that is an index
//     itself (a nested index) is refused; a manifest listed more than
//     once (under two platforms, say) is downloaded once. Whether a
//     document is a manifest or an index is told by the document alone,
//     never by the media type it is served as, so that the registry and
//     the cache give one answer for one pin: its mediaType field when it
//     has one, else its fields (manifests for an index, config or layers
//     for a manifest). A document that holds both manifests and config
//     or layers, one whose mediaType field says the other kind than its
//     fields, and one that the registry serves, an index lists or a
//     tag's HEAD names as the other kind is refused with
//     [source.ErrNoSkill], and not cached: it could be read as either.
//  2. A manifest whose artifactType (else its config's media type) is
//     [ArtifactType], with the empty config, is this package's artifact
//     format: it has one layer of [LayerMediaType], a tar+gzip archive
//     holding SKILL.md at its root.
//  3. An image manifest (its config an image config,
//     application/vnd.oci.image.config.v1+json or Docker's, or the empty
//     config; no artifact type, or [ArtifactType], or ToolHive's
//     dev.toolhive.skills.v1 of rule 9) has exactly one layer. The
//     layer's bytes decide how it is read, not its media type: a
//     tar+gzip archive or a plain tar archive is read; tar+zstd is
//     refused (a layer whose media type says +zstd before it is
//     downloaded, zstd bytes once they are), since the extractor does
//     not decompress zstd, and so is anything else. The layer holds
//     exactly one skill tree: a folder with a SKILL.md, at the root or
//     up to 5 folders deep, that no other such folder holds; that folder
//     is the skill ([Artifact.Subpath]). An image whose artifactType is
//     [ArtifactType], or that [AnnotationSkill] marks (an image [Push]
//     writes), holds SKILL.md at the layer's root. The config
//     itself is not downloaded: its platform, rootfs.diff_ids and labels
//     are for a runtime, and the layer is verified by its own digest.
//  4. An index's platform manifests each follow rule 2 or 3, and all
//     carry the same layer: the same digest and size. Manifests whose
//     layers differ are refused, naming both manifests (platform and
//     digest) and both layers. The pin stays the index's digest;
//     [Artifact.Layer] is the shared layer, and [Artifact.Annotations]
//     the index's annotations overlaid by those of its first platform
//     manifest, in the index's order.
//  5. Every manifest, index and layer is verified against its digest and
//     size: bytes that do not match, as sent or as kept in the cache, and
//     a registry that answers a digest with other content, are
//     [source.ErrIntegrity]. An index entry's size must be 1 or more
//     ([source.ErrNoSkill]), and a manifest's bytes must be that many,
//     whether downloaded or read from the cache; a layer larger than the cache's MaxArchiveSize ([WithCache],
//     [skill.Limits]) is refused before it is
//     downloaded, and one that sends more than it declares is cut off.
//  6. The layer is checked under the cache's archive rules and limits
//     (as materializing it would check it) before it is kept: nothing from a
//     rejected download lands in the cache.
//  7. Every digest a registry names (a tag's digest, an index's manifest,
//     a layer, a signature's manifest and bundle) must be well formed and
//     sha256 or sha512 before it is used; any other (md5, blake3, sha384,
//     malformed) fails with [source.ErrNoSkill] (in [Verify], that
//     signature is refused as [source.ErrInvalidSignature]), saying which digest.
//  8. Anything else (another artifact type, several layers, a layer
//     that is not tar+gzip or tar, one that holds no skill or several)
//     fails with [source.ErrNoSkill], saying what was found.
//  9. ToolHive's layout is read by these rules. ToolHive (toolhive-core's
//     oci/skills packager) writes an index whose artifactType is
//     dev.toolhive.skills.v1 over linux/amd64 and linux/arm64 image
//     manifests of that artifact type, each with its own image config
//     (os, architecture, rootfs.diff_ids, and dev.toolhive.skills.*
//     labels), sharing one application/vnd.oci.image.layer.v1.tar+gzip
//     layer titled skill.tar.gz, which holds the skill's files at its
//     root (files only, no folder entries, mode 0644). Each manifest is
//     annotated with dev.toolhive.skills.name, .description, .version
//     and, when the skill declares dependencies, .requires, and the
//     index carries the first manifest's annotations.
//  10. The skill's name ([Artifact.Name]) is the title annotation
//     (org.opencontainers.image.title) when it is a valid skill name,
//     else dev.toolhive.skills.name when that is one, else the base name
//     of the skill's folder in the layer, else the repository's last
//     path element. A description and a version are read alike:
//     org.opencontainers.image.description, else
//     dev.toolhive.skills.description; .version, else
//     dev.toolhive.skills.version.
//  11. The annotation dev.toolhive.skills.requires ([RequiresAnnotation],
//     from the annotations of rule 4) names the skills this one needs:
//     a JSON array of at most 64 strings, the annotation
//     at most 64 KiB, each an OCI reference as ToolHive writes it,
//     HOST/REPO:TAG, HOST/REPO@DIGEST or HOST/REPO:TAG@DIGEST, under the
//     grammar of [ParseReference] (without the oci:// prefix, and no
//     version range), whose first element names a registry as Docker's
//     reference grammar tells one: it holds a "." or a port, or is
//     localhost. org/x:v1 is refused rather than read as the host org:
//     Docker's tools, and ToolHive, read it as docker.io/org/x:v1, so
//     write that. It is kept in [Artifact.Requires] and
//     [Description.Requires] as written, in order; this package does not
//     follow them (package install does, its rule 17, reading them for a
//     pin with [Remote.Requires]). An
//     annotation that breaks this rule is refused with
//     [source.ErrNoSkill], saying which entry: a skill whose dependencies
//     cannot be read is not installed as if it had none.
//
// # Listing and describing, for a search
//
//  1. [Repositories] lists a registry's repositories from its catalog
//     (GET /v2/_catalog) and [Tags] a repository's tags (GET
//     /v2/REPO/tags/list), each following the registry's pages, reading
//     each page up to 1 MiB and stopping at the limit given. A 404 (a
//     catalog the registry keeps to itself, a missing repository) is
//     [source.ErrNotFound].
//  2. [Describe] reads the manifest or index a reference names, and an
//     index's platform manifests, as [Fetch] does (What Fetch reads,
//     rules 1 to 4, 7 and 11: 4 MiB each, verified, kept in the cache,
//     one shared layer), and returns the name, description, version and
//     requirements their annotations give (rules 10 and 11) and whether
//     it is in this package's format; no layer is downloaded.
//
// # The cache, and working offline
//
// Fetched manifests, indexes and layers are kept under the skill cache
// root's .oci folder ([WithCache]), named by digest, written whole
// beside it and renamed into place once verified, and verified again on
// every read (a damaged copy is removed and fetched again). A pinned
// reference whose blobs are there (an index, its platform manifests and
// their layer) needs no network: [Fetch], [Skill], [Describe] and
// [Artifact.Open] then read only the cache. Downloads that a killed
// process left behind are removed after a day.
//
// # Signatures
//
// [Sign] and [Verify] sign a skill's manifest and check who signed it, in
// the format cosign 3 writes and reads (cosign sign, whose bundle format
// is the only one from cosign 3 on), so that each accepts what the other
// signs. The bundle itself is package signature's: [Sign] takes a
// [BundleSigner] (signature.KeySigner) and [Verify] a [source.BundleVerifier]
// (*signature.BundleCheck), so this package links no Sigstore code of its
// own, and a program that only fetches skills links none:
//
//	check := &signature.BundleCheck{Reqs: []signature.Requirement{{Key: pub}}}
//	err := oci.Verify(ctx, "oci://ghcr.io/acme/review@"+dgst, check)
//	// check.Signer is who signed it
//
// The rules:
//
//  1. [Sign] attaches a Sigstore bundle as cosign 3 does: it pushes an
//     image-spec 1.1 manifest whose artifactType is
//     signature.BundleMediaType, whose config is the empty descriptor
//     (application/vnd.oci.empty.v1+json, "{}") with that artifactType
//     too, whose one layer is the bundle, of that media type, and whose
//     subject is the signed manifest (its media type, digest and size),
//     annotated with org.opencontainers.image.created (the time of
//     signing), dev.sigstore.bundle.content "dsse-envelope" and
//     dev.sigstore.bundle.predicateType
//     "https://sigstore.dev/cosign/sign/v1". It returns that manifest's
//     digest.
//  2. Both take a pinned reference (a digest: what is signed or checked
//     is what a lock file records); a tag alone is
//     [source.ErrNotPinned]. On a registry without the referrers API, the
//     signature is listed in the referrers tag scheme's index
//     (sha256-HEX), as the distribution spec says; [Verify] reads either.
//  3. [Verify] lists the manifest's referrers unfiltered and reads those
//     whose artifact type is a Sigstore bundle's or that carry cosign's
//     dev.sigstore.bundle.predicateType annotation; an attestation
//     (another predicate type) is not a signature and is left out. (A
//     registry may report a referrer's artifactType as its config's media
//     type, as go-containerregistry's registry reports cosign's, which a
//     filtered listing would miss.)
//  4. It reads at most 32 signatures of a manifest, over at most 16 pages
//     of the listing; a signature's manifest is read up to 64 KiB and its
//     bundle up to 1 MiB, each verified against its digest (sha256 or
//     sha512, rule 7 of What Fetch reads) and size, and
//     its manifest must have exactly one layer, a bundle, and the checked
//     manifest as its subject.
//  5. Each bundle is checked by the source.BundleVerifier against the manifest
//     digest (signature.Verify, for a *signature.BundleCheck, which
//     keeps the signer of the first that satisfies one of its
//     requirements). Otherwise the error wraps [source.ErrUnsigned] (no
//     signature attached), [source.ErrUntrusted] (signatures by other
//     signers) or [source.ErrInvalidSignature] (signatures that do not
//     verify: damaged, over another manifest), which are package
//     signature's ErrUnsigned, ErrUntrusted and ErrInvalid, and names the
//     reference, the requirement and each signature found with why it
//     was refused.
//  6. A bundle that verified is kept under the cache root's .oci folder
//     (.oci/signatures/ALG/HEX/, named by its own digest, written whole
//     and renamed into place), and [Verify] checks the kept bundles first:
//     a pin verified once is verified again offline, from the cache
//     alone. A kept bundle that no longer matches its name is removed.
//  7. An image ([FormatImage]) is signed by its index, as cosign sign
//     signs a multi-platform image named by its digest (without
//     --recursive): the bundle signs the index's digest, and the
//     referrer's subject is the index, of media type
//     application/vnd.oci.image.index.v1+json; [Verify] of that digest
//     checks it. The platform manifests are not signed apart: the index
//     names each by its digest, so a verified index pins them and their
//     layer, and an index that names a changed platform manifest is
//     another index, which the signature does not cover.
//
// For trust on first use of a keyless signer, pass a requirement that
// names the trusted root and matches any identity and issuer (as
// IdentityRegexp and IssuerRegexp ".+"): the signer the
// signature.BundleCheck keeps is the one to record.
//
// # Interoperability with cosign, offline
//
// The tests run cosign v3.1.3 against a registry on loopback with no
// network. What keeps cosign 3 from the network there:
//
//   - cosign sign --key KEY --use-signing-config=false --tlog-upload=false
//     --allow-http-registry -y HOST/REPO@DIGEST: without
//     --use-signing-config=false, cosign 3 refuses --tlog-upload=false (it
//     wants a signing config without a transparency log); with it, it
//     neither fetches the TUF root nor uploads to a log.
//   - cosign verify --key cosign.pub --insecure-ignore-tlog
//     HOST/REPO@DIGEST: a key and no log need no trusted root, so the TUF
//     root is not fetched; a loopback registry is spoken to over plain
//     HTTP without --allow-http-registry.
//   - cosign verify --key checks ECDSA with SHA-256 unless told otherwise,
//     while cosign sign (and [Sign]) hash as the curve says: a P-384 or
//     P-521 signature verifies with --signature-digest-algorithm sha384
//     or sha512. cosign signs with an Ed25519 key as Ed25519ph, while
//     cosign verify --key v3.1.3 checks Ed25519 keys as pure Ed25519 with
//     no flag to change it, so it refuses its own Ed25519 signatures; [Sign]
//     signs pure Ed25519, which it accepts, and [Verify] accepts both.
//   - Both read and write signatures through the referrers API, else the
//     referrers tag scheme, so either finds what the other attached on a
//     registry without the API.
//
// The layout is the same on every system; the tests run on Linux, and
// cosign builds and runs on macOS and Windows too.
//
// # What a container runtime makes of it
//
// The runtime tests (runtime_linux_test.go, on Linux as root) push to
// the distribution registry v3.1.2 on loopback and read with Debian 12's
// podman 4.3.1 and skopeo 1.9.3, each with storage and configuration of
// its own (internal/testkit/podmantest):
//
//   - podman pull --platform linux/amd64 and linux/arm64 of the index
//     digest [Push] returns, then podman image mount, shows the skill's
//     files at the root: the same bytes, the modes of rule 6 of The
//     format Push writes, owner 0, the Unix epoch, and nothing else.
//   - skopeo inspect --raw shows the index over the two platforms'
//     manifests sharing one layer; skopeo inspect --config shows each
//     platform's os and architecture and rootfs.diff_ids, the sha256 of
//     the gunzipped layer.
//   - podman refuses to pull the artifact format ("unsupported
//     image-specific operation on artifact"), as containerd and CRI-O
//     refuse to mount it: why the image is the default.
//   - An index podman makes (podman import of a rootfs tar for two
//     platforms, podman manifest push --all, as an OCI index or a Docker
//     manifest list) installs with [Fetch] pinned by its digest.
//   - The distribution registry has no referrers API: [Sign] and cosign
//     list their signatures there under the referrers tag scheme, and
//     [Verify] and cosign verify read them.
//
// # Registries
//
//  1. A registry on a loopback address (127.0.0.0/8, ::1, localhost) is
//     spoken to over plain HTTP; every other one over TLS.
//  2. Credentials come from the Docker configuration and the credential
//     helpers it names ([WithCredentials]); a host without any is
//     accessed anonymously. A refusal is [source.ErrAuthRequired].
//  3. When an operation fails in a way a registry would not, the host's
//     /v2/ is asked: a host that does not answer it with 200 or 401, or
//     answers with a web page, is [source.ErrNotServer]. A missing
//     repository, tag or digest is [source.ErrNotFound].
//
// # Versions
//
//  1. A version range is written where the tag goes:
//     oci://HOST/REPO:^1.2, :~1.2, :1.*, :>=1.0 <2 (one argument, quoted
//     in a shell), :^1 || ^2. A tag holds only letters, digits, "_", "."
//     and "-", so text holding "^", "~", "*", "<", ">", "=", "|", "," or
//     a space (package source/version, rule 1) can only be a range, and
//     text without them is a tag: :1.x is the tag "1.x", so write :^1 or
//     :1.* for the versions 1.x.y. [Reference.Range] holds it; with a
//     digest (oci://HOST/REPO:^1.2@sha256:...) the digest pins, and the
//     range is kept as the form it was pinned from. [Push] refuses a
//     range.
//  2. [Resolve] of a range lists the repository's tags ([Tags]: the
//     distribution API's tag list, paginated, with the same client and
//     credentials; at most version.MaxTags tags, each page at most 4
//     MiB), picks the highest tag the range admits (tags that are no
//     version, such as latest or 1, are ignored) and resolves that tag.
//     No tag admitted fails with [source.ErrNotFound], naming the range
//     and the highest tags. [Remote] implements [source.Versioned].
//
// Errors use the sentinels of package source, as its prefix rule says
// (a reference that does not parse is [source.ErrInvalid], a Fetch of
// one without a digest [source.ErrNotPinned]), and name the reference and
// what failed.
//
// [NewRemote] gives a reference the shape of [source.Remote], in which
// package install uses every published source.
//
// The functions are safe for concurrent use, by goroutines and by
// processes that share a cache root; a [Remote] is for one caller at a
// time.
package oci
