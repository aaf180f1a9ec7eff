// Package sigstoretest is a private Sigstore for tests of keyless
// signatures: a certificate authority, a transparency log and a
// timestamp authority in memory (sigstore-go's virtual Sigstore), its
// trusted_root.json, bundles in the form cosign 3 attaches for a keyless
// `cosign sign`, and [Attach], which attaches one to a manifest in a
// registry as cosign does. Nothing here uses the network but the
// registry the test names.
package sigstoretest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/signature"
)

// Sigstore is a private Sigstore. It is not safe for concurrent use.
type Sigstore struct {
	vs *ca.VirtualSigstore
}

// New returns a new private Sigstore.
func New(t testing.TB) *Sigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	return &Sigstore{vs: vs}
}

// TrustedRoot is s's trusted_root.json: its certificate authority, its
// transparency log and its timestamp authority (no certificate
// transparency log: the test certificates carry no SCT).
func (s *Sigstore) TrustedRoot(t testing.TB) []byte {
	t.Helper()
	// The virtual Sigstore's log IDs are hex text, where a trusted root's
	// are the bytes the text spells.
	logs := s.vs.RekorLogs()
	for k, l := range logs {
		id, err := hex.DecodeString(k)
		if err != nil {
			t.Fatal(err)
		}
		l.ID = id
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, s.vs.FulcioCertificateAuthorities(), nil, s.vs.TimestampingAuthorities(), logs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bundle is the bundle cosign writes for a keyless signature of the
// manifest digest d by identity from issuer, made by s: a certificate, a
// log entry with its inclusion proof and promise, and a signed timestamp.
func (s *Sigstore) Bundle(t testing.TB, identity, issuer string, d digest.Digest) []byte {
	t.Helper()
	payload, err := statement(d)
	if err != nil {
		t.Fatal(err)
	}
	// The log's integrated time must fall within the certificate's
	// validity, which starts when the certificate is made, after this
	// call reads the clock, and is written in whole seconds: a minute
	// on, as sigstore-go's own Attest sets it further on, so a second
	// turning between the two readings cannot put it before.
	e, err := s.vs.AttestAtTime(identity, issuer, payload, time.Now().Add(time.Minute), true)
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
	entries, err := e.TlogEntries()
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		tle := entry.TransparencyLogEntry()
		// The entry's kind and its signed entry timestamp (its promise)
		// are not in the proto the virtual Sigstore returns.
		tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
		set, err := s.vs.RekorSignPayload(tlog.RekorPayload{
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
	tss, err := e.Timestamps()
	if err != nil {
		t.Fatal(err)
	}
	vm.TimestampVerificationData = &protobundle.TimestampVerificationData{}
	for _, ts := range tss {
		vm.TimestampVerificationData.Rfc3161Timestamps = append(vm.TimestampVerificationData.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	pb := &protobundle.Bundle{
		MediaType:            signature.BundleMediaType,
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

// statement is the in-toto statement cosign signs for the manifest
// digest d.
func statement(d digest.Digest) ([]byte, error) {
	annotations, err := structpb.NewStruct(nil)
	if err != nil {
		return nil, err
	}
	raw, err := protojson.Marshal(&intoto.Statement{
		Type:          intoto.StatementTypeUri,
		Subject:       []*intoto.ResourceDescriptor{{Digest: map[string]string{d.Algorithm().String(): d.Encoded()}, Annotations: annotations}},
		PredicateType: signature.PredicateType,
		Predicate:     &structpb.Struct{},
	})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = json.Compact(&out, raw)
	return out.Bytes(), err
}

// Attach attaches bundle to the manifest that ref (oci://HOST/REPO@DIGEST,
// on a registry over plain HTTP with the referrers API) names, as cosign
// 3 attaches a signature: a referrer manifest whose artifact type and
// single layer are the bundle's media type.
func Attach(t testing.TB, ref string, bundle []byte) {
	t.Helper()
	ctx := context.Background()
	name, dgst, ok := strings.Cut(strings.TrimPrefix(ref, "oci://"), "@")
	if !ok {
		t.Fatalf("Attach(%s): want oci://HOST/REPO@DIGEST", ref)
	}
	repo, err := remote.NewRepository(name)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	subject, err := repo.Resolve(ctx, dgst)
	if err != nil {
		t.Fatalf("Attach(%s): %v", ref, err)
	}
	push := func(desc ocispec.Descriptor, data []byte) {
		if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
			t.Fatalf("Attach(%s): push %s: %v", ref, desc.MediaType, err)
		}
	}
	config := ocispec.DescriptorEmptyJSON
	push(config, config.Data)
	config.Data = nil
	layer := ocispec.Descriptor{MediaType: signature.BundleMediaType, Digest: digest.FromBytes(bundle), Size: int64(len(bundle))}
	push(layer, bundle)
	m, err := json.Marshal(ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: signature.BundleMediaType,
		Config:       config,
		Layers:       []ocispec.Descriptor{layer},
		Subject:      &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations:  map[string]string{"dev.sigstore.bundle.content": "dsse-envelope", "dev.sigstore.bundle.predicateType": signature.PredicateType},
	})
	if err != nil {
		t.Fatal(err)
	}
	push(ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(m), Size: int64(len(m))}, m)
}
