// Package webindex reads and writes the Agent Skills discovery index, the
// file a website publishes at /.well-known/agent-skills/index.json to list
// the skills it offers, version 0.2.0 of the draft specification
// (github.com/cloudflare/agent-skills-discovery-rfc, README.md, "Discovery
// Index", "Integrity and Verification" and "Archive Distribution").
//
// # The format
//
// What the specification says, and this package relies on:
//
//   - The index lives at /.well-known/agent-skills/index.json (v0.1.0
//     used /.well-known/skills/). It is a JSON object with "$schema",
//     https://schemas.agentskills.io/discovery/0.2.0/schema.json for
//     v0.2.0 ([Schema]), and "skills", an array of entries. An index
//     without "$schema" is v0.1.0, whose entries list files and no
//     digests; an unknown "$schema" should not be processed; unknown
//     fields must be ignored.
//   - Each entry has five required fields: "name" (1-64 characters of
//     a-z, 0-9 and "-", not starting or ending with "-", no "--"),
//     "type" ("skill-md": the URL is one SKILL.md; "archive": a .tar.gz
//     or .zip holding the skill's folder with SKILL.md at its root, no
//     wrapper folder), "description" (at most 1,024 characters), "url"
//     (resolved as RFC 3986 says against the index's URL: absolute,
//     path-absolute or relative) and "digest" ("sha256:" and the 64
//     lowercase hex digits of the SHA-256 of the artifact's raw bytes).
//   - A client must check the digest of what it downloads and must not
//     use content that does not match; it should skip an entry of an
//     unknown type and may warn.
//
// The npm skills tool (version 1.7.4, dist/cli.mjs, WellKnownProvider)
// reads the same file: it tries /.well-known/agent-skills/ and then
// /.well-known/skills/ under the URL's path and under the host's root;
// for v0.2.0 it drops, without a word, every entry whose name, type,
// description (empty or over 1,024 characters), url or digest is not
// as above, and a skill whose download does not match its digest (it
// installs the others); it resolves URLs against the index URL with any
// scheme; it extracts archives in memory up to 50 MiB and 1,000 files.
// It lists and installs what [Write] makes (tried with its 1.7.4 against
// a local server), and of a skill whose SKILL.md was changed after the
// index was written it says nothing: the skill is just not listed.
//
// # Rules
//
//  1. [Parse] reads at most [MaxIndexSize] bytes ([Read] stops there) and
//     [MaxSkills] entries. Its input must be a JSON object whose "$schema"
//     is [Schema] and whose "skills" is an array; otherwise it fails with
//     [source.ErrInvalid] saying what is wrong (for a missing "$schema":
//     that it is a v0.1.0 index, which names no digests). Unknown fields,
//     at the top and in entries, are ignored.
//  2. Each entry is checked on its own: a name as the specification says
//     ([CheckName]); a type of [TypeSkillMD] or [TypeArchive]; a
//     non-empty description of at most 1,024 characters; a URL that
//     resolves, against the index URL, to an http or https URL without
//     user information (its fragment is dropped); a digest of the form
//     sha256:HEX, 64 lowercase hex digits. An entry that breaks any of
//     these is not in [Index.Skills] but in [Index.Skipped], with its
//     reason, so a caller can say why it was left out; the others stay
//     usable.
//  3. Two entries of one name make the whole index invalid: which one a
//     client would take is not said anywhere.
//  4. [IndexURL] maps what a user types to the index's URL. A text
//     names an index when [source.Parse] reads it as a
//     [source.WebIndex] (its rule 20, written there alone): an http(s)
//     URL whose path is empty or ends in "/" names the index of the site
//     there, PATH/.well-known/agent-skills/index.json (https://example.com
//     and https://example.com/ the site's root,
//     https://example.github.io/team/ a site served from a folder); a
//     URL whose path ends in /.well-known/agent-skills/index.json names
//     itself; a repository's address (source's rule 19) names none. A
//     query, a fragment or user information is refused.
//  5. [Write] makes an index and the artifacts it names from skill
//     folders: each folder must pass skillmd's strict validation (what
//     `agentskills validate` accepts); a skill that is its SKILL.md
//     alone is published as [TypeSkillMD] at NAME/SKILL.md, any other
//     as [TypeArchive] at NAME.tar.gz, packed as source/oci packs a
//     layer (sorted entries, fixed times and modes, links to files
//     inside the folder as copies, within the cache's limits). The same
//     folders and options give the same bytes. The output folder
//     OUT/.well-known/agent-skills is staged beside its place and renamed
//     in; one that exists is replaced only when it holds nothing but a
//     previous index and the files it names, else Write fails and
//     changes nothing.
//
// What holds on Linux holds on macOS and Windows: URLs and JSON do not
// depend on the system, and Write uses the folder renames of each (on
// Windows a replaced output folder is renamed aside before the new one
// takes its place, so a reader may see it missing for that moment).
package webindex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/source"
)

