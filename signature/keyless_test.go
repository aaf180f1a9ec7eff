package signature

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentadaptor/agentadaptor/source"
)

// The signer of the keyless tests: a release workflow on a tag, as GitHub
// Actions' tokens name it.
const (
	releaseIdentity = "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0"
	releaseTags     = "^https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/.*"
	actionsIssuer   = "https://token.actions.githubusercontent.com"
)

// newSigstore returns a test Sigstore: a certificate authority, a
// transparency log and a timestamp authority, offline.
func newSigstore(t testing.TB) *ca.VirtualSigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// trustedRootJSON is vs's trusted_root.json; withCT lists its certificate
// transparency log too (the test certificates carry no SCT).
func trustedRootJSON(t testing.TB, vs *ca.VirtualSigstore, withCT bool) []byte {
	t.Helper()
	return trustedRootWithCA(t, vs, vs, withCT)
}

// trustedRootWithCA is vs's trusted_root.json with the certificate
// authority of caFrom.
func trustedRootWithCA(t testing.TB, vs, caFrom *ca.VirtualSigstore, withCT bool) []byte {
	t.Helper()
	// The test CA's log IDs are hex text, where a trusted root's are the
	// bytes the text spells.
	rawIDs := func(logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
		for k, l := range logs {
			id, err := hex.DecodeString(k)
			if err != nil {
				t.Fatal(err)
			}
			l.ID = id
		}
		return logs
	}
	var ct map[string]*root.TransparencyLog
	if withCT {
		ct = rawIDs(vs.CTLogs())
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, caFrom.FulcioCertificateAuthorities(), ct, vs.TimestampingAuthorities(), rawIDs(vs.RekorLogs()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keylessOptions shape a keyless bundle.
type keylessOptions struct {
	at      time.Time // the log's integrated time; zero: now
	noTSA   bool      // leave the signed timestamp out
	noTlog  bool      // leave the log entry out
	payload []byte    // the statement; nil: cosign's over d
}

// keylessBundle is the bundle cosign writes for a keyless signature of d
// by identity from issuer, made by vs: a certificate, a log entry with its
// inclusion proof and a signed timestamp.
func keylessBundle(t testing.TB, vs *ca.VirtualSigstore, identity, issuer string, d digest.Digest, o keylessOptions) []byte {
	t.Helper()
	payload := o.payload
	if payload == nil {
		var err error
		if payload, err = statement(d); err != nil {
			t.Fatal(err)
		}
	}
	at := o.at
	if at.IsZero() {
		// Within the certificate's validity, which starts when the
		// certificate is made (after this reads the clock) in whole
		// seconds: a minute on, so a second turning in between cannot
		// put the log's time before it.
		at = time.Now().Add(time.Minute)
	}
	e, err := vs.AttestAtTime(identity, issuer, payload, at, true)
	if err != nil {
		t.Fatal(err)
	}
	vc, err := e.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := e.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	env := sc.(*bundle.Envelope).Envelope
	body, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		t.Fatal(err)
	}
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
	}
	if !o.noTlog {
		entries, err := e.TlogEntries()
		if err != nil {
			t.Fatal(err)
		}
		for _, entry := range entries {
			tle := entry.TransparencyLogEntry()
			// The entry's kind and its signed entry timestamp (its
			// promise) are not in the proto the test CA returns.
			tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
			set, err := vs.RekorSignPayload(tlog.RekorPayload{
				Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
				IntegratedTime: tle.IntegratedTime,
				LogIndex:       tle.LogIndex,
				LogID:          hex.EncodeToString(tle.LogId.KeyId),
			})
			if err != nil {
				t.Fatal(err)
			}
			tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
			vm.TlogEntries = append(vm.TlogEntries, tle)
		}
	} else {
		vm.TlogEntries = []*protorekor.TransparencyLogEntry{}
	}
	if !o.noTSA {
		tss, err := e.Timestamps()
		if err != nil {
			t.Fatal(err)
		}
		vm.TimestampVerificationData = &protobundle.TimestampVerificationData{}
		for _, ts := range tss {
			vm.TimestampVerificationData.Rfc3161Timestamps = append(vm.TimestampVerificationData.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
		}
	}
	pb := &protobundle.Bundle{
		MediaType:            BundleMediaType,
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload:     body,
			PayloadType: env.PayloadType,
			Signatures:  []*protodsse.Signature{{Sig: sig}},
		}},
	}
	raw, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestVerifyKeyless checks rules 4, 5 and 7 for keyless signatures, with
// a test Sigstore's trusted root.
func TestVerifyKeyless(t *testing.T) {
	vs := newSigstore(t)
	trusted := trustedRootJSON(t, vs, false)
	d := testDigest("manifest")
	release := keylessBundle(t, vs, releaseIdentity, actionsIssuer, d, keylessOptions{})
	exact := Requirement{Identity: releaseIdentity, Issuer: actionsIssuer, TrustedRoot: trusted}
	tags := Requirement{IdentityRegexp: releaseTags, Issuer: actionsIssuer, TrustedRoot: trusted}
	want := Signer{Identity: releaseIdentity, Issuer: actionsIssuer}
	key := newKey(t, "p256")
	keyBundle, err := Sign(key, d)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		bundle   []byte
		d        digest.Digest
		reqs     []Requirement
		wantErr  error
		wantText []string // what the error names
	}{
		{name: "exact identity", bundle: release, reqs: []Requirement{exact}},
		{name: "identity regexp", bundle: release, reqs: []Requirement{tags}},
		{name: "issuer regexp", bundle: release, reqs: []Requirement{{Identity: releaseIdentity, IssuerRegexp: `^https://token\.actions\.githubusercontent\.com$`, TrustedRoot: trusted}}},
		{name: "second requirement", bundle: release, reqs: []Requirement{{Key: key.Public()}, tags}},
		{name: "without a signed timestamp", bundle: keylessBundle(t, vs, releaseIdentity, actionsIssuer, d, keylessOptions{noTSA: true}), reqs: []Requirement{exact}},
		{
			name:     "another repository's workflow",
			bundle:   keylessBundle(t, vs, "https://github.com/evil/skills/.github/workflows/release.yml@refs/tags/v1.0.0", actionsIssuer, d, keylessOptions{}),
			reqs:     []Requirement{tags},
			wantErr:  source.ErrUntrusted,
			wantText: []string{`identity "https://github.com/evil/skills/`, "want identity matching " + `"` + releaseTags},
		},
		{
			name:     "another repository's workflow, exact",
			bundle:   keylessBundle(t, vs, "https://github.com/evil/skills/.github/workflows/release.yml@refs/tags/v1.0.0", actionsIssuer, d, keylessOptions{}),
			reqs:     []Requirement{exact},
			wantErr:  source.ErrUntrusted,
			wantText: []string{`identity "https://github.com/evil/skills/`, `want identity "` + releaseIdentity},
		},
		{
			name:     "another issuer",
			bundle:   keylessBundle(t, vs, releaseIdentity, "https://accounts.example.com", d, keylessOptions{}),
			reqs:     []Requirement{exact},
			wantErr:  source.ErrUntrusted,
			wantText: []string{`issued by "https://accounts.example.com"`, `want issuer "` + actionsIssuer},
		},
		{
			name:     "a branch, not a tag",
			bundle:   keylessBundle(t, vs, "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main", actionsIssuer, d, keylessOptions{}),
			reqs:     []Requirement{tags},
			wantErr:  source.ErrUntrusted,
			wantText: []string{"@refs/heads/main", releaseTags},
		},
		{
			name:     "untrusted certificate authority",
			bundle:   release,
			reqs:     []Requirement{{Identity: releaseIdentity, Issuer: actionsIssuer, TrustedRoot: trustedRootWithCA(t, vs, newSigstore(t), false)}},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"does not verify against the trusted root", releaseIdentity, "certificate"},
		},
		{
			name:     "two requirements, both other signers",
			bundle:   release,
			reqs:     []Requirement{{Key: key.Public()}, {Identity: releaseIdentity, Issuer: "https://accounts.example.com", TrustedRoot: trusted}},
			wantErr:  source.ErrUntrusted,
			wantText: []string{"no requirement is met", "want key sha256:", `want issuer "https://accounts.example.com"`},
		},
		{
			name:     "two requirements, one invalid",
			bundle:   release,
			reqs:     []Requirement{{Key: key.Public()}, {Identity: releaseIdentity, Issuer: actionsIssuer, TrustedRoot: trustedRootWithCA(t, vs, newSigstore(t), false)}},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"no requirement is met", "want key sha256:", "does not verify against the trusted root"},
		},
		{
			name:     "untrusted log",
			bundle:   keylessBundle(t, newSigstore(t), releaseIdentity, actionsIssuer, d, keylessOptions{}),
			reqs:     []Requirement{exact},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"does not verify against the trusted root", "verified log entries"},
		},
		{
			name:     "expired certificate",
			bundle:   keylessBundle(t, vs, releaseIdentity, actionsIssuer, d, keylessOptions{at: time.Now().Add(30 * time.Minute), noTSA: true}),
			reqs:     []Requirement{exact},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"does not verify against the trusted root"},
		},
		{
			name:     "no log entry",
			bundle:   keylessBundle(t, vs, releaseIdentity, actionsIssuer, d, keylessOptions{noTlog: true}),
			reqs:     []Requirement{exact},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"does not verify against the trusted root"},
		},
		{
			name:     "no SCT though the root lists a CT log",
			bundle:   release,
			reqs:     []Requirement{{Identity: releaseIdentity, Issuer: actionsIssuer, TrustedRoot: trustedRootJSON(t, vs, true)}},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"does not verify against the trusted root"},
		},
		{
			name:     "another digest",
			bundle:   release,
			d:        testDigest("another manifest"),
			reqs:     []Requirement{exact},
			wantErr:  source.ErrInvalidSignature,
			wantText: []string{"covers " + d.String(), "not " + testDigest("another manifest").String()},
		},
		{
			name:     "keyless for a key",
			bundle:   release,
			reqs:     []Requirement{{Key: key.Public()}},
			wantErr:  source.ErrUntrusted,
			wantText: []string{"signed keyless by " + releaseIdentity, "want key sha256:"},
		},
		{
			name:     "a key for keyless",
			bundle:   keyBundle,
			reqs:     []Requirement{exact},
			wantErr:  source.ErrUntrusted,
			wantText: []string{"signed by key sha256:", "want a certificate for identity"},
		},
		{
			name:     "bad trusted root",
			bundle:   release,
			reqs:     []Requirement{{Identity: releaseIdentity, Issuer: actionsIssuer, TrustedRoot: []byte("{")}},
			wantErr:  ErrRequirement,
			wantText: []string{"not a Sigstore trusted_root.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dd := d
			if tt.d != "" {
				dd = tt.d
			}
			s, err := Verify(tt.bundle, dd, tt.reqs...)
			if tt.wantErr == nil {
				if err != nil || s != want {
					t.Fatalf("Verify() = %+v, %v, want %+v", s, err, want)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Verify() = %+v, %v, want %v", s, err, tt.wantErr)
			}
			t.Log(err)
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Verify() = %v, want it to name %q", err, w)
				}
			}
		})
	}
}
