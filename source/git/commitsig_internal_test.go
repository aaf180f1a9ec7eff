package git

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
)

// Rule 15: the signer is read from gpg's status lines and ssh-keygen's
// output, %XX escapes undone and characters that do not print quoted.
func TestSigner(t *testing.T) {
	tests := []struct {
		name, out string
		ssh       bool
		want      string
	}{
		{
			name: "gpg",
			out: "[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG AA4F65D4B81F2E40 Alice <alice@example.com>\n" +
				"[GNUPG:] VALIDSIG 1111111111111111111111111111111111111111 2026-12-01 1796161598 0 4 0 22 8 00 C2AE74797BB164F83EC4AE3FAA4F65D4B81F2E40\n[GNUPG:] TRUST_UNDEFINED 0 pgp\n",
			want: "Alice <alice@example.com> (GPG key C2AE74797BB164F83EC4AE3FAA4F65D4B81F2E40)",
		},
		{
			name: "gpg user id with a line break",
			out: "[GNUPG:] GOODSIG AA4F65D4B81F2E40 Alice%0A\x1b[31mroot <a@example.com>\n" +
				"[GNUPG:] VALIDSIG 1111111111111111111111111111111111111111 2026-12-01 1796161598 0 4 0 22 8 00 C2AE74797BB164F83EC4AE3FAA4F65D4B81F2E40\n",
			want: `"Alice\n\x1b[31mroot <a@example.com>" (GPG key C2AE74797BB164F83EC4AE3FAA4F65D4B81F2E40)`,
		},
		{
			name: "ssh",
			out:  "Good \"git\" signature for alice@example.com with ED25519 key SHA256:rmWyFj9sMX4SpRWovrDOTeqWUgAoA5l28Ym/89+/uPs\n",
			ssh:  true,
			want: "alice@example.com (SSH ED25519 key SHA256:rmWyFj9sMX4SpRWovrDOTeqWUgAoA5l28Ym/89+/uPs)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			var err error
			if tt.ssh {
				got, err = sshSigner(tt.out, true, "the allowed signers file f")
			} else {
				got, err = gpgSigner(tt.out, true, "k")
			}
			if err != nil || got != tt.want {
				t.Errorf("signer(%q) = %q, %v, want %q", tt.out, got, err, tt.want)
			}
		})
	}
	// git accepting a signature whose signer cannot be read is refused.
	if _, err := gpgSigner("[GNUPG:] TRUST_UNDEFINED 0 pgp\n", true, "k"); !errors.Is(err, source.ErrCommitSignature) || !strings.Contains(err.Error(), "did not name the signer") {
		t.Errorf("gpgSigner without GOODSIG = %v, want a refusal", err)
	}
}
