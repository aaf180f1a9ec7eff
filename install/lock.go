package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// lockName is the file, under a scope's .agents folder, that records what
// this tool installed there.
const lockName = "agentskills.lock"

// Kind is how a skill is made available to one agent, as the lock file
// records it and [Change] and [Status] report it.
type Kind string

// Kinds of install.
const (
	KindCanonical Kind = "canonical" // the agent reads the canonical copy itself
	KindLink      Kind = "link"      // a relative symbolic link to the canonical copy
	KindJunction  Kind = "junction"  // a Windows junction to the canonical copy
	KindCopy      Kind = "copy"      // a full copy
)

// lockFile is the content of a lock file: every skill this tool installed in
// one scope. It is JSON with sorted keys and no timestamps, so it merges
// well under version control.
type lockFile struct {
	// Version is the format version, 1.
	Version int `json:"version"`
	// Skills maps a skill's name to what was installed.
	Skills map[string]*lockEntry `json:"skills"`
	// Unfinished lists the skills a run was changing when it stopped
	// (killed, or the machine went down), each with its entry before that
	// run (null: none). Such a run has recorded in Skills what it was
	// making; the next add, remove or sync finishes or rolls back each
	// (rule 6). Empty after every run that ends, even interrupted.
	Unfinished map[string]*lockEntry `json:"unfinished,omitempty"`
	// Policy records the pins of the files the scope's policy file
	// extends (LoadPolicy).
	Policy *lockPolicy `json:"policy,omitempty"`

	// raw is the file as read, for asWritten; nil for a new lock.
	raw []byte
}

// lockEntry is one installed skill.
type lockEntry struct {
	// Source is where the skill came from, as given (a folder relative to
	// the scope root when it is inside it; a URL without credentials).
	Source string `json:"source"`
	// Subpath locates the skill inside Source when Source holds several.
	Subpath string `json:"subpath,omitempty"`
	// Pin is what a published Source's reference named when the skill
	// was installed: a commit for GitHub and git, a manifest digest for
	// OCI (rule 13). Sync installs from the pin, never from the moving
	// reference; only Add moves it.
	Pin string `json:"pin,omitempty"`
	// Version is the tag a version range in Source picked when the skill
	// was installed at Pin ("v1.4.0"; package source/version), which a
	// policy's required skills are checked against (# Required skills in
	// the package doc); "" when Source names no range, or was installed
	// by a version of this tool that did not record it.
	Version string `json:"version,omitempty"`
	// Digest is the skill's content digest (see skill.ContentDigest).
	Digest string `json:"digest"`
	// Agents maps an agent ID to what was made for it.
	Agents map[string]lockPlace `json:"agents"`
	// Signer is who signed an OCI source's manifest, as verified when it
	// was installed (Trust rule 4), with the public key of a key
	// signature.
	Signer *lockSigner `json:"signer,omitempty"`
	// Host is the GitHub host a GitHub source named without one
	// (github:OWNER/REPO, OWNER/REPO) was read from when it is not
	// github.com: the host of the API $GITHUB_API_URL named (package
	// github, rule 16; an Enterprise runner sets it). Sync reads the
	// source only from that host (Trust rule 1).
	Host string `json:"host,omitempty"`
	// CommitSigner is who signed a git or GitHub source's pinned commit,
	// as git names the signer, when the policy required it (Trust rule 3).
	CommitSigner string `json:"commit_signer,omitempty"`
	// ETag and LastModified are what the server of a URL source without
	// #sha256= said of the download (its ETag and Last-Modified
	// headers), which [Installer.Outdated] sends back to ask whether it
	// changed (rule 14).
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Lenient records a skill installed though it breaks the Agent
	// Skills specification (AddRequest.Lenient, rule 4): Sync installs it
	// again without being asked.
	Lenient bool `json:"lenient,omitempty"`
	// AllowedRisks records the audit rules whose findings were allowed
	// (trust.AllowRisks) when the skill was installed, with the content
	// digest they were allowed for, which is Digest (Trust rule 5): a
	// later Sync, Add or CheckTrust allows them again for that content
	// only. Absent (older lock files too): nothing allowed.
	AllowedRisks *RiskAllowance `json:"allowed_risks,omitempty"`
	// Requires are the requirements the skill declares (its SKILL.md's
	// metadata.requires, an OCI artifact's dev.toolhive.skills.requires,
	// a Claude plugin's dependencies), in the order written there, each
	// with the installed skill that answers it. Update re-resolves them;
	// verify reports one not answered.
	Requires []lockRequirement `json:"requires,omitempty"`
	// RequiredBy names the installed skills whose Requires this skill
	// answers, sorted: remove refuses it while one is installed, unless
	// forced. It is derived from the entries' Requires whenever the lock
	// is written (linkRequirements), never kept on its own.
	RequiredBy []string `json:"required_by,omitempty"`
	// Dependency records a skill installed only because others require
	// it, not named by the user: once nothing installed requires it
	// (RequiredBy empty), remove takes it away with the last dependant.
	// A skill the user adds by name loses the mark.
	Dependency bool `json:"dependency,omitempty"`
}

