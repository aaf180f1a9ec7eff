package oci_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// Push a skill, sign what was pushed (an image's index), and check who
// signed it before installing it.
func ExampleSign() {
	ctx := context.Background()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true)))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	tmp, err := os.MkdirTemp("", "oci-sign-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "review")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Reviews a change\n---\nLook at the diff.\n"), 0o644)
	opts := []oci.Option{
		oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(tmp, "cache")))),
		oci.WithCredentials(credentials.NewMemoryStore()),
	}
	// A publisher's key; signature.LoadPrivateKey reads one from a file
	// that cosign generate-key-pair wrote.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}

	ref := "oci://" + host + "/team/review:v1"
	pin, err := oci.Push(ctx, dir, ref, opts...)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := oci.Sign(ctx, ref+"@"+pin, signature.KeySigner{Key: key}, opts...); err != nil {
		log.Fatal(err)
	}

	// Who installs it names the publisher's public key.
	check := &signature.BundleCheck{Reqs: []signature.Requirement{{Key: key.Public()}}}
	if err := oci.Verify(ctx, ref+"@"+pin, check, opts...); err != nil {
		log.Fatal(err)
	}
	id, _ := signature.KeyID(key.Public())
	fmt.Println(check.Signer.KeyID == id)

	// Another key is refused.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	err = oci.Verify(ctx, ref+"@"+pin, &signature.BundleCheck{Reqs: []signature.Requirement{{Key: other.Public()}}}, opts...)
	fmt.Println(errors.Is(err, source.ErrUntrusted))
	// Output:
	// true
	// true
}
