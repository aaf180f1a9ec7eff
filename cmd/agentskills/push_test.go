package main

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

func TestPush(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	ctx := t.Context()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	webHost := strings.TrimPrefix(web.URL, "http://")

	dir := filepath.Join(t.TempDir(), "review")
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Reviews a change\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("no front matter\n"), 0o644)

	ref := "oci://" + host + "/team/review:v1"
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // a regular expression
		wantStderr string
	}{
		{"pushes and prints the digest", []string{"push", dir, ref}, 0, `^sha256:[0-9a-f]{64}\n$`, ""},
		{"SKILL.md stands for its folder", []string{"push", filepath.Join(dir, "SKILL.md"), ref}, 0, `^sha256:[0-9a-f]{64}\n$`, ""},
		{"with annotations", []string{"push", "--version", "1.0.0", "--source", "https://example.org/review", "--revision", "abc", dir, "oci://" + host + "/team/review:v1.0.0"}, 0, `^sha256:[0-9a-f]{64}\n$`, ""},
		{"as an artifact", []string{"push", "--format", "artifact", dir, "oci://" + host + "/team/review:artifact"}, 0, `^sha256:[0-9a-f]{64}\n$`, ""},
		{"an unknown format", []string{"push", "--format", "docker", dir, "oci://" + host + "/team/review:docker"}, 2, `^$`, `--format "docker": want image or artifact`},
		{"no arguments", []string{"push"}, 2, `^$`, "want DIR and oci://HOST/REPO:TAG"},
		{"one argument", []string{"push", dir}, 2, `^$`, "want DIR and oci://HOST/REPO:TAG"},
		{"three arguments", []string{"push", dir, ref, ref}, 2, `^$`, "too many arguments"},
		{"not a reference", []string{"push", dir, host + "/team/review:v1"}, 2, `^$`, "is not an OCI reference"},
		{"no tag", []string{"push", dir, "oci://" + host + "/team/review"}, 2, `^$`, "names no tag or digest"},
		{"no such folder", []string{"push", filepath.Join(dir, "nothing"), ref}, 2, `^$`, "does not exist"},
		{"a digest, not a tag", []string{"push", dir, "oci://" + host + "/team/review@sha256:" + strings.Repeat("a", 64)}, 1, `^$`, "push to a tag"},
		{"not a skill", []string{"push", bad, ref}, 1, `^$`, "must start with YAML frontmatter"},
		{"not a registry", []string{"push", dir, "oci://" + webHost + "/team/review:v1"}, 1, `^$`, "not an OCI registry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(ctx, tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tt.args, code, tt.wantCode, stderr.String())
			}
			if !regexp.MustCompile(tt.wantStdout).MatchString(stdout.String()) {
				t.Errorf("run(%q) stdout = %q, want %q", tt.args, stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("run(%q) stderr = %q, want %q", tt.args, stderr.String(), tt.wantStderr)
			}
		})
	}

	// What push printed is what the tag names, and it installs.
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"push", dir, ref}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("push = %d: %s", code, stderr.String())
	}
	printed := strings.TrimSpace(stdout.String())
	root := cachetest.Root(t)
	pin, err := oci.Resolve(ctx, ref, oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(root))))
	if err != nil || pin != printed {
		t.Fatalf("Resolve(%q) = %s, %v; want the printed %s", ref, pin, err, printed)
	}
	a, err := oci.Fetch(ctx, "oci://"+host+"/team/review:v1.0.0@"+mustResolve(t, "oci://"+host+"/team/review:v1.0.0", root), oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(root))))
	if err != nil {
		t.Fatal(err)
	}
	// By default an image index; --format artifact, the artifact's
	// manifest; both install.
	for tag, want := range map[string][2]string{
		"v1":       {"application/vnd.oci.image.index.v1+json", "application/vnd.oci.image.layer.v1.tar+gzip"},
		"artifact": {"application/vnd.oci.image.manifest.v1+json", oci.LayerMediaType},
	} {
		r := "oci://" + host + "/team/review:" + tag
		desc, err := remoteDescriptor(t, host, "team/review", tag)
		if err != nil || desc.MediaType != want[0] {
			t.Errorf("push to %s wrote %s, %v; want %s", r, desc.MediaType, err, want[0])
		}
		a, err := oci.Fetch(ctx, r+"@"+mustResolve(t, r, root), oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(root))))
		if err != nil || a.Layer.MediaType != want[1] {
			t.Errorf("Fetch(%s) = %v; want a layer of %s", r, err, want[1])
		}
	}
	if _, err := remoteDescriptor(t, host, "team/review", "docker"); err == nil {
		t.Errorf("push with an unknown format pushed")
	}
	if a.Annotations["org.opencontainers.image.version"] != "1.0.0" || a.Annotations["org.opencontainers.image.revision"] != "abc" || a.Annotations["org.opencontainers.image.source"] != "https://example.org/review" {
		t.Errorf("annotations = %v, want the flags' version, revision and source", a.Annotations)
	}
}

func mustResolve(t *testing.T, ref, root string) string {
	t.Helper()
	d, err := oci.Resolve(t.Context(), ref, oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(root))))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// remoteDescriptor returns what tag names in host/repo, as the registry
// describes it.
func remoteDescriptor(t *testing.T, host, repo, tag string) (ocispec.Descriptor, error) {
	t.Helper()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	return r.Resolve(t.Context(), tag)
}
