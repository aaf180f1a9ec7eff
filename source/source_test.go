package source_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

const skillMD = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# pdf\n"

// commit is the commit the GitHub stand-in gives for every ref.
const commit = "0123456789abcdef0123456789abcdef01234567"

// gitHub is a stand-in GitHub API: o/r holds skills/pdf at every ref;
// o/private wants a token; o/limited is over its rate limit; every other
// repository does not exist.
func gitHub(t *testing.T) string {
	t.Helper()
	var tarball bytes.Buffer
	gz := gzip.NewWriter(&tarball)
	tw := tar.NewWriter(gz)
	top := "o-r-" + commit[:7] + "/"
	for _, e := range []struct {
		name, body string
		dir        bool
	}{{top, "", true}, {top + "skills/", "", true}, {top + "skills/pdf/", "", true}, {top + "skills/pdf/SKILL.md", skillMD, false}} {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.body))}
		if e.dir {
			hdr.Mode, hdr.Typeflag = 0o755, tar.TypeDir
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e.body)
	}
	tw.Close()
	gz.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/repos/o/private/"):
			http.Error(w, `{"message":"Requires authentication"}`, http.StatusUnauthorized)
		case strings.HasPrefix(p, "/repos/o/limited/"):
			w.Header().Set("X-RateLimit-Remaining", "0")
			http.Error(w, `{"message":"API rate limit exceeded"}`, http.StatusForbidden)
		case strings.HasPrefix(p, "/repos/o/r/commits/"):
			io.WriteString(w, commit)
		case p == "/repos/o/r/tarball/"+commit:
			w.Write(tarball.Bytes())
		default:
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// gitRepo makes a repository whose main branch holds skills/pdf, and
// returns its file URL.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_COUNT", "")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "skills", "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skills", "pdf", "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "--quiet", "-m", "skills"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", args[0], err, out)
		}
	}
	return fileURL(dir)
}

// fileURL is the file URL of the absolute path p.
func fileURL(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/... on Windows
	}
	return "file://" + p
}

