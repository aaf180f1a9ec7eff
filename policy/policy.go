// Package policy reads the trust policy that add, sync, run, verify and
// the SDK enforce: which sources are allowed, whether they must be
// pinned, who must have signed them, the audit threshold and the findings
// accepted. A user-level policy (~/.agents/agentskills.policy.yaml) and a
// project's (<project>/.agents/agentskills.policy.yaml, beside the lock)
// both apply; the project's can only tighten the user's.
//
// (The package doc is the design: the file format, every rule, how two
// files combine. To be written by the package's implementation.)
package policy

import (
	"errors"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/signature"
)

// FileName is the policy file's name, under a scope's .agents folder.
const FileName = "agentskills.policy.yaml"

// ErrDenied is wrapped by every refusal ([*DeniedError]).
var ErrDenied = errors.New("policy: denied")

// ErrInvalid is wrapped by the error for a policy file that does not
// parse or says something impossible; it names the file and line.
var ErrInvalid = errors.New("policy: invalid policy file")

// DeniedError is a refusal: the rule that refused and the file it is in.
type DeniedError struct {
	// Source is the source refused, as the user named it.
	Source string
	// Rule names the rule in the user's words ("sources.allow",
	// "sources.pinned", "signers[2]", "audit.fail_on").
	Rule string
	// File and Line locate the rule.
	File string
	Line int
	// Reason says what failed and what the user can do.
	Reason string
}

func (e *DeniedError) Error() string { panic("unimplemented") }
func (e *DeniedError) Unwrap() error { return ErrDenied }

// Source is a skill's source as the policy sees it.
type Source struct {
	// Kind is "github", "git", "oci", "url" (an archive's http(s) URL),
	// "local" (a folder, SKILL.md or archive file), or "inline" (an SDK
	// skill with no location: embedded, inline, catalogue).
	Kind string
	// Location is where it is, normalized: github "owner/repo"; git
	// "host/path" (no scheme, user or .git suffix); oci "host/repo";
	// url the URL without credentials or fragment; local an absolute,
	// cleaned path.
	Location string
	// Pinned reports whether the source names an immutable version: a
	// commit, a manifest digest, a URL's #sha256=.
	Pinned bool
	// Display is the source as the user named it, for messages.
	Display string
}

// Policy is the effective policy of one scope. The zero Policy, and one
// loaded where no file exists, allows every source, requires no signer
// and fails on audit findings of high severity or above.
type Policy struct {
	// unexported: the files and their rules.
}

// Load reads the user's policy (under home) and the project's (under
// projectRoot; "" for none) and returns them combined. A missing file is
// no rules; a file that does not parse is [ErrInvalid].
func Load(home, projectRoot string) (*Policy, error) { panic("unimplemented") }

// Parse reads one policy file's content; file names it in errors.
func Parse(data []byte, file string) (*Policy, error) { panic("unimplemented") }

// Files returns the files p was read from, user's first.
func (p *Policy) Files() []string { panic("unimplemented") }

// Check says whether s is allowed (sources.allow, sources.pinned): nil, or
// a [*DeniedError].
func (p *Policy) Check(s Source) error { panic("unimplemented") }

// Signers returns the signer requirements for s: each inner list is one
// policy rule, satisfied by a signature matching any of its requirements;
// every list must be satisfied. None: no signature is required.
func (p *Policy) Signers(s Source) ([][]signature.Requirement, error) { panic("unimplemented") }

// CommitSigners returns, for a git or GitHub source whose pinned commit
// must be signed, the allowed-signers file (SSH) and the GPG keyring the
// policy names (either may be ""), and whether a signed commit is required.
func (p *Policy) CommitSigners(s Source) (allowedSigners, gpgKeyring string, required bool) {
	panic("unimplemented")
}

// FailOn returns the audit severity at which a skill is refused.
func (p *Policy) FailOn() audit.Severity { panic("unimplemented") }

// Accepted reports whether finding f in skill (from s) is accepted by the
// policy, so that it does not refuse the skill.
func (p *Policy) Accepted(f audit.Finding, skill string, s Source) bool { panic("unimplemented") }

// Explain says, in lines a user reads, what the policy allows for s and
// which rule of which file says so: for `agentskills policy check`.
func (p *Policy) Explain(s Source) []string { panic("unimplemented") }
