package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// TestPushIsReproducible: rule 6 of The format Push writes: the same
// content, at another path with other times, gives the same digest in
// either format, to any tag or repository.
func TestPushIsReproducible(t *testing.T) {
	for _, format := range []Format{FormatImage, FormatArtifact} {
		t.Run(string(format), func(t *testing.T) { testPushIsReproducible(t, format) })
	}
}

func testPushIsReproducible(t *testing.T, format Format) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	opts = append(opts, WithFormat(format))
	dir := newSkill(t, "review")
	first, err := Push(ctx, dir, "oci://"+host+"/team/review:v1", opts...)
	if err != nil {
		t.Fatal(err)
	}

	// The same content elsewhere, with other times, pushed again and to
	// another tag and repository.
	again := newSkill(t, "review")
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	filepath.Walk(again, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	for _, ref := range []string{"oci://" + host + "/team/review:v1", "oci://" + host + "/team/review:latest", "oci://" + host + "/other/place:v9"} {
		got, err := Push(ctx, again, ref, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got != first {
			t.Errorf("Push(%q) of the same folder = %s, want %s", ref, got, first)
		}
	}
	// Another annotation is another digest.
	if got, err := Push(ctx, dir, "oci://"+host+"/team/review:v2", append(opts, WithVersion("2"))...); err != nil || got == first {
		t.Errorf("Push with a version = %s, %v; want a digest other than %s", got, err, first)
	}
}

func TestPackFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fmt")
	writeTree(t, dir, map[string]string{
		"SKILL.md":         skillMD("fmt", "Formats"),
		"b.md":             "b",
		"a-b/x.md":         "x",
		"a/z.md":           "z",
		"scripts/go.sh*":   "#!/bin/sh\n",
		".git/config":      "[core]\n",
		"sub/.git/HEAD":    "ref\n",
		"sub/.gitignore":   "*.o\n",
		"empty/.keep":      "",
		"deep/er/file.txt": "f",
	})
	var buf bytes.Buffer
	desc, diffID, err := pack(t.Context(), dir, &buf, skill.NewCache().Limits())
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest != digest.FromBytes(buf.Bytes()) || desc.Size != int64(buf.Len()) || desc.MediaType != LayerMediaType {
		t.Errorf("pack = %v, want the digest and size of what it wrote", desc)
	}
	gz, err := gzip.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(gz); err != nil || diffID != digest.FromBytes(plain) {
		t.Errorf("pack's uncompressed digest = %s, want %s (%v)", diffID, digest.FromBytes(plain), err)
	}
	if gz, err = gzip.NewReader(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || gz.Comment != "" || !gz.ModTime.IsZero() && gz.ModTime.Unix() != 0 {
		t.Errorf("gzip header = name %q, comment %q, time %v; want none", gz.Name, gz.Comment, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		wantMode := int64(0o644)
		if hdr.Typeflag == tar.TypeDir || hdr.Name == "scripts/go.sh" && runtime.GOOS != "windows" {
			wantMode = 0o755
		}
		if hdr.Mode != wantMode || hdr.ModTime.Unix() != 0 || hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" {
			t.Errorf("%s: mode %o, time %v, owner %d:%d %q:%q; want mode %o, the epoch, 0:0, unnamed", hdr.Name, hdr.Mode, hdr.ModTime, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname, wantMode)
		}
	}
	want := []string{
		"SKILL.md", "a/", "a/z.md", "a-b/", "a-b/x.md", "b.md", "deep/", "deep/er/", "deep/er/file.txt",
		"empty/", "empty/.keep", "scripts/", "scripts/go.sh", "sub/", "sub/.gitignore",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("packed entries (-want +got):\n%s", diff)
	}
}

func TestPushRefusals(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	ref := "oci://" + host + "/team/review:v1"
	good := func(t *testing.T) string { return newSkill(t, "review") }
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		ref     string
		unix    bool
		want    string
		wantErr error
	}{
		{name: "a digest instead of a tag", dir: good, ref: "oci://" + host + "/team/review@sha256:" + strings.Repeat("a", 64), want: "push to a tag"},
		{name: "a tag and a digest", dir: good, ref: ref + "@sha256:" + strings.Repeat("a", 64), want: "push to a tag"},
		{name: "not a reference", dir: good, ref: host + "/team/review:v1", want: "not an OCI reference"},
		{name: "no SKILL.md", dir: func(t *testing.T) string { return t.TempDir() }, want: "missing required file: SKILL.md"},
		{name: "no description", dir: func(t *testing.T) string {
			d := filepath.Join(t.TempDir(), "x")
			writeTree(t, d, map[string]string{"SKILL.md": "---\nname: x\n---\nbody\n"})
			return d
		}, want: "description"},
		{name: "a name that is not portable", dir: func(t *testing.T) string {
			d := good(t)
			writeTree(t, d, map[string]string{"notes\x01.md": "x"})
			return d
		}, wantErr: skill.ErrArchiveUnsafe},
		{name: "a link that leads outside", unix: true, dir: func(t *testing.T) string {
			d := good(t)
			outside := filepath.Join(t.TempDir(), "secret")
			os.WriteFile(outside, []byte("s"), 0o644)
			if err := os.Symlink(outside, filepath.Join(d, "secret")); err != nil {
				t.Fatal(err)
			}
			return d
		}, want: "leads outside the skill folder"},
		{name: "a link to a folder", unix: true, dir: func(t *testing.T) string {
			d := good(t)
			if err := os.Symlink("scripts", filepath.Join(d, "more")); err != nil {
				t.Fatal(err)
			}
			return d
		}, want: "link to something other than a file"},
		{name: "a named pipe", unix: true, dir: func(t *testing.T) string {
			d := good(t)
			if err := mkfifo(filepath.Join(d, "pipe")); err != nil {
				t.Skip(err)
			}
			return d
		}, want: "not a regular file or folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.unix && runtime.GOOS == "windows" {
				t.Skip("needs Unix links and pipes")
			}
			_, opts := testOptions(t)
			r := tt.ref
			if r == "" {
				r = ref
			}
			_, err := Push(ctx, tt.dir(t), r, opts...)
			if err == nil || tt.want != "" && !strings.Contains(err.Error(), tt.want) || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Push = %v, want an error saying %q (%v)", err, tt.want, tt.wantErr)
			}
		})
	}
	// Nothing reached the registry.
	_, opts := testOptions(t)
	if _, err := Resolve(ctx, ref, opts...); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Resolve after refused pushes = %v, want source.ErrNotFound", err)
	}
}