// registryHost serves an OCI registry on loopback and returns its host.
func registryHost(t *testing.T, h http.Handler) string {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// pushed pushes skills/pdf to a new registry and returns its reference
// and the options that read it.
func pushed(t *testing.T) (oci.Reference, []oci.Option) {
	t.Helper()
	host := registryHost(t, registry.New(registry.Logger(nopLogger())))
	dir := filepath.Join(t.TempDir(), "pdf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := []oci.Option{oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t))))}
	text := "oci://" + host + "/acme/pdf:1"
	if _, err := oci.Push(t.Context(), dir, text, opts...); err != nil {
		t.Fatal(err)
	}
	ref, err := oci.ParseReference(text)
	if err != nil {
		t.Fatal(err)
	}
	return ref, opts
}

// TestRemotes checks that the three kinds of source take one shape:
// Resolve gives a pin, Open the content at it as an archive of the
// format it says, holding SKILL.md in the folder it names, with progress,
// and Repository names the repository whatever the reference.
func TestRemotes(t *testing.T) {
	tests := []struct {
		name       string
		make       func(t *testing.T) (a, b source.Remote)
		format     skill.Format
		subpath    string
		repository string
	}{
		{"github", func(t *testing.T) (source.Remote, source.Remote) {
			api := gitHub(t)
			remote := func(text string) source.Remote {
				src, err := github.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				return github.NewRemote(src, github.WithAPIURL(api), github.WithToken(""))
			}
			return remote("o/r/skills/pdf@main"), remote("O/R@v1")
		}, skill.FormatTar, "skills/pdf", "github:o/r"},
		{"git", func(t *testing.T) (source.Remote, source.Remote) {
			u := gitRepo(t)
			remote := func(text string) source.Remote {
				src, err := git.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				return git.NewRemote(src)
			}
			return remote("git+" + u + "#ref=main&path=skills/pdf"), remote("git+" + u)
		}, skill.FormatTar, "skills/pdf", ""},
		{"oci", func(t *testing.T) (source.Remote, source.Remote) {
			ref, opts := pushed(t)
			other := ref
			other.Tag = "2"
			return oci.NewRemote(ref, opts...), oci.NewRemote(other, opts...)
		}, skill.FormatTarGz, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, other := tt.make(t)
			if got, want := r.Repository(), other.Repository(); got != want || tt.repository != "" && got != tt.repository {
				t.Errorf("Repository() = %q and %q for another reference, want both %q", got, want, tt.repository)
			}
			pin, err := r.Resolve(t.Context())
			if err != nil {
				t.Fatalf("Resolve = %v", err)
			}
			var progress bytes.Buffer
			a, err := r.Open(t.Context(), pin, "", &progress)
			if err != nil {
				t.Fatalf("Open(%s) = %v", pin, err)
			}
			data, err := io.ReadAll(a)
			a.Close()
			if err != nil {
				t.Fatalf("reading the archive: %v", err)
			}
			if a.Format != tt.format || a.Subpath != tt.subpath {
				t.Errorf("Open(%s) = format %v, subpath %q; want %v, %q", pin, a.Format, a.Subpath, tt.format, tt.subpath)
			}
			if progress.Len() == 0 || tt.format == skill.FormatTar && !bytes.Equal(progress.Bytes(), data) {
				t.Errorf("progress got %d bytes of an archive of %d", progress.Len(), len(data))
			}
			if got := readFile(t, data, tt.format, tt.subpath+"/SKILL.md"); got != skillMD {
				t.Errorf("the archive's SKILL.md = %q, want %q", got, skillMD)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close = %v", err)
			}
		})
	}
}

// readFile returns the file name holds in an archive of format f ("" for
// none).
func readFile(t *testing.T, data []byte, f skill.Format, name string) string {
	t.Helper()
	var in io.Reader = bytes.NewReader(data)
	if f == skill.FormatTarGz {
		gz, err := gzip.NewReader(in)
		if err != nil {
			t.Fatal(err)
		}
		in = gz
	}
	tr := tar.NewReader(in)
	for {
		hdr, err := tr.Next()
		if err != nil {
			return ""
		}
		if strings.TrimPrefix(hdr.Name, "./") == strings.TrimPrefix(name, "/") {
			b, _ := io.ReadAll(tr)
			return string(b)
		}
	}
}

// TestGitRemoteCloseReleases checks that Close releases what Resolve
// kept for Open: the temporary repository is removed.
func TestGitRemoteCloseReleases(t *testing.T) {
	u := gitRepo(t)
	src, err := git.Parse("git+" + u + "#ref=main&path=skills/pdf")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	r := git.NewRemote(src, git.WithTempDir(tmp))
	if _, err := r.Resolve(t.Context()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Fatalf("after Resolve, %s holds %d entries, want the kept repository", tmp, len(entries))
	}
	r.Close()
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("after Close, %s still holds %v", tmp, entries)
	}
}

