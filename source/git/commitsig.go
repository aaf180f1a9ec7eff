package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/source"
)

var _ source.CommitVerifier = (*Remote)(nil)

// VerifyCommit checks the signature of the source's commit against keys
// (rules 14 to 16) and returns who signed it: the [source.CommitVerifier]
// that package install calls when a policy requires signed commits. Like
// Open, it fetches the commit anew; a ref Resolve split off is used when
// the server gives no commits by id.
func (r *Remote) VerifyCommit(ctx context.Context, commit string, keys source.CommitKeys) (string, error) {
	c, err := New(r.opts...)
	if err != nil {
		return "", err
	}
	pin := Pin{Source: r.src, Commit: commit}
	if r.pinned != nil && r.pinned.Commit == commit {
		pin = *r.pinned
	}
	return c.VerifyCommit(ctx, pin, keys)
}

// VerifyCommit fetches the pinned commit, as the pin's Opener does
// (rule 8) but without its files, and checks its signature with git
// verify-commit against keys (rules 14 to 16). It returns who signed the
// commit; an unsigned commit, a bad signature or a signer keys do not
// name is an error wrapping [source.ErrCommitSignature].
func (c *Client) VerifyCommit(ctx context.Context, p Pin, keys source.CommitKeys) (string, error) {
	src := p.Source
	if err := src.check(); err != nil {
		return "", invalid(src.String(), err)
	}
	commit := strings.ToLower(p.Commit)
	if !gitsyntax.IsCommit(commit) {
		return "", invalid(src.String(), fmt.Errorf("the pin's commit %q is not a full hex commit id (resolve the source first)", p.Commit))
	}
	repo, err := c.newRepo(ctx, src)
	if err != nil {
		return "", err
	}
	defer repo.remove()
	if err := repo.fetchPinned(ctx, src, commit); err != nil {
		return "", fmt.Errorf("fetch commit %s of %s: %w", commit, repo.shown, err)
	}
	signer, err := repo.verify(ctx, commit, keys)
	if err != nil {
		return "", fmt.Errorf("commit %s of %s: %w", commit, repo.shown, err)
	}
	return signer, nil
}

// VerifyCommitObject checks that object, the raw text of a commit object
// (what git cat-file commit prints, its gpgsig header included), is the
// commit named, and then its signature as [Client.VerifyCommit] does
// (rules 14 to 16). git hash-object writes the object into a temporary
// repository: a text that does not hash to commit, because it or its
// signature was changed, is refused with [source.ErrCommitSignature].
// Package github checks a commit it rebuilt from the API with it.
func (c *Client) VerifyCommitObject(ctx context.Context, commit string, object []byte, keys source.CommitKeys) (string, error) {
	commit = strings.ToLower(commit)
	if !gitsyntax.IsCommit(commit) {
		return "", fmt.Errorf("verify commit %q: %w: not a full hex commit id", commit, source.ErrInvalid)
	}
	repo, err := c.newRepo(ctx, Source{})
	if err != nil {
		return "", err
	}
	defer repo.remove()
	cmd := repo.command(ctx, "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Stdin = bytes.NewReader(object)
	var stdout bytes.Buffer
	stderr := &tail{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &limitedBuffer{buf: &stdout, max: 1 << 10}, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("commit %s: %w: git hash-object refused its text: %s", commit, source.ErrCommitSignature, repo.failure(ctx, "hash-object", err, stderr.String()))
	}
	if got := strings.TrimSpace(stdout.String()); got != commit {
		return "", fmt.Errorf("commit %s: %w: the commit text given hashes to %s, not to the pinned commit: it (or its signature) is not the commit's; do not install it", commit, source.ErrCommitSignature, got)
	}
	signer, err := repo.verify(ctx, commit, keys)
	if err != nil {
		return "", fmt.Errorf("commit %s: %w", commit, err)
	}
	return signer, nil
}

// Kinds of commit signature, by the first line of the gpgsig header.
const (
	sigNone = "none"
	sigSSH  = "ssh"
	sigGPG  = "gpg"
	sigX509 = "x509"
)

// signatureKind reads the kind of signature in a commit object's header.
func signatureKind(object string) string {
	for line := range strings.Lines(object) {
		line = strings.TrimRight(line, "\n")
		if line == "" {
			break // the end of the header
		}
		value, ok := strings.CutPrefix(line, "gpgsig ")
		if !ok {
			value, ok = strings.CutPrefix(line, "gpgsig-sha256 ")
		}
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(value, "-----BEGIN SSH SIGNATURE-----"):
			return sigSSH
		case strings.HasPrefix(value, "-----BEGIN PGP SIGNATURE-----"), strings.HasPrefix(value, "-----BEGIN PGP MESSAGE-----"):
			return sigGPG
		default:
			return sigX509
		}
	}
	return sigNone
}

