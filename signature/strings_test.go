package signature

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
)

// TestStrings checks how signers and requirements are written for users.
func TestStrings(t *testing.T) {
	key := newKey(t, "p256")
	id, err := KeyID(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "sha256:") || len(id) != len("sha256:")+64 {
		t.Errorf("KeyID() = %q, want sha256: and 64 hex digits", id)
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"key signer", Signer{KeyID: id}.String(), "key " + id},
		{"keyless signer", Signer{Identity: "a@example.com", Issuer: "https://issuer"}.String(), "a@example.com (issuer https://issuer)"},
		{"no signer", Signer{}.String(), "no signer"},
		{"key requirement", Requirement{Key: key.Public()}.String(), "key " + id},
		{"exact requirement", Requirement{Identity: "a@example.com", Issuer: "https://issuer"}.String(), `identity "a@example.com" from issuer "https://issuer"`},
		{"regexp requirement", Requirement{IdentityRegexp: "^a@", IssuerRegexp: "issuer$"}.String(), `identity matching "^a@" from issuer matching "issuer$"`},
		{"empty requirement", Requirement{}.String(), "no signer"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: String() = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestMatches checks Requirement.Matches against signers recorded
// earlier, with the same rules as Verify (rule 4: an expression matches
// the whole value, stricter than cosign's).
func TestMatches(t *testing.T) {
	key, other := newKey(t, "p256"), newKey(t, "ed25519")
	id, _ := KeyID(key.Public())
	release := Signer{Identity: releaseIdentity, Issuer: actionsIssuer}
	tests := []struct {
		name string
		r    Requirement
		s    Signer
		want bool
	}{
		{"same key", Requirement{Key: key.Public()}, Signer{KeyID: id}, true},
		{"other key", Requirement{Key: other.Public()}, Signer{KeyID: id}, false},
		{"key for keyless", Requirement{Key: key.Public()}, release, false},
		{"exact", Requirement{Identity: releaseIdentity, Issuer: actionsIssuer}, release, true},
		{"regexp", Requirement{IdentityRegexp: releaseTags, IssuerRegexp: "^https://token.*"}, release, true},
		{"part of the identity, which cosign would match", Requirement{IdentityRegexp: "acme/skills", Issuer: actionsIssuer}, release, false},
		{"other issuer", Requirement{Identity: releaseIdentity, Issuer: "https://accounts.example.com"}, release, false},
		{"keyless for key", Requirement{IdentityRegexp: ".*", IssuerRegexp: ".*"}, Signer{KeyID: id}, false},
		{"no signer", Requirement{IdentityRegexp: ".*", IssuerRegexp: ".*"}, Signer{}, false},
		{"bad requirement", Requirement{IdentityRegexp: "(", Issuer: actionsIssuer}, release, false},
		{"empty requirement", Requirement{}, Signer{}, false},
	}
	for _, tt := range tests {
		if got := tt.r.Matches(tt.s); got != tt.want {
			t.Errorf("%s: %v.Matches(%v) = %v, want %v", tt.name, tt.r, tt.s, got, tt.want)
		}
	}
}

// TestInspect checks rule 9: a keyless bundle's signer is returned,
// verified but not required; a key bundle's is not, as only its key can
// verify it.
func TestInspect(t *testing.T) {
	vs := newSigstore(t)
	trusted := trustedRootJSON(t, vs, false)
	d := testDigest("manifest")
	b := keylessBundle(t, vs, releaseIdentity, actionsIssuer, d, keylessOptions{})
	s, err := Inspect(b, d, trusted)
	if err != nil || s != (Signer{Identity: releaseIdentity, Issuer: actionsIssuer}) {
		t.Errorf("Inspect(keyless) = %+v, %v, want the release workflow", s, err)
	}
	if _, err := Inspect(b, testDigest("other"), trusted); !errors.Is(err, source.ErrInvalidSignature) {
		t.Errorf("Inspect(keyless, other digest) = %v, want source.ErrInvalidSignature", err)
	}
	if _, err := Inspect(b, d, trustedRootWithCA(t, vs, newSigstore(t), false)); !errors.Is(err, source.ErrInvalidSignature) {
		t.Errorf("Inspect(keyless, untrusted CA) = %v, want source.ErrInvalidSignature", err)
	}
	key := newKey(t, "p256")
	id, _ := KeyID(key.Public())
	kb, err := Sign(key, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(kb, d, trusted); !errors.Is(err, source.ErrUntrusted) || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "pass the key") {
		t.Errorf("Inspect(key bundle) = %v, want source.ErrUntrusted naming %s and asking for the key", err, id)
	}
}

// TestRegexpMatchesWholeValue checks rule 4's expressions: the whole
// identity or issuer must match (the expression is anchored for the
// caller), stricter than cosign, which finds an expression anywhere in
// the value. Matches and Verify apply the same rule.
func TestRegexpMatchesWholeValue(t *testing.T) {
	vs := newSigstore(t)
	trusted := trustedRootJSON(t, vs, false)
	d := testDigest("manifest")
	const issuer = "https://accounts.example.com"
	for _, tc := range []struct {
		name                   string
		identityRE, issuerRE   string
		identity, signedIssuer string
		want                   bool
	}{
		{"the identity itself", `alice@example.com`, "", "alice@example.com", issuer, true},
		{"a longer identity holding it", `alice@example.com`, "", "evil-alice@example.com.attacker", issuer, false},
		{"an identity it starts", `alice@example.com`, "", "alice@example.com.attacker", issuer, false},
		{"an identity it ends", `alice@example.com`, "", "evil-alice@example.com", issuer, false},
		{"already anchored", `^alice@example\.com$`, "", "alice@example.com", issuer, true},
		{"already anchored, a longer identity", `^alice@example\.com$`, "", "evil-alice@example.com.attacker", issuer, false},
		{"an alternation, each whole", `alice@example\.com|bob@example\.com`, "", "bob@example.com", issuer, true},
		{"an alternation stays anchored", `alice@example\.com|bob@example\.com`, "", "bob@example.com.attacker", issuer, false},
		{"a prefix written with .*", `https://github\.com/acme/skills/.*`, "", releaseIdentity, issuer, true},
		{"a prefix written without .*", `https://github\.com/acme/skills/`, "", releaseIdentity, issuer, false},
		{"the issuer itself", "", `https://accounts\.example\.com`, "alice@example.com", issuer, true},
		{"a longer issuer holding it", "", `https://accounts\.example\.com`, "alice@example.com", issuer + ".attacker", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Requirement{Identity: "alice@example.com", Issuer: issuer, TrustedRoot: trusted}
			if tc.identityRE != "" {
				r.Identity, r.IdentityRegexp = "", tc.identityRE
			}
			if tc.issuerRE != "" {
				r.Issuer, r.IssuerRegexp = "", tc.issuerRE
			}
			s := Signer{Identity: tc.identity, Issuer: tc.signedIssuer}
			if got := r.Matches(s); got != tc.want {
				t.Errorf("%v.Matches(%v) = %v, want %v", r, s, got, tc.want)
			}
			b := keylessBundle(t, vs, tc.identity, tc.signedIssuer, d, keylessOptions{})
			got, err := Verify(b, d, r)
			if tc.want && (err != nil || got != s) {
				t.Errorf("Verify(%v) by %v = %v, %v; want it verified", r, s, got, err)
			}
			if !tc.want && !errors.Is(err, source.ErrUntrusted) {
				t.Errorf("Verify(%v) by %v = %v, %v; want source.ErrUntrusted", r, s, got, err)
			}
		})
	}
}
