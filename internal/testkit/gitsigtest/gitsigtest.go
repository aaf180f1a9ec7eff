// Package gitsigtest makes signed git commits for tests: a real SSH key
// (ssh-keygen) and a real GPG key (gpg) in temporary folders, commits
// signed with either through git commit -S, and copies of a commit whose
// text or signature was changed.
//
// The tools must be on PATH: a test that lacks one is skipped, or fails
// when AGENTADAPTOR_REQUIRE_CLIS=1 (as in CI). Nothing reads or writes the
// user's ~/.gnupg or ~/.ssh.
package gitsigtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// Signer is one test identity: an SSH key named in an allowed signers
// file, and a GPG key exported to a keyring file.
type Signer struct {
	// Principal is the SSH key's principal in AllowedSigners, and the
	// GPG key's e-mail address.
	Principal string
	// SSHKey is the private SSH key file.
	SSHKey string
	// SSHFingerprint is the SSH key's SHA256 fingerprint ("SHA256:...").
	SSHFingerprint string
	// AllowedSigners is an allowed signers file that names only this key.
	AllowedSigners string
	// GNUPGHome holds the GPG secret key; its agent is stopped at the end
	// of the test.
	GNUPGHome string
	// GPGFingerprint is the GPG key's fingerprint.
	GPGFingerprint string
	// GPGKeyring is the armored export of the public GPG key.
	GPGKeyring string
}

// Require skips t when a tool is missing, or fails it when
// AGENTADAPTOR_REQUIRE_CLIS=1.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			testroot.Missing(t, tool, "not on PATH", "install git, gnupg and openssh-client")
		}
	}
}

// NewSigner makes an SSH key and a GPG key for principal, an e-mail
// address.
func NewSigner(t testing.TB, principal string) *Signer {
	t.Helper()
	Require(t, "git", "ssh-keygen", "gpg", "gpg-agent")
	dir := t.TempDir()
	s := &Signer{Principal: principal, SSHKey: filepath.Join(dir, "id_ed25519")}
	run(t, dir, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", s.SSHKey)
	pub, err := os.ReadFile(s.SSHKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(pub))
	s.AllowedSigners = filepath.Join(dir, "allowed_signers")
	write(t, s.AllowedSigners, principal+" "+fields[0]+" "+fields[1]+"\n")
	fp := strings.Fields(run(t, dir, nil, "ssh-keygen", "-l", "-E", "sha256", "-f", s.SSHKey+".pub"))
	s.SSHFingerprint = fp[1]

	newGPGKey(t, dir, s, "", "never")
	return s
}

// NewExpiredSigner makes a GPG key for principal that expired at the end
// of 2020, and signs with it as on 1 January 2020 (gpg's
// faked-system-time); it has no SSH key.
func NewExpiredSigner(t testing.TB, principal string) *Signer {
	t.Helper()
	Require(t, "git", "gpg", "gpg-agent")
	s := &Signer{Principal: principal}
	newGPGKey(t, t.TempDir(), s, "faked-system-time 20200101T000000\n", "1y")
	return s
}

// newGPGKey makes s's GPG key, in a GnuPG home whose gpg.conf is conf,
// expiring as expire says (gpg --quick-gen-key's form).
func newGPGKey(t testing.TB, dir string, s *Signer, conf, expire string) {
	t.Helper()
	principal := s.Principal
	// A short path: gpg-agent's socket goes in it.
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if gpgconf, err := exec.LookPath("gpgconf"); err == nil {
			exec.Command(gpgconf, "--homedir", home, "--kill", "all").Run()
		}
		os.RemoveAll(home)
	})
	write(t, filepath.Join(home, "gpg.conf"), conf)
	s.GNUPGHome = home
	env := []string{"GNUPGHOME=" + home}
	run(t, dir, env, "gpg", "--batch", "--passphrase", "", "--quick-gen-key", strings.SplitN(principal, "@", 2)[0]+" <"+principal+">", "ed25519", "sign", expire)
	for line := range strings.Lines(run(t, dir, env, "gpg", "--batch", "--with-colons", "--list-keys", principal)) {
		if f := strings.Split(line, ":"); f[0] == "fpr" && s.GPGFingerprint == "" {
			s.GPGFingerprint = f[9]
		}
	}
	s.GPGKeyring = filepath.Join(dir, "keyring.asc")
	write(t, s.GPGKeyring, run(t, dir, env, "gpg", "--batch", "--armor", "--export", principal))
}

