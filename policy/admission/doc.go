// Package admission writes a policy's signers rules as an admission
// policy for a Kubernetes cluster, so that the cluster refuses a pod
// whose skill images are not signed as the policy requires.
//
// The kubelet pulls an image volume's image and mounts it without
// checking who signed it; a signature is checked in a cluster only by an
// admission controller that verifies images before a pod is admitted.
// [Policies] turns the signers rules of a [policy.Policy]
// ([policy.Policy.Signers]) into the objects of one of two such
// controllers:
//
//   - [PolicyController]: Sigstore policy-controller's ClusterImagePolicy
//     (policy.sigstore.dev/v1beta1, as policy-controller v0.13.1 serves
//     it), one per signers rule.
//   - [Kyverno]: one Kyverno ClusterPolicy (kyverno.io/v1) with one
//     verifyImages rule per signers rule. Kyverno 1.19 serves kyverno.io/v1
//     as deprecated in favour of its ImageValidatingPolicy
//     (policies.kyverno.io), whose checks are CEL expressions that its
//     published schema does not check; a ClusterPolicy's checks are
//     fields, each checked by the schema, and Kyverno 1.19 verifies with
//     them the Sigstore bundles our signatures are.
//
// # Rules
//
//  1. Every signers rule with keys or identities (package policy, rule 6)
//     becomes one check, and every check that matches an image must pass,
//     as every rule that applies to a source must be satisfied (package
//     policy, rule 13): a ClusterImagePolicy each, named
//     agentskills-signers-N, which policy-controller requires all of; a
//     rule named signers-N of the ClusterPolicy agentskills-signers,
//     every one of which Kyverno applies. N counts the rules from 1, the
//     user's file first. Within a check any one of the rule's signers
//     suffices: the policy's authorities, any of which policy-controller
//     accepts, or one set of attestors with count 1.
//  2. A rule's sources become image globs (rule 3) for each tool's glob
//     syntax: an image volume or container image that names a
//     repository a pattern matches, by tag or by digest, is matched by a
//     glob. Where the tool's syntax cannot say exactly what the pattern
//     says, the glob is wider, never narrower, and a note says so: a
//     check that applies to more images refuses more, never fewer.
//  3. Globs. A pattern oci:HOST/REPO (canonical, package policy rule 15)
//     is split into elements at "/". For policy-controller, whose * is
//     any run of characters but "/" and ** any run at all, an element * is
//     *, and an element ** is ** where it stands for one element or more
//     and is left out where it stands for none (ghcr.io/acme/** gives
//     ghcr.io/acme/** and ghcr.io/acme); then :* and @* follow for the tag
//     or digest. That is exact. For Kyverno, whose * is any run of
//     characters, "/" included, both are *: a pattern with a wildcard
//     within the repository's path (ghcr.io/acme/*) matches deeper
//     repositories too (ghcr.io/acme/team/x), which a note says. A ? is
//     * for policy-controller, which has no ?, and ? for Kyverno, whose ?
//     matches "/" too; a character class ([a-z]), which neither tool
//     has, is *; each is wider, and noted. A part of a pattern that a
//     tool's globs cannot say is cut off with what follows it, and the
//     rest is written PREFIX/**, which is wider, and noted: an element
//     holding a character policy-controller's globs cannot hold (its
//     globs hold letters, digits and -_:/*.@), and, since an element **
//     may stand for none, so that n of them give 2^n globs, more than 4
//     of them, cut at the fourth (ghcr.io/a/**/b/**/c/**/d/**/e/**/x is
//     written ghcr.io/a/**/b/**/c/**/d/**). Docker Hub's hosts docker.io and index.docker.io are
//     written both, as the tools name that registry either way.
//  4. Keys. A key (PEM, inline) is verified as package signature, rule
//     3, verifies it: the Sigstore bundle alone, with no transparency log
//     entry or certificate timestamp. Kyverno: an entry of keys with the
//     key's PEM, the signature algorithm of its curve (sha256 for P-256
//     and Ed25519, sha384 for P-384, sha512 for P-521), rekor.ignoreTlog
//     and ctlog.ignoreSCT, in a verifyImages rule of type SigstoreBundle.
//     policy-controller v0.13.1 verifies Sigstore bundles for keyless
//     authorities only, and a key authority reads cosign's older
//     signature format, which we do not write: a key is left out of its
//     policy, with a note, and a rule with keys alone is left out.
//  5. Identities. An identity and issuer become a keyless authority or
//     entry: identity as subject, identity_regexp as subjectRegExp,
//     issuer as issuer, issuer_regexp as issuerRegExp. A regular
//     expression is written anchored, ^(?:EXPR)$, since it must match
//     the whole value here (package signature, rule 4) and the tools
//     match it anywhere in the value. policy-controller: signatureFormat
//     bundle, Fulcio's public URL, and a rule's trusted_root becomes a
//     trustRootRef to a TrustRoot named agentskills-root-HASH (the first
//     12 hex digits of the file's SHA-256), which the cluster must hold:
//     a note says so; without one, policy-controller's own root (public
//     Sigstore). Kyverno: the public Rekor's URL (Kyverno requires one),
//     and the bundle is verified against Kyverno's own trusted root (its
//     TUF settings): a rule's trusted_root cannot be named per rule, and
//     a note says so.
//  6. Image volumes. Kyverno 1.19 and policy-controller v0.13.1 check the
//     images of a pod's containers, and not those of its image volumes,
//     which is where skills are mounted. The Kyverno rules therefore name
//     the images they check (imageExtractors for Pod: containers,
//     initContainers, ephemeralContainers and volumes[].image.reference),
//     match pods, and turn off Kyverno's rules for pod controllers (a
//     Job's pods are checked when they are created). policy-controller
//     checks image volumes from its release after v0.13.1
//     (sigstore/policy-controller#1976); every export for it carries a
//     note saying so.
//  7. What cannot be written is left out and named in a note, never
//     quietly: a signers rule with commits (git and github sources, whose
//     commits no image admission checks), a pattern whose host no glob
//     can say.
//     When no check remains, [Policies] returns an error wrapping
//     [ErrNoSigners] that says what to add.
//  8. The output is YAML, one document per object, in the order of the
//     rules; the same policy gives the same bytes. The objects decode
//     strictly against the CRDs the two projects publish
//     (policy-controller v0.13.1, Kyverno v1.19.1), which the tests check.
//
// # What a cluster check does not cover
//
// The tools match an image as the pod spells it: a registry written in
// another case or with its default port (GHCR.IO, ghcr.io:443) is not
// matched by the globs, which use the canonical spelling. policy-controller
// refuses an image no policy matches (its no-match policy, deny by
// default) in namespaces it watches; Kyverno admits it. The signer a
// project's lock file records (trust on first use) is not a signers rule
// and is not exported: write it into the policy file to have it checked
// in the cluster.
package admission
