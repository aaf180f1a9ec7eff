package source

import (
	"context"
	"errors"
)

// ErrCommitSignature is wrapped by the error of a commit whose signature
// is missing, does not verify, or is by a key the CommitKeys do not name.
var ErrCommitSignature = errors.New("commit signature not accepted")

// CommitKeys names who may sign a pinned commit: an SSH allowed-signers
// file (the format of git's gpg.ssh.allowedSignersFile) and a GPG keyring
// file (either may be empty; a commit signed by a key of either is
// accepted).
type CommitKeys struct {
	AllowedSigners string
	GPGKeyring     string
}

// CommitVerifier is a [Remote] whose pins are commits that can be checked
// for a signature (git and GitHub sources), through system git.
type CommitVerifier interface {
	// VerifyCommit checks the signature of commit against keys and
	// returns who signed, as git names the signer (the principal of an
	// SSH key, or a GPG key's fingerprint and user id). Errors wrap
	// [ErrCommitSignature] and say what was found.
	VerifyCommit(ctx context.Context, commit string, keys CommitKeys) (string, error)
}