// How a commit is signed.
const (
	Unsigned = "unsigned"
	SSH      = "ssh"
	GPG      = "gpg"
)

// Commit makes an empty commit with message in the work tree dir, signed
// by s as how says (s may be nil for Unsigned), and returns its id.
func Commit(t testing.TB, dir string, s *Signer, how, message string) string {
	t.Helper()
	args := []string{"commit", "--quiet", "--allow-empty", "-m", message}
	var env []string
	switch how {
	case SSH:
		args = append([]string{"-c", "gpg.format=ssh", "-c", "user.signingkey=" + s.SSHKey}, append(args, "-S")...)
	case GPG:
		args = append([]string{"-c", "gpg.format=openpgp", "-c", "user.signingkey=" + s.GPGFingerprint}, append(args, "-S")...)
		env = []string{"GNUPGHOME=" + s.GNUPGHome}
	}
	Git(t, dir, env, args...)
	return Git(t, dir, nil, "rev-parse", "HEAD")
}

// Changed writes into the repository of dir a copy of commit whose text
// (what "message") or signature (what "signature") was changed, keeping
// the rest, and returns the copy's id.
func Changed(t testing.TB, dir, commit, what string) string {
	t.Helper()
	object := Git(t, dir, nil, "cat-file", "commit", commit) + "\n"
	payload, sig := Split(object)
	switch what {
	case "message":
		payload += "changed after signing\n"
	case "signature":
		// A character in the middle of the signature's data.
		lines := strings.Split(sig, "\n")
		mid := lines[len(lines)/2]
		flip := "A"
		if strings.HasPrefix(mid, "A") {
			flip = "B"
		}
		lines[len(lines)/2] = flip + mid[1:]
		sig = strings.Join(lines, "\n")
	default:
		t.Fatalf("Changed(%q): want message or signature", what)
	}
	return Git(t, dir, nil, "hash-object", "-t", "commit", "-w", "--stdin", "<", Join(payload, sig))
}

// Split parses a raw commit object into the text that was signed (the
// object without its gpgsig header) and the signature.
func Split(object string) (payload, signature string) {
	header, body, _ := strings.Cut(object, "\n\n")
	var kept, sig []string
	in := false
	for line := range strings.SplitSeq(header, "\n") {
		switch {
		case strings.HasPrefix(line, "gpgsig "):
			in = true
			sig = append(sig, strings.TrimPrefix(line, "gpgsig "))
		case in && strings.HasPrefix(line, " "):
			sig = append(sig, line[1:])
		default:
			in = false
			kept = append(kept, line)
		}
	}
	payload = strings.Join(kept, "\n") + "\n\n" + body
	if len(sig) == 0 {
		return payload, ""
	}
	return payload, strings.Join(sig, "\n") + "\n"
}

// Join puts signature into payload as git does: a gpgsig header at the
// end of the header, each further line indented by one space.
func Join(payload, signature string) string {
	header, body, _ := strings.Cut(payload, "\n\n")
	sig := strings.ReplaceAll(strings.TrimSuffix(signature, "\n"), "\n", "\n ")
	return header + "\ngpgsig " + sig + "\n\n" + body
}

// Git runs git in dir with a fixed identity and no user configuration,
// and returns its output. A last argument pair "<", TEXT is its input.
func Git(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	var stdin string
	if n := len(args); n >= 2 && args[n-2] == "<" {
		stdin, args = args[n-1], args[:n-2]
	}
	env = append([]string{
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
	}, env...)
	cmd := exec.Command("git", args...)
	cmd.Stdin = strings.NewReader(stdin)
	return strings.TrimSuffix(runCmd(t, cmd, dir, env), "\n")
}

func run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	return runCmd(t, exec.Command(name, args...), dir, env)
}

func runCmd(t testing.TB, cmd *exec.Cmd, dir string, env []string) string {
	t.Helper()
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	return string(out)
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
