package signature

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentadaptor/agentadaptor/source"
)

// signPayload signs any DSSE payload with key, as Sign does, so that a
// refusal below is for the content and never for the signature.
func signPayload(t testing.TB, key crypto.Signer, payloadType string, payload []byte) []byte {
	t.Helper()
	kp, err := newKeypair(key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.Bundle(&sign.DSSEData{Data: payload, PayloadType: payloadType}, kp, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// statementJSON is an in-toto statement with the given type, subjects
// and predicate type.
func statementJSON(typ, predicateType string, subjects ...map[string]string) []byte {
	var subj []string
	for _, s := range subjects {
		b, _ := json.Marshal(map[string]any{"digest": s})
		subj = append(subj, string(b))
	}
	return fmt.Appendf(nil, `{"_type":%q,"subject":[%s],"predicateType":%q,"predicate":{}}`, typ, strings.Join(subj, ","), predicateType)
}

// editBundle changes a bundle's JSON with edit.
func editBundle(t testing.TB, raw []byte, edit func(b map[string]any)) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	edit(b)
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hostileCase is a bundle Verify must refuse as source.ErrInvalidSignature, saying want.
type hostileCase struct {
	name   string
	bundle []byte
	want   string
}

// hostileBundles are rule 5's and rule 6's refusals, for digest d and
// key: each is signed by key where it holds a signature at all.
func hostileBundles(t testing.TB, key crypto.Signer, d digest.Digest) []hostileCase {
	const v1 = "https://in-toto.io/Statement/v1"
	sha := map[string]string{"sha256": d.Encoded()}
	other := map[string]string{"sha256": digest.FromString("other").Encoded()}
	good, err := Sign(key, d)
	if err != nil {
		t.Fatal(err)
	}
	return []hostileCase{
		{"not JSON", []byte("\x00\x01garbage"), "not a Sigstore bundle"},
		{"empty", nil, "not a Sigstore bundle"},
		{"null", []byte("null"), "not a Sigstore bundle"},
		{"array", []byte("[]"), "not a Sigstore bundle"},
		{"empty object", []byte("{}"), "not a valid Sigstore bundle"},
		{"huge", append(append([]byte(`{"mediaType":"`), make([]byte, MaxBundleSize)...), `"}`...), "more than the 1048576"},
		{"unknown media type", editBundle(t, good, func(b map[string]any) { b["mediaType"] = "application/vnd.dev.sigstore.bundle.v0.9+json" }), "not a valid Sigstore bundle"},
		{"two signatures", editBundle(t, good, func(b map[string]any) {
			env := b["dsseEnvelope"].(map[string]any)
			sigs := env["signatures"].([]any)
			env["signatures"] = append(sigs, sigs[0])
		}), "2 signatures"},
		{"no signature", editBundle(t, good, func(b map[string]any) { b["dsseEnvelope"].(map[string]any)["signatures"] = []any{} }), "signature"},
		{"message signature", editBundle(t, good, func(b map[string]any) {
			delete(b, "dsseEnvelope")
			b["messageSignature"] = map[string]any{"messageDigest": map[string]any{"algorithm": "SHA2_256", "digest": "AAAA"}, "signature": "AAAA"}
		}), "no DSSE envelope"},
		{"payload not a statement", signPayload(t, key, payloadType, []byte("hello")), "not an in-toto statement"},
		{"payload a JSON array", signPayload(t, key, payloadType, []byte("[1,2]")), "not an in-toto statement"},
		{"duplicate subject key", signPayload(t, key, payloadType, fmt.Appendf(nil, `{"_type":%q,"subject":[{"digest":{"sha256":%q}}],"subject":[{"digest":{"sha256":%q}}],"predicateType":%q}`, v1, other["sha256"], d.Encoded(), PredicateType)), "not an in-toto statement"},
		{"wrong payload type", signPayload(t, key, "application/json", statementJSON(v1, PredicateType, sha)), "payload type"},
		{"two subjects, one matching", signPayload(t, key, payloadType, statementJSON(v1, PredicateType, other, sha)), "2 subjects"},
		{"no subject", signPayload(t, key, payloadType, statementJSON(v1, PredicateType)), "0 subjects"},
		{"subject with two digests", signPayload(t, key, payloadType, statementJSON(v1, PredicateType, map[string]string{"sha256": d.Encoded(), "sha512": strings.Repeat("ab", 64)})), "covers sha256:"},
		{"another digest", signPayload(t, key, payloadType, statementJSON(v1, PredicateType, other)), "covers sha256:" + other["sha256"]},
		{"upper-case digest", signPayload(t, key, payloadType, statementJSON(v1, PredicateType, map[string]string{"sha256": strings.ToUpper(d.Encoded())})), "covers"},
		{"statement v0.1", signPayload(t, key, payloadType, statementJSON("https://in-toto.io/Statement/v0.1", PredicateType, sha)), "statement type"},
		{"another predicate type", signPayload(t, key, payloadType, statementJSON(v1, "https://slsa.dev/provenance/v1", sha)), "predicate type"},
	}
}

// TestVerifyHostile checks rules 5 and 6: each hostile bundle is refused
// as source.ErrInvalidSignature, saying why.
func TestVerifyHostile(t *testing.T) {
	key := newKey(t, "p256")
	d := testDigest("manifest")
	for _, tt := range hostileBundles(t, key, d) {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(tt.bundle, d, Requirement{Key: key.Public()})
			if !errors.Is(err, source.ErrInvalidSignature) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify() = %v, want source.ErrInvalidSignature saying %q", err, tt.want)
			}
		})
	}
	// The statement over d signed by key, the control: it verifies.
	good := signPayload(t, key, payloadType, statementJSON("https://in-toto.io/Statement/v1", PredicateType, map[string]string{"sha256": d.Encoded()}))
	if _, err := Verify(good, d, Requirement{Key: key.Public()}); err != nil {
		t.Fatalf("Verify(control) = %v", err)
	}
}