// Schema is the "$schema" of a v0.2.0 index, the version this package
// reads and writes.
const Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// Path is where a site publishes its index, from the site's root.
const Path = "/.well-known/agent-skills/index.json"

// MaxIndexSize is the largest index [Read] accepts, in bytes (rule 1).
const MaxIndexSize = 4 << 20

// MaxSkills is the most entries an index may hold (rule 1).
const MaxSkills = 10_000

// maxDescription is the longest description, in characters.
const maxDescription = 1024

// Type is how a skill's artifact is distributed.
type Type string

// The types of the specification.
const (
	// TypeSkillMD is a skill that is one SKILL.md file.
	TypeSkillMD Type = "skill-md"
	// TypeArchive is a skill folder as a .tar.gz or .zip archive with
	// SKILL.md at its root.
	TypeArchive Type = "archive"
)

// Skill is one usable entry of an index.
type Skill struct {
	// Name is the skill's name, checked by [CheckName].
	Name string `json:"name"`
	// Type is [TypeSkillMD] or [TypeArchive].
	Type Type `json:"type"`
	// Description says what the skill does.
	Description string `json:"description"`
	// URL is the artifact's URL as the index writes it.
	URL string `json:"url"`
	// Digest is "sha256:" and the 64 lowercase hex digits of the
	// artifact's SHA-256.
	Digest string `json:"digest"`
	// Resolved is URL resolved against the index's URL: an absolute
	// http or https URL without a fragment.
	Resolved string `json:"-"`
}

// Skipped is an entry of an index that cannot be used (rule 2).
type Skipped struct {
	// Name is the entry's name as written, or "" when it has none that
	// is a string.
	Name string
	// Reason says what is wrong with it.
	Reason string
}

// Index is a parsed index.
type Index struct {
	// URL is the index's own URL, against which Skills' URLs resolve;
	// from [Write] without [WithBaseURL], "index.json".
	URL string
	// Skills are the usable entries, in the index's order.
	Skills []Skill
	// Skipped are the entries that break rule 2, in the index's order.
	Skipped []Skipped
}

// Lookup returns the usable skill named name.
func (ix *Index) Lookup(name string) (Skill, bool) {
	for _, s := range ix.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Read reads an index of at most [MaxIndexSize] bytes from r and parses
// it as [Parse] does.
func Read(r io.Reader, indexURL string) (*Index, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxIndexSize+1))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", indexURL, err)
	}
	return Parse(data, indexURL)
}