// lockRequirement is one requirement a skill declares, as the lock file
// records it.
type lockRequirement struct {
	// Source is the requirement as written: a source as add takes it,
	// with a version range where it names one
	// (github:acme/skills/changelog@^1).
	Source string `json:"source"`
	// Skill is the name of the installed skill that answers it; empty
	// when none does (add --no-requires installed only what was named).
	Skill string `json:"skill,omitempty"`
}

// linkRequirements sets every entry's RequiredBy from the entries'
// Requires: the names of the installed skills with a requirement the
// entry answers, sorted, each once.
func (l *lockFile) linkRequirements() {
	by := map[string][]string{}
	for name, e := range l.Skills {
		for _, r := range e.Requires {
			if r.Skill != "" && r.Skill != name && !slices.Contains(by[r.Skill], name) {
				by[r.Skill] = append(by[r.Skill], name)
			}
		}
	}
	for name, e := range l.Skills {
		e.RequiredBy = by[name]
		slices.Sort(e.RequiredBy)
	}
}

// RiskAllowance is the record of audit findings allowed for one skill's
// content (Trust rule 5), as the lock file keeps it ("allowed_risks")
// and [Status] and [Installer.RecordedRisks] report it.
type RiskAllowance struct {
	// Rules are the audit rules (audit.Rule.ID) allowed, sorted: those
	// of trust.AllowRisks that the skill's findings needed.
	Rules []string `json:"rules"`
	// Digest is the content digest (see skill.ContentDigest) the rules
	// are allowed for: other content with the same findings is refused.
	Digest string `json:"digest"`
}

// lockPlace is what was made for one agent.
type lockPlace struct {
	// Kind is KindCanonical, KindLink, KindJunction or KindCopy.
	Kind Kind `json:"kind"`
	// Path is the skill's folder for the agent, relative to the scope root
	// when inside it.
	Path string `json:"path"`
}

// readLock parses the lock file at path; a missing file is an empty lock.
// It checks the file's form, not what its entries name: that is
// [Installer.readCheckedLock].
func readLock(path string) (*lockFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &lockFile{Version: 1, Skills: map[string]*lockEntry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidLock, err)
	}
	var l lockFile
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%w: %s: %w (fix it, or remove it and add the skills again: add adopts every installed skill whose content matches its source)", ErrInvalidLock, path, err)
	}
	if l.Version != 1 {
		return nil, fmt.Errorf("%w: %s: version %d; this tool reads version 1 (use the agentskills that wrote it)", ErrInvalidLock, path, l.Version)
	}
	if l.Skills == nil {
		l.Skills = map[string]*lockEntry{}
	}
	l.raw = data
	return &l, nil
}

// asWritten reports whether the lock file as read holds exactly the
// bytes this package writes for what it decoded of it. Only such a file
// is left as it is by a run that changes no entry: any other (a key
// twice, "SOURCE" beside "source", which Go matches and jq does not, an
// unknown key, another layout) is written in standard form, so what a
// person or another JSON reader sees is what this package read.
func (l *lockFile) asWritten() bool {
	if l.raw == nil {
		return false
	}
	data, err := l.encode(len(l.raw))
	return err == nil && bytes.Equal(data, l.raw)
}

// encode returns the lock file's bytes, indented, with every entry's
// RequiredBy set from the entries' Requires first; size is a guess of
// their length.
func (l *lockFile) encode(size int) ([]byte, error) {
	l.linkRequirements()
	var buf bytes.Buffer
	buf.Grow(size + 1<<12)
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// write replaces the lock file atomically and durably; a file that
// already holds exactly these bytes (a sync with nothing to do) is left
// as it is.
func (l *lockFile) write(path string) error {
	size := 0
	if fi, err := os.Stat(path); err == nil && fi.Size() < 1<<30 {
		size = int(fi.Size()) // the file as it is, most often
	}
	data, err := l.encode(size)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}