// gpgConf keeps the private GNUPGHOME's gpg from starting an agent or
// asking a key server for a key (rule 14).
const gpgConf = "no-autostart\nno-auto-key-retrieve\n"

// verify runs git verify-commit on commit, which the repository holds,
// with keys (rules 14 to 16).
func (r *repo) verify(ctx context.Context, commit string, keys source.CommitKeys) (string, error) {
	object, err := r.run(ctx, "cat-file", "commit", commit)
	if err != nil {
		return "", err
	}
	// gpg.minTrustLevel: a key the policy names is trusted for that.
	args := []string{"-c", "gpg.minTrustLevel=undefined"}
	env := r.env
	var allowed string // the allowed signers file, and where it was named
	kind := signatureKind(object)
	switch kind {
	case sigNone:
		return "", fmt.Errorf("%w: it is not signed (its publisher signs it with git commit -S; or the policy stops requiring a signer for this source)", source.ErrCommitSignature)
	case sigX509:
		return "", fmt.Errorf("%w: it is signed with something other than an SSH or GPG key (an X.509 certificate?), which is not checked (ask for an SSH or GPG signed commit)", source.ErrCommitSignature)
	case sigSSH:
		program, err := exec.LookPath("ssh-keygen")
		if err != nil {
			return "", fmt.Errorf("%w: it is signed with an SSH key, and ssh-keygen, which checks it, is not installed (install OpenSSH's client, Debian's openssh-client)", source.ErrCommitSignature)
		}
		file, from := keys.AllowedSigners, "the allowed signers file"
		if file == "" {
			// Without one in keys, the user's own (rule 14).
			file, _ = r.run(ctx, "config", "--type=path", "--get", "gpg.ssh.allowedSignersFile")
			from = "git's gpg.ssh.allowedSignersFile"
		}
		if file == "" {
			return "", fmt.Errorf("%w: it is signed with an SSH key, and no allowed signers file names who may sign (name one in the policy, or set git's gpg.ssh.allowedSignersFile)", source.ErrCommitSignature)
		}
		if file, err = usableFile(file); err != nil {
			return "", fmt.Errorf("%w: cannot read %s: %w", source.ErrCommitSignature, from, err)
		}
		allowed = from + " " + file
		args = append(args, "-c", "gpg.ssh.program="+program, "-c", "gpg.ssh.allowedSignersFile="+file)
	case sigGPG:
		program, err := exec.LookPath("gpg")
		if err != nil {
			return "", fmt.Errorf("%w: it is signed with a GPG key, and gpg, which checks it, is not installed (install GnuPG, Debian's gnupg)", source.ErrCommitSignature)
		}
		home, err := r.gnupgHome(ctx, program, keys.GPGKeyring)
		if err != nil {
			return "", err
		}
		env = append(env[:len(env):len(env)], "GNUPGHOME="+home)
		args = append(args, "-c", "gpg.program="+program)
	}
	cmd := r.command(ctx, append(args, "verify-commit", "--raw", "--end-of-options", commit)...)
	cmd.Env = env
	out := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	runErr := cmd.Run()
	if runErr != nil && ctx.Err() != nil {
		return "", fmt.Errorf("git verify-commit: %w", context.Cause(ctx))
	}
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return "", fmt.Errorf("run git verify-commit: %w", runErr)
	}
	if kind == sigSSH {
		return sshSigner(out.String(), runErr == nil, allowed)
	}
	return gpgSigner(out.String(), runErr == nil, keys.GPGKeyring)
}

// usableFile returns file as an absolute path (git runs in the temporary
// repository), or why it cannot be read.
func usableFile(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%w (check the path)", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", abs)
	}
	return abs, nil
}

// gnupgHome makes a GNUPGHOME of its own in the repository, with keyring
// imported when named (rule 14): the user's is never read or written.
func (r *repo) gnupgHome(ctx context.Context, program, keyring string) (string, error) {
	home := filepath.Join(r.dir, "gnupg")
	if err := os.Mkdir(home, 0o700); err != nil {
		return "", fmt.Errorf("make a GnuPG home: %w", err)
	}
	if err := os.WriteFile(filepath.Join(home, "gpg.conf"), []byte(gpgConf), 0o600); err != nil {
		return "", fmt.Errorf("make a GnuPG home: %w", err)
	}
	if keyring == "" {
		return home, nil
	}
	file, err := usableFile(keyring)
	if err != nil {
		return "", fmt.Errorf("%w: the GPG keyring: %w", source.ErrCommitSignature, err)
	}
	cmd := exec.CommandContext(ctx, program, "--batch", "--no-tty", "--status-fd", "1", "--import", "--", file)
	cmd.Env = append(r.env[:len(r.env):len(r.env)], "GNUPGHOME="+home)
	cmd.Dir = r.dir
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	out := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	if err != nil || !strings.Contains(out.String(), "[GNUPG:] IMPORT_OK ") {
		msg := strings.Join(messages(out.String()), "; ")
		return "", fmt.Errorf("%w: the GPG keyring %s holds no key gpg can import (export one with gpg --export --armor KEYID): %s", source.ErrCommitSignature, file, msg)
	}
	return home, nil
}

