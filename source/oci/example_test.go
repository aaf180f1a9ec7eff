package oci_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

func ExampleParseReference() {
	r, err := oci.ParseReference("oci://ghcr.io/acme/review:1.2")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Host, r.Repository, r.Tag)
	r.Digest = "sha256:" + strings.Repeat("0", 64)
	fmt.Println(r)
	// Output:
	// ghcr.io acme/review 1.2
	// oci://ghcr.io/acme/review:1.2@sha256:0000000000000000000000000000000000000000000000000000000000000000
}

// Push a skill folder, pin its tag, and fetch it as a skill.
func Example() {
	ctx := context.Background()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	tmp, err := os.MkdirTemp("", "oci-example")
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

	ref := "oci://" + host + "/team/review:v1"
	pushed, err := oci.Push(ctx, dir, ref, opts...)
	if err != nil {
		log.Fatal(err)
	}
	pin, err := oci.Resolve(ctx, ref, opts...)
	if err != nil {
		log.Fatal(err)
	}
	s, err := oci.Skill(ctx, ref+"@"+pin, opts...)
	if err != nil {
		log.Fatal(err)
	}
	src := s.Source.(oci.SkillSource)
	fmt.Println(pin == pushed, s.Key, src.Fingerprint == pin)
	// Output:
	// true review true
}
