package install

import (
	"context"
	"errors"
	"fmt"
)

// The errors an Installer's operations wrap, for callers to classify with
// errors.Is (rule 8). Each error names what failed and what to do; these
// say which kind of failure it was.
var (
	// ErrConflict reports a place the installer would write that holds
	// something it did not install (or cannot show it installed).
	ErrConflict = errors.New("already exists and was not installed by agentskills")
	// ErrModified reports something the installer installed that was
	// changed since: edited, extended or replaced. It is kept unless the
	// request forces the change, which moves it to a backup first.
	ErrModified = errors.New("was changed since agentskills installed it")
	// ErrNotInstalled reports a skill name the lock file does not record.
	ErrNotInstalled = errors.New("not installed by agentskills")
	// ErrDrift reports, in a frozen sync, content that differs from what
	// the lock file records; a pinned source whose content differs from
	// what the lock file records for its pin (rule 13); and a source
	// whose copy differs from the content audited (# Trust): it changed
	// while it was read.
	ErrDrift = errors.New("source content differs from the lock file")
	// ErrSourceUnavailable reports a source that could not be read or
	// downloaded: a network failure, an HTTP error, a timeout, or a
	// recorded source that is gone.
	ErrSourceUnavailable = errors.New("source unavailable")
	// ErrInvalidSource reports a source that cannot be installed as given:
	// it does not exist, holds no skill or an unusable one, is an archive
	// that breaks a rule or a limit, or holds two skills of one name.
	ErrInvalidSource = errors.New("source cannot be installed")
	// ErrInvalidLock reports a lock file that cannot be read or used.
	ErrInvalidLock = errors.New("lock file is not valid")
	// ErrNothingRecorded reports a check of a scope whose lock file
	// records no skill.
	ErrNothingRecorded = errors.New("no skills are recorded")
	// ErrUnsafeFolder reports a folder the installer refuses to write
	// through: a canonical folder that is a link, a project folder that
	// is a link leading out of the project, an agent folder that is not
	// an absolute path.
	ErrUnsafeFolder = errors.New("folder is not safe to install into")
	// ErrInterrupted reports an operation stopped by its context (Ctrl-C
	// at the command line). It also wraps the context's error. The error
	// says what was done; the lock file records exactly that (rule 6).
	ErrInterrupted = errors.New("interrupted")
	// ErrSpecification reports, beside ErrInvalidSource, a skill left
	// out only because it breaks the Agent Skills specification in a way
	// agents load anyway, such as a description over 1,024 characters:
	// AddRequest.Lenient installs it (rule 4).
	ErrSpecification = errors.New("breaks the Agent Skills specification")
	// ErrRequired reports a removal of a skill that installed skills,
	// which stay, require (rule 18): it is kept unless the request
	// forces the removal (RemoveRequest.Required).
	ErrRequired = errors.New("is required by installed skills")
	// ErrRequirements reports skills whose requirements cannot all be
	// installed together (rule 17): two sources, or two version ranges
	// no version answers, for one skill name; or a cycle.
	ErrRequirements = errors.New("requirements cannot be met")
	// ErrPolicyRequired reports a skill the policy requires (package policy,
	// rules 23 to 26; # Required skills) that is not installed, is
	// installed at a version outside the requirement's range, or that a
	// removal would take away. [*PolicyRequiredError] wraps it.
	ErrPolicyRequired = errors.New("required by the policy")
)

// interrupted returns the error for an operation whose context ended,
// saying what was done.
func interrupted(ctx context.Context, what string) error {
	return fmt.Errorf("%w (%w); %s", ErrInterrupted, context.Cause(ctx), what)
}