// Parse parses the index data, published at indexURL, by rules 1 to 3.
func Parse(data []byte, indexURL string) (*Index, error) {
	base, err := url.Parse(indexURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("index %s: %w: the index's URL must be an http or https URL", indexURL, source.ErrInvalid)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("index %s: %w: %s", indexURL, source.ErrInvalid, fmt.Sprintf(format, args...))
	}
	if len(data) > MaxIndexSize {
		return nil, bad("larger than %d bytes; an index lists names, descriptions and URLs, and this one is too large to be one", MaxIndexSize)
	}
	var top struct {
		Schema *string            `json:"$schema"`
		Skills *[]json.RawMessage `json:"skills"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, bad("not a JSON object with \"$schema\" and \"skills\": %v", err)
	}
	switch {
	case top.Schema == nil:
		return nil, bad("no \"$schema\": a v0.1.0 index, which names no digests to check downloads against; the publisher must write a v0.2.0 index (\"$schema\": %q)", Schema)
	case *top.Schema != Schema:
		return nil, bad("\"$schema\" is %q, which this tool does not read; it reads %q", *top.Schema, Schema)
	case top.Skills == nil:
		return nil, bad("no \"skills\" array")
	case len(*top.Skills) > MaxSkills:
		return nil, bad("%d skills; at most %d are read", len(*top.Skills), MaxSkills)
	}
	ix := &Index{URL: base.String()}
	seen := map[string]bool{}
	for i, raw := range *top.Skills {
		s, name, reason := parseEntry(raw, base)
		if name != "" && seen[name] {
			return nil, bad("two entries are named %q; names must be unique", name)
		}
		if name != "" {
			seen[name] = true
		}
		if reason != "" {
			if name == "" {
				reason = fmt.Sprintf("entry %d: %s", i+1, reason)
			}
			ix.Skipped = append(ix.Skipped, Skipped{Name: name, Reason: reason})
			continue
		}
		ix.Skills = append(ix.Skills, s)
	}
	return ix, nil
}

// entry is an index entry as written: any field may have any type.
type entry struct {
	Name        any `json:"name"`
	Type        any `json:"type"`
	Description any `json:"description"`
	URL         any `json:"url"`
	Digest      any `json:"digest"`
}

// parseEntry checks one entry (rule 2), and returns it, its name when it
// has one that is a string, and what is wrong with it, or "".
func parseEntry(raw json.RawMessage, base *url.URL) (Skill, string, string) {
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil || bytes.HasPrefix(bytes.TrimSpace(raw), []byte("null")) {
		return Skill{}, "", "not a JSON object"
	}
	name, _ := e.Name.(string)
	fields := map[string]any{"name": e.Name, "type": e.Type, "description": e.Description, "url": e.URL, "digest": e.Digest}
	s := Skill{}
	for _, f := range []string{"name", "type", "description", "url", "digest"} {
		v, ok := fields[f].(string)
		if !ok {
			if fields[f] == nil {
				return s, name, fmt.Sprintf("no %q, which is required", f)
			}
			return s, name, fmt.Sprintf("%q is not a string", f)
		}
		switch f {
		case "name":
			s.Name = v
		case "type":
			s.Type = Type(v)
		case "description":
			s.Description = v
		case "url":
			s.URL = v
		case "digest":
			s.Digest = v
		}
	}
	if err := CheckName(s.Name); err != nil {
		return s, name, err.Error()
	}
	if s.Type != TypeSkillMD && s.Type != TypeArchive {
		return s, name, fmt.Sprintf("type %q is not one this tool reads (%q or %q)", s.Type, TypeSkillMD, TypeArchive)
	}
	if strings.TrimSpace(s.Description) == "" {
		return s, name, "its description is empty"
	}
	if n := utf8.RuneCountInString(s.Description); n > maxDescription {
		return s, name, fmt.Sprintf("its description is %d characters; the limit is %d", n, maxDescription)
	}
	resolved, err := resolve(base, s.URL)
	if err != nil {
		return s, name, err.Error()
	}
	s.Resolved = resolved
	if !ValidDigest(s.Digest) {
		return s, name, fmt.Sprintf("digest %q is not sha256: and 64 lowercase hex digits", s.Digest)
	}
	return s, name, ""
}

// resolve resolves ref against base, as rule 2 says.
func resolve(base *url.URL, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("its url is empty")
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("url %q is not a URL: %v", ref, err)
	}
	u := base.ResolveReference(r)
	u.Fragment, u.RawFragment = "", ""
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("url %q is not an http or https URL; only those are downloaded", ref)
	}
	if u.User != nil {
		return "", fmt.Errorf("url %q holds user information; an index must not carry credentials", redact.URL(u.String()))
	}
	return u.String(), nil
}

// CheckName reports whether name is a skill name as the specification
// allows: 1 to 64 characters of a-z, 0-9 and "-", not starting or ending
// with "-", without "--".
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("its name is empty")
	case len(name) > 64:
		return fmt.Errorf("name %.64q... is longer than 64 characters", name)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return fmt.Errorf("name %q starts or ends with a hyphen", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("name %q holds two hyphens in a row", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q holds %q; only a-z, 0-9 and '-' are allowed", name, r)
		}
	}
	return nil
}

// ValidDigest reports whether d is "sha256:" and 64 lowercase hex digits.
func ValidDigest(d string) bool {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	for _, r := range hexPart {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// Digest returns the digest of data as an index writes it.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// IndexURL returns the URL of the index that text names, and whether it
// names one (rule 4): ok is false for text that [source.Parse] does not
// read as a [source.WebIndex] (its rule 20, which this applies); err is
// set for one that it does but that has a query, a fragment or user
// information.
func IndexURL(text string) (indexURL string, ok bool, err error) {
	if spec, err := source.Parse(text); err != nil || spec.Kind != source.WebIndex {
		return "", false, nil
	}
	u, err := url.Parse(text)
	if err != nil {
		return "", false, nil
	}
	if !strings.HasSuffix(u.Path, Path) {
		u.Path = strings.TrimSuffix(u.Path, "/") + Path // a site, or a folder of one
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return "", true, fmt.Errorf("%s: %w: a web index is named by its site (https://HOST) or its URL (https://HOST%s) alone, without a query, a fragment or user information", redact.URL(u.String()), source.ErrInvalid, Path)
	}
	u.RawPath = ""
	return u.String(), true, nil
}