// TestErrors checks the package doc's rules 1 to 8: each package's
// errors wrap the one set of sentinels.
func TestErrors(t *testing.T) {
	type call func(ctx context.Context, t *testing.T) error
	githubRemote := func(text string) call {
		return func(ctx context.Context, t *testing.T) error {
			src, err := github.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			_, err = github.NewRemote(src, github.WithAPIURL(gitHub(t)), github.WithToken("")).Resolve(ctx)
			return err
		}
	}
	gitRemote := func(url func(t *testing.T) string, opts ...git.Option) call {
		return func(ctx context.Context, t *testing.T) error {
			u := url(t)
			src, err := git.Parse("git+" + u)
			if err != nil {
				t.Fatal(err)
			}
			_, err = git.NewRemote(src, opts...).Resolve(ctx)
			return err
		}
	}
	ociRemote := func(h http.Handler, pin string) call {
		return func(ctx context.Context, t *testing.T) error {
			ref, err := oci.ParseReference("oci://" + registryHost(t, h) + "/acme/pdf:1")
			if err != nil {
				t.Fatal(err)
			}
			r := oci.NewRemote(ref, oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))))
			if pin == "" {
				_, err = r.Resolve(ctx)
				return err
			}
			_, err = r.Open(ctx, pin, "", nil)
			return err
		}
	}
	other, otherDigest := otherArtifact()
	tests := []struct {
		rule int
		name string
		call call
		want error
	}{
		{1, "github text", func(context.Context, *testing.T) error { _, err := github.Parse("o"); return err }, source.ErrInvalid},
		{1, "github option", func(context.Context, *testing.T) error {
			_, err := github.New(github.WithAPIURL("ftp://x"))
			return err
		}, source.ErrInvalid},
		{1, "git text", func(context.Context, *testing.T) error { _, err := git.Parse("https://x/r.git"); return err }, source.ErrInvalid},
		{1, "git option", func(context.Context, *testing.T) error { _, err := git.New(git.WithHeader("bad key", "v")); return err }, source.ErrInvalid},
		{1, "oci text", func(context.Context, *testing.T) error {
			_, err := oci.ParseReference("ghcr.io/acme/pdf:1")
			return err
		}, source.ErrInvalid},
		{2, "github", githubRemote("o/missing"), source.ErrNotFound},
		{2, "git", gitRemote(func(t *testing.T) string { gitRepo(t); return fileURL(t.TempDir()) + "/missing" }), source.ErrNotFound},
		{2, "oci", ociRemote(registry.New(registry.Logger(nopLogger())), ""), source.ErrNotFound},
		{3, "github", githubRemote("o/private"), source.ErrAuthRequired},
		{3, "git", gitRemote(func(t *testing.T) string {
			gitRepo(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				w.WriteHeader(http.StatusUnauthorized)
			}))
			t.Cleanup(srv.Close)
			return srv.URL + "/r.git"
		}), source.ErrAuthRequired},
		{3, "oci", ociRemote(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`)
		}), ""), source.ErrAuthRequired},
		{4, "github", githubRemote("o/limited"), source.ErrRateLimited},
		{5, "git", gitRemote(silent, git.WithStallTimeout(200*time.Millisecond)), source.ErrStalled},
		{6, "oci", func(ctx context.Context, t *testing.T) error {
			_, err := oci.Fetch(ctx, "oci://127.0.0.1:1/acme/pdf:1")
			return err
		}, source.ErrNotPinned},
		{7, "oci", ociRemote(other, otherDigest), source.ErrNoSkill},
		{8, "oci", ociRemote(http.NotFoundHandler(), ""), source.ErrNotServer},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("rule %d %s", tt.rule, tt.name), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := tt.call(ctx, t)
			if !errors.Is(err, tt.want) {
				t.Fatalf("%s = %v, want %v", tt.name, err, tt.want)
			}
			t.Logf("error: %v", err)
		})
	}
}

// silent returns the URL of a loopback server that accepts connections
// and never answers; it prepares git as gitRepo does.
func silent(t *testing.T) string {
	gitRepo(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	return "http://" + l.Addr().String() + "/r.git"
}

// otherArtifact serves, as the registry API does, one manifest of another
// tool's artifact type, and returns the handler and its digest.
func otherArtifact() (http.Handler, string) {
	manifest := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/x-other",` +
		`"config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`)
	sum := sha256.Sum256(manifest)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v2/":
			w.WriteHeader(http.StatusOK)
		case "/v2/acme/pdf/manifests/" + digest:
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Docker-Content-Digest", digest)
			w.Header().Set("Content-Length", fmt.Sprint(len(manifest)))
			if r.Method != http.MethodHead {
				w.Write(manifest)
			}
		default:
			http.NotFound(w, r)
		}
	}), digest
}

func nopLogger() *log.Logger { return log.New(io.Discard, "", 0) }