func TestPushLinkToFileIsACopy(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs Unix links")
	}
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	root, opts := testOptions(t)
	dir := newSkill(t, "review")
	if err := os.Symlink("reference.md", filepath.Join(dir, "alias.md")); err != nil {
		t.Fatal(err)
	}
	d, err := Push(ctx, dir, "oci://"+host+"/team/review:v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Skill(ctx, "oci://"+host+"/team/review@"+d, opts...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(filepath.Join(got, "alias.md"))
	if err != nil || !info.Mode().IsRegular() {
		t.Fatalf("alias.md = %v, %v; want a regular file", info, err)
	}
	if data, _ := os.ReadFile(filepath.Join(got, "alias.md")); string(data) != "details\n" {
		t.Errorf("alias.md = %q, want the linked file's content", data)
	}
}

// TestPushLimits checks that Push holds the packed folder to the limits of
// the cache given with WithCache, each refused before anything is sent.
func TestPushLimits(t *testing.T) {
	root, opts := testOptions(t)
	tests := []struct {
		name  string
		limit skill.DefaultMaterializerOption
		over  extract.Limit // the limit a refusal names
	}{
		{"entries", skill.WithMaxArchiveEntries(4), extract.LimitEntries},
		{"packed size", skill.WithMaxArchiveSize(100), extract.LimitArchiveSize},
		{"file size", skill.WithMaxFileSize(10), extract.LimitFileSize},
		{"total size", skill.WithMaxTotalSize(600), extract.LimitTotalSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSkill(t, "review") // 5 entries, small files
			// Nothing listens at this registry: a push that got as far as
			// sending would fail otherwise.
			_, err := Push(t.Context(), dir, "oci://127.0.0.1:9/team/review:v1", append(opts, cacheAt(root, tt.limit))...)
			var over *extract.LimitError
			if !errors.Is(err, skill.ErrArchiveLimit) || !errors.As(err, &over) || over.Limit != tt.over {
				t.Errorf("Push with a small %s limit = %v, want ErrArchiveLimit over %s", tt.name, err, tt.over)
			}
		})
	}
	// At the entry limit, the folder packs.
	limits := skill.Limits{MaxArchiveSize: 1 << 20, MaxFileSize: 1 << 10, MaxTotalSize: 1 << 20, MaxArchiveEntries: 5}
	if _, _, err := pack(t.Context(), newSkill(t, "review"), io.Discard, limits); err != nil {
		t.Errorf("pack within %+v = %v", limits, err)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

func TestPushHonoursTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, opts := testOptions(t)
	if _, err := Push(ctx, newSkill(t, "review"), "oci://127.0.0.1:1/a/b:v1", opts...); !errors.Is(err, context.Canceled) {
		t.Errorf("Push with a canceled context = %v, want %v", err, context.Canceled)
	}
}

// BenchmarkPush pushes a small skill in each format to a registry on
// loopback: the image sends two configs and three manifests more.
func BenchmarkPush(b *testing.B) {
	_, host := ocireg.Start(b, true)
	dir := filepath.Join(b.TempDir(), "review")
	writeTree(b, dir, map[string]string{"SKILL.md": skillMD("review", "Reviews a change"), "scripts/run.sh*": "#!/bin/sh\necho run\n"})
	for _, format := range []Format{FormatImage, FormatArtifact} {
		b.Run(string(format), func(b *testing.B) {
			opts := []Option{cacheAt(b.TempDir()), WithCredentials(credentials.NewMemoryStore()), WithFormat(format)}
			for i := 0; b.Loop(); i++ {
				if _, err := Push(b.Context(), dir, "oci://"+host+"/bench/"+string(format)+":v"+itoa(i), opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
