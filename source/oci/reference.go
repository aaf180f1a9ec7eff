package oci

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"oras.land/oras-go/v2/registry"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Scheme is the prefix of every reference this package accepts.
const Scheme = "oci://"

// Reference is a parsed OCI reference: oci://HOST/REPO:TAG,
// oci://HOST/REPO@DIGEST, or both, oci://HOST/REPO:TAG@DIGEST, which names
// the digest and keeps the tag as the form it was pinned from.
type Reference struct {
	// Host is the registry's host name or address, with its port if any.
	Host string
	// Repository is the repository's path within the registry.
	Repository string
	// Tag is the tag, or "" when only a digest is given.
	Tag string
	// Digest is the manifest digest ("sha256:..."), or "" until pinned.
	Digest string
	// Range is a version range written where the tag goes
	// (oci://HOST/REPO:^1.2), by which a tag is picked from the
	// repository's tags (see Versions in the package doc); Tag is then
	// "".
	Range string
}

// ParseReference parses s, which must start with [Scheme] and name a tag
// (or a version range), a digest or both. The host, repository, tag and digest must follow the
// OCI distribution grammar: a repository is lowercase, a tag at most 128
// characters of letters, digits, "_", "." and "-", a digest a known
// algorithm and its hex encoding. An error wraps [source.ErrInvalid].
func ParseReference(s string) (Reference, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Reference{}, invalidRef(s, "it is not an OCI reference: write %sHOST/REPO:TAG or %sHOST/REPO@sha256:DIGEST", Scheme, Scheme)
	}
	var r Reference
	if name, dgst, ok := strings.Cut(rest, "@"); ok {
		rest, r.Digest = name, dgst
	}
	if i := strings.LastIndexByte(rest, ':'); i > strings.LastIndexByte(rest, '/') {
		rest, r.Tag = rest[:i], rest[i+1:]
	}
	if version.IsRange(r.Tag) {
		if err := version.CheckRange(r.Tag); err != nil {
			return Reference{}, invalidRef(s, "%v", err)
		}
		r.Range, r.Tag = r.Tag, ""
	}
	host, repo, ok := strings.Cut(rest, "/")
	if !ok || host == "" || repo == "" {
		return Reference{}, invalidRef(s, "it is not an OCI reference: it needs a host and a repository, as in %sHOST/REPO:TAG", Scheme)
	}
	r.Host, r.Repository = host, repo
	if r.Tag == "" && r.Digest == "" && r.Range == "" {
		return Reference{}, invalidRef(s, "it names no tag or digest: add one, as in %s%s/%s:latest", Scheme, host, repo)
	}
	ref := registry.Reference{Registry: host, Repository: repo}
	if err := ref.ValidateRegistry(); err != nil || !validPort(host) {
		return Reference{}, invalidRef(s, "invalid host %q", host)
	}
	if err := ref.ValidateRepository(); err != nil {
		return Reference{}, invalidRef(s, "invalid repository %q: use lowercase letters, digits and . _ - separated by /", repo)
	}
	if r.Tag != "" {
		ref.Reference = r.Tag
		if err := ref.ValidateReferenceAsTag(); err != nil {
			return Reference{}, invalidRef(s, "invalid tag %q: use at most 128 letters, digits, _ . and -, not starting with . or -", r.Tag)
		}
	}
	if r.Digest != "" {
		ref.Reference = r.Digest
		if err := ref.ValidateReferenceAsDigest(); err != nil {
			return Reference{}, invalidRef(s, "invalid digest %q: write sha256: and 64 hex digits", r.Digest)
		}
	}
	return r, nil
}

// invalidRef is the error of s, which is not a reference, saying why.
func invalidRef(s, format string, args ...any) error {
	return fmt.Errorf("%q: %w: %s", s, source.ErrInvalid, fmt.Sprintf(format, args...))
}

// String returns the reference in the form ParseReference reads.
func (r Reference) String() string {
	var b strings.Builder
	b.WriteString(Scheme)
	b.WriteString(r.Host)
	b.WriteByte('/')
	b.WriteString(r.Repository)
	if r.Tag != "" {
		b.WriteByte(':')
		b.WriteString(r.Tag)
	}
	if r.Range != "" {
		b.WriteByte(':')
		b.WriteString(r.Range)
	}
	if r.Digest != "" {
		b.WriteByte('@')
		b.WriteString(r.Digest)
	}
	return b.String()
}

// validPort reports whether host's port, if it has one, is a number
// from 1 to 65535.
func validPort(host string) bool {
	_, port, err := net.SplitHostPort(host)
	if err != nil {
		return true // no port
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// name returns the repository's last path element.
func (r Reference) name() string {
	return r.Repository[strings.LastIndexByte(r.Repository, '/')+1:]
}

// Origin returns where the reference points, as a trust policy sees it:
// kind [source.OCI], the canonical location of its host and repository
// ([sourceloc.OCILocation], package source (# Canonical locations), rule 10:
// ghcr.io:0443/acme/x is ghcr.io/acme/x), pinned when it has a digest,
// and the reference to show. A location that cannot be made canonical is
// an error wrapping [source.ErrInvalid].
func (r Reference) Origin() (source.Origin, error) {
	loc, err := sourceloc.OCILocation(r.Host, r.Repository)
	if err != nil {
		return source.Origin{}, err
	}
	return source.Origin{Kind: source.OCI, Location: loc, Pinned: r.Digest != "", Display: r.String()}, nil
}