// sshSigner reads who signed from ssh-keygen's output, which git
// verify-commit --raw passes on (rule 15), or says why the signature is
// refused (rule 16).
func sshSigner(out string, ok bool, allowed string) (string, error) {
	var key string
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if rest, found := strings.CutPrefix(line, `Good "git" signature for `); found && ok {
			principal, key, found := strings.Cut(rest, " with ")
			if found {
				return fmt.Sprintf("%s (SSH %s)", printable(principal), printable(key)), nil
			}
		}
		if rest, found := strings.CutPrefix(line, `Good "git" signature with `); found {
			key = rest
		}
	}
	switch {
	case ok:
		return "", fmt.Errorf("%w: git verify-commit accepted it but did not name the signer: %s", source.ErrCommitSignature, lastLines(out))
	case key != "":
		return "", fmt.Errorf("%w: it is signed by SSH %s, which %s does not name (add the key with its principal to that file if you trust it)", source.ErrCommitSignature, printable(key), allowed)
	}
	return "", fmt.Errorf("%w: its SSH signature does not verify: the commit or its signature was changed after signing (do not install it): %s", source.ErrCommitSignature, lastLines(out))
}

// gpgSigner reads who signed from gpg's status lines, which git
// verify-commit --raw passes on (rule 15), or says why the signature is
// refused (rule 16).
func gpgSigner(out string, ok bool, keyring string) (string, error) {
	var uid, primary, missing, bad, expired string
	for line := range strings.Lines(out) {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) < 2 || f[0] != "[GNUPG:]" {
			continue
		}
		switch f[1] {
		case "GOODSIG":
			// [GNUPG:] GOODSIG KEYID USER ID
			if parts := strings.SplitN(strings.TrimSpace(line), " ", 4); len(parts) == 4 {
				uid = unescapeStatus(parts[3])
			}
		case "VALIDSIG":
			if len(f) >= 12 {
				primary = f[11]
			} else if len(f) >= 3 {
				primary = f[2]
			}
		case "ERRSIG":
			if len(f) >= 9 && len(f[8]) >= 16 {
				missing = f[8] // the fingerprint, when gpg gives it
			} else if len(f) >= 3 {
				missing = f[2]
			}
		case "BADSIG":
			bad = strings.Join(f[2:], " ")
		case "EXPSIG", "EXPKEYSIG", "REVKEYSIG":
			expired = strings.Join(f[1:], " ")
		}
	}
	switch {
	case ok && primary != "":
		if uid == "" {
			return "GPG key " + primary, nil
		}
		return fmt.Sprintf("%s (GPG key %s)", printable(uid), primary), nil
	case bad != "":
		return "", fmt.Errorf("%w: its GPG signature by %s does not verify: the commit or its signature was changed after signing (do not install it)", source.ErrCommitSignature, printable(unescapeStatus(bad)))
	case expired != "":
		return "", fmt.Errorf("%w: its GPG signature is by an expired or revoked key (%s): ask its publisher for a commit signed by a valid key", source.ErrCommitSignature, printable(unescapeStatus(expired)))
	case missing != "" && keyring == "":
		return "", fmt.Errorf("%w: it is signed by GPG key %s, and no GPG keyring names who may sign (name one in the policy)", source.ErrCommitSignature, printable(missing))
	case missing != "":
		return "", fmt.Errorf("%w: it is signed by GPG key %s, which the keyring %s does not hold (add the key to it if you trust it)", source.ErrCommitSignature, printable(missing), keyring)
	case ok:
		return "", fmt.Errorf("%w: git verify-commit accepted it but did not name the signer: %s", source.ErrCommitSignature, lastLines(out))
	}
	return "", fmt.Errorf("%w: its GPG signature does not verify (it is damaged, or was changed: do not install it): %s", source.ErrCommitSignature, lastLines(out))
}

// unescapeStatus undoes the %XX escapes of a gpg status line.
func unescapeStatus(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// printable is s, quoted when it holds a character that is not printable
// (a user id comes from a key, and a key from anyone).
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.QuoteToGraphic(s)
	}
	return s
}

// lastLines is the end of git's output, its lines joined, for an error.
func lastLines(out string) string {
	lines := messages(out)
	if len(lines) > 4 {
		lines = lines[len(lines)-4:]
	}
	if len(lines) == 0 {
		return "git verify-commit said nothing"
	}
	return printable(strings.Join(lines, "; "))
}