// TestVerifyBadInput checks Verify's refusals of a bad digest and bad
// requirements (rule 7).
func TestVerifyBadInput(t *testing.T) {
	key := newKey(t, "p256")
	d := testDigest("manifest")
	good, err := Sign(key, d)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		d       digest.Digest
		reqs    []Requirement
		wantErr error
		want    string
	}{
		{"no requirement", d, nil, ErrRequirement, "no requirement given"},
		{"empty requirement", d, []Requirement{{}}, ErrRequirement, "no key and no certificate identity"},
		{"key and identity", d, []Requirement{{Key: key.Public(), Identity: "a", Issuer: "b"}}, ErrRequirement, "both a key and a certificate identity"},
		{"identity without issuer", d, []Requirement{{Identity: "a"}}, ErrRequirement, "OIDC issuer"},
		{"issuer without identity", d, []Requirement{{Issuer: "a"}}, ErrRequirement, "certificate identity either exactly"},
		{"identity both ways", d, []Requirement{{Identity: "a", IdentityRegexp: "a", Issuer: "b"}}, ErrRequirement, "one of the two"},
		{"bad expression", d, []Requirement{{IdentityRegexp: "(", Issuer: "b"}}, ErrRequirement, "missing closing )"},
		{"expression closing its anchoring group", d, []Requirement{{IdentityRegexp: "x)|(.*", Issuer: "b"}}, ErrRequirement, "unexpected )"},
		{"rsa key", d, []Requirement{{Key: newKey(t, "rsa").Public()}}, ErrKey, "RSA"},
		{"bad digest", "sha256:zz", []Requirement{{Key: key.Public()}}, source.ErrInvalidSignature, "digest"},
		{"sha512 digest", digest.SHA512.FromString("x"), []Requirement{{Key: key.Public()}}, source.ErrInvalidSignature, "want a sha256 digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(good, tt.d, tt.reqs...)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify() = %v, want %v saying %q", err, tt.wantErr, tt.want)
			}
		})
	}
}

// FuzzVerify checks rule 6: no input makes Verify panic, and nothing but
// a bundle over the digest verifies.
func FuzzVerify(f *testing.F) {
	key := newKey(f, "p256")
	d := testDigest("manifest")
	vs := newSigstore(f)
	trusted := trustedRootJSON(f, vs, false)
	good, err := Sign(key, d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(keylessBundle(f, vs, releaseIdentity, actionsIssuer, d, keylessOptions{}))
	for _, c := range hostileBundles(f, key, d) {
		if len(c.bundle) < 64<<10 {
			f.Add(c.bundle)
		}
	}
	reqs := []Requirement{{Key: key.Public()}, {IdentityRegexp: releaseTags, Issuer: actionsIssuer, TrustedRoot: trusted}}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Verify(b, d, reqs...)
		if err == nil && s.IsZero() {
			t.Fatalf("Verify() = no signer and no error")
		}
		if err != nil && !errors.Is(err, source.ErrInvalidSignature) && !errors.Is(err, source.ErrUntrusted) {
			t.Fatalf("Verify() = %v, want source.ErrInvalidSignature or source.ErrUntrusted", err)
		}
	})
}
